"""The board-level top: clock (PLL), pins, and a pluggable device.

``BoardTop(board, device_factory, clock_mhz)`` requests the board's clock pin, serial port and
three status LEDs, makes the ``sync`` domain at ``clock_mhz`` (through the family's PLL, iCE40
SB_PLL40_* or ECP5 EHXPLLL, or straight from the oscillator when ``clock_mhz`` is the
oscillator's frequency), calls
``device_factory(clk_freq)`` with the frequency actually achieved (in Hz, so the device derives
its baud divisor from the real clock), and wires the device's ``rx``/``tx``/``leds`` to the pins.

LED polarity: amaranth-boards declares active-low LEDs (the iCEBreaker's) as inverted pins, and
``io.Buffer`` applies that inversion, so ``leds`` bits are always 1 = LED lit.
"""

from amaranth.hdl import ClockDomain, Module, Shape
from amaranth.lib import io, wiring

from ..firmware.leds import LED_NAMES
from ..hdl.collision import ATTRIBUTE
from .platforms import Board, get_board
from .pll import DirectClock, ICE40PLL, pcf_clock_constraint, pll_params
from .pll_ecp5 import ECP5PLL, ecp5_pll_params

__all__ = ["BoardTop", "LED_NAMES", "clock_plan", "clock_constraint"]

#: family -> the PLL parameter search for it
PLL_PARAMS = {"ice40": pll_params, "ecp5": ecp5_pll_params}


def clock_plan(board, clock_mhz=None):
    """``(f_out_mhz, PLL parameters or None)`` for a board and a requested clock (None: the
    board's default)."""
    board = board if isinstance(board, Board) else get_board(board)
    requested = board.clock_mhz if clock_mhz is None else float(clock_mhz)
    if abs(requested - board.osc_mhz) < 1e-9:
        return board.osc_mhz, None
    params = PLL_PARAMS[board.family](board.osc_mhz, requested)
    return params.f_out_mhz, params


def clock_constraint(board, f_hz):
    """``{override: text}`` for ``platform.prepare``: the constraint of the design's clock net
    at ``f_hz``.  iCE40: a line of the PCF file; ECP5: none, nextpnr-ecp5 derives it (see
    ``pll_ecp5``)."""
    board = board if isinstance(board, Board) else get_board(board)
    if board.family == "ecp5":
        return {}
    return {"add_constraints": pcf_clock_constraint(f_hz)}


#: Yosys commands run before synthesis: the read ports of memories marked `NO_COLLISION`
#: (``hdl/collision.py``) may give anything where they meet their write port.  Yosys takes
#: the attribute into account only where it builds a synchronous read port itself, and
#: Amaranth's come built, so the script says it of them (each such memory has one read
#: port and one write port: one bit of mask).
NO_COLLISION_SCRIPT = [
    "hierarchy -auto-top", "proc", "flatten", "memory_collect",
    f"setparam -set RD_COLLISION_X_MASK 1'1 t:$mem_v2 a:{ATTRIBUTE} %i",
]


def synth_overrides(board):
    """``{override: text}`` for ``platform.prepare``: the synthesis options of the part.
    synth_ice40 maps logic for the HX's delays unless told the part: the UP5K's are slower
    and otherwise balanced, and mapped for them the iCEBreaker's device gains 1 to 2 MHz.
    On the iCE40 parts, `NO_COLLISION_SCRIPT`."""
    board = board if isinstance(board, Board) else get_board(board)
    overrides = {}
    if board.family == "ice40":
        overrides["script_after_read"] = "\n".join(NO_COLLISION_SCRIPT)
    if board.device.startswith("iCE40UP"):
        overrides["synth_opts"] = "-device u"
    return overrides


def _check_device(device):
    members = getattr(getattr(device, "signature", None), "members", None)
    problems = []
    for name, flow, width in (("rx", wiring.In, 1), ("tx", wiring.Out, 1), ("leds", wiring.Out, 3)):
        if members is None or name not in members:
            problems.append(f"no port {name!r}")
            continue
        member = members[name]
        if not member.is_port or member.flow != flow or Shape.cast(member.shape).width != width:
            problems.append(f"port {name!r} is not {flow.name}({width})")
    if problems:
        raise TypeError(f"the device must be a wiring.Component with rx: In(1), tx: Out(1), "
                        f"leds: Out(3); {type(device).__name__} has " + ", ".join(problems))


class BoardTop(wiring.Component):
    """The whole design for one board.  It has no ports of its own (everything is pins)."""

    def __init__(self, board, device_factory, clock_mhz=None):
        self.board = board if isinstance(board, Board) else get_board(board)
        self.clock_mhz, self.pll_params = clock_plan(self.board, clock_mhz)
        self.clk_freq = self.clock_mhz * 1e6
        self.device = device_factory(self.clk_freq)
        try:
            _check_device(self.device)
        except TypeError:
            self._MustUse__silence = True          # no "created but never used" warning
            raise
        super().__init__({})

    def elaborate(self, platform):
        m = Module()
        board = self.board

        clk_pin = platform.request(platform.default_clk, dir="-")
        if self.pll_params is None:
            m.submodules.clocking = clocking = DirectClock(clk_pin, self.clk_freq)
        elif board.family == "ecp5":
            m.submodules.clocking = clocking = ECP5PLL(clk_pin, self.pll_params)
        else:
            m.submodules.clocking = clocking = ICE40PLL(clk_pin, self.pll_params,
                                                        primitive=board.pll_primitive)
        m.domains.sync = cd_sync = ClockDomain("sync")
        m.d.comb += [cd_sync.clk.eq(clocking.clk), cd_sync.rst.eq(clocking.rst)]

        m.submodules.device = device = self.device

        uart_name, uart_number = board.uart
        uart = platform.request(uart_name, uart_number, dir="-")
        m.submodules.rx_buf = rx_buf = io.Buffer("i", uart.rx)
        m.submodules.tx_buf = tx_buf = io.Buffer("o", uart.tx)
        m.d.comb += [device.rx.eq(rx_buf.i), tx_buf.o.eq(device.tx)]

        for index, (led_name, led_number) in enumerate(board.leds):
            led = platform.request(led_name, led_number, dir="-")
            m.submodules[f"led_{LED_NAMES[index]}"] = led_buf = io.Buffer("o", led)
            m.d.comb += led_buf.o.eq(device.leds[index])
        return m
