"""iCE40 clocking (the ECP5's is in ``pll_ecp5``): the PLL parameter search and the components that clock the ``sync`` domain.

``pll_params(f_in, f_out)`` chooses DIVR/DIVF/DIVQ/FILTER_RANGE for an iCE40 PLL in SIMPLE
feedback mode, within the data sheet's limits:

* input (REFERENCECLK or PACKAGEPIN): 10 .. 133 MHz
* phase detector input, F_PFD = F_IN / (DIVR + 1): 10 .. 133 MHz
* VCO, F_VCO = F_PFD * (DIVF + 1): 533 .. 1066 MHz
* output, F_OUT = F_VCO / 2**DIVQ with DIVQ in 1 .. 6: 16 .. 275 MHz

It returns the closest achievable output (the same search and choices as icestorm's icepll).

``ICE40PLL`` instantiates SB_PLL40_PAD (the oscillator arrives on the PLL's own input pad, as on
the iCEBreaker) or SB_PLL40_CORE (the oscillator arrives on another pin and reaches the PLL
through the global buffer, as on the HX8K breakout and the iCEstick), and gives the clock for
the ``sync`` domain from the PLL's global output with a reset held until LOCK, and then some
more.  ``DirectClock`` does the same straight from the oscillator, for when no PLL is wanted.
The board top defines the domain itself (Amaranth wants domains defined in the top or a parent
of their users) and connects it to these.
"""

from dataclasses import dataclass
import math

from amaranth.hdl import ClockDomain, Const, ClockSignal, Instance, Module, Signal
from amaranth.lib import io, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import Out

__all__ = ["PLLParams", "pll_params", "filter_range", "ICE40PLL", "DirectClock",
           "pcf_clock_constraint", "reset_until_ready", "POR_DELAY_S",
           "F_IN_RANGE", "F_PFD_RANGE", "F_VCO_RANGE", "F_OUT_RANGE"]

# Limits from the iCE40 sysCLOCK PLL design guide (MHz), as icepll applies them.
F_IN_RANGE = (10.0, 133.0)
F_PFD_RANGE = (10.0, 133.0)
F_VCO_RANGE = (533.0, 1066.0)
F_OUT_RANGE = (16.0, 275.0)
DIVR_MAX = 15    # 4 bits
DIVF_MAX = 127   # 7 bits (SIMPLE feedback; the other modes are limited to 63)
DIVQ_RANGE = (1, 6)

# After LOCK the domain's reset is held this long more: iCE40 block RAMs read as zero for
# about 3 us after configuration (Amaranth's own iCE40 power-on reset waits 15 us too).
POR_DELAY_S = 15e-6


@dataclass(frozen=True)
class PLLParams:
    f_in_mhz: float
    requested_mhz: float
    divr: int
    divf: int
    divq: int
    filter_range: int

    @property
    def f_pfd_mhz(self):
        return self.f_in_mhz / (self.divr + 1)

    @property
    def f_vco_mhz(self):
        return self.f_pfd_mhz * (self.divf + 1)

    @property
    def f_out_mhz(self):
        """The frequency the PLL achieves (not necessarily the one requested)."""
        return self.f_vco_mhz / 2 ** self.divq

    @property
    def error_ppm(self):
        return (self.f_out_mhz - self.requested_mhz) / self.requested_mhz * 1e6

    def as_dict(self):
        return {
            "f_in_mhz": self.f_in_mhz, "requested_mhz": self.requested_mhz,
            "f_out_mhz": self.f_out_mhz, "f_pfd_mhz": self.f_pfd_mhz, "f_vco_mhz": self.f_vco_mhz,
            "divr": self.divr, "divf": self.divf, "divq": self.divq,
            "filter_range": self.filter_range,
        }


def filter_range(f_pfd_mhz):
    """The loop filter setting for a phase detector frequency (thresholds as in icepll)."""
    for limit, value in ((17, 1), (26, 2), (44, 3), (66, 4), (101, 5)):
        if f_pfd_mhz < limit:
            return value
    return 6


def _within(value, limits):
    low, high = limits
    return low <= value <= high


def pll_params(f_in_mhz, f_out_mhz):
    """Closest SIMPLE-feedback iCE40 PLL setting for ``f_out_mhz`` from ``f_in_mhz``.

    Raises ``ValueError`` if either frequency is outside the PLL's range.  Among settings equally
    close to the request the first in (DIVR, DIVF, DIVQ) order wins, as in icepll.
    """
    f_in_mhz = float(f_in_mhz)
    f_out_mhz = float(f_out_mhz)
    if not _within(f_in_mhz, F_IN_RANGE):
        raise ValueError(f"PLL input {f_in_mhz:g} MHz is outside "
                         f"{F_IN_RANGE[0]:g}..{F_IN_RANGE[1]:g} MHz")
    if not _within(f_out_mhz, F_OUT_RANGE):
        raise ValueError(f"PLL output {f_out_mhz:g} MHz is outside "
                         f"{F_OUT_RANGE[0]:g}..{F_OUT_RANGE[1]:g} MHz")
    best = None
    best_error = math.inf
    for divr in range(DIVR_MAX + 1):
        f_pfd = f_in_mhz / (divr + 1)
        if not _within(f_pfd, F_PFD_RANGE):
            continue
        for divf in range(DIVF_MAX + 1):
            f_vco = f_pfd * (divf + 1)
            if not _within(f_vco, F_VCO_RANGE):
                continue
            for divq in range(DIVQ_RANGE[0], DIVQ_RANGE[1] + 1):
                error = abs(f_vco / 2 ** divq - f_out_mhz)
                if error < best_error:
                    best, best_error = (divr, divf, divq), error
    if best is None:   # cannot happen for inputs within range, kept as a guard
        raise ValueError(f"no PLL setting makes {f_out_mhz:g} MHz from {f_in_mhz:g} MHz")
    divr, divf, divq = best
    return PLLParams(f_in_mhz=f_in_mhz, requested_mhz=f_out_mhz, divr=divr, divf=divf, divq=divq,
                     filter_range=filter_range(f_in_mhz / (divr + 1)))


def pcf_clock_constraint(f_hz, domain="sync"):
    """The PCF line that constrains ``domain``'s clock to ``f_hz`` for nextpnr.

    After Yosys flattens the design the clock net keeps the name the domain's clock signal has
    in the top module: ``clk`` for ``sync`` (``<domain>_clk`` otherwise).  nextpnr also derives
    the PLL output's frequency from the input pin's constraint and the PLL's dividers; the two
    agree, and the build checks that nextpnr reports the clock at this frequency.
    """
    return f"set_frequency {ClockDomain(domain).clk.name} {f_hz / 1e6:.6f}"


def reset_until_ready(m, clk, locked, f_hz, rst):
    """Drive ``rst`` (for a domain clocked by ``clk``) until ``locked``, and ``POR_DELAY_S``
    more."""
    delay = max(1, math.ceil(POR_DELAY_S * f_hz))
    m.domains.por = ClockDomain("por", reset_less=True, local=True)
    m.d.comb += ClockSignal("por").eq(clk)

    locked_por = Signal()
    m.submodules.lock_sync = FFSynchronizer(locked, locked_por, o_domain="por")
    timer = Signal(range(delay + 1))
    ready = Signal()
    with m.If(~locked_por):
        m.d.por += [timer.eq(0), ready.eq(0)]
    with m.Elif(timer == delay):
        m.d.por += ready.eq(1)
    with m.Else():
        m.d.por += timer.eq(timer + 1)
    m.d.comb += rst.eq(~ready)


class ICE40PLL(wiring.Component):
    """An iCE40 PLL (SIMPLE feedback): a clock and its reset for the design's main domain.

    ``pin`` is the oscillator's clock pin, requested with ``dir="-"``.  ``primitive`` is
    ``"SB_PLL40_PAD"`` when that pin is the PLL's input pad (the PLL then takes the pad itself),
    or ``"SB_PLL40_CORE"`` when it is not (the pin then goes through its global buffer to the
    PLL's REFERENCECLK).

    ``clk`` is the PLL's global output; ``rst`` is synchronous to it and held until the PLL
    locks and ``POR_DELAY_S`` after.  The parent defines the domain and connects them
    (``m.domains.sync = cd``; ``cd.clk.eq(pll.clk)``, ``cd.rst.eq(pll.rst)``).  ``locked`` is
    the PLL's LOCK output (not synchronised), for status displays.
    """

    clk: Out(1)
    rst: Out(1, init=1)
    locked: Out(1)

    PRIMITIVES = ("SB_PLL40_PAD", "SB_PLL40_CORE")

    def __init__(self, pin, params, *, primitive):
        if primitive not in self.PRIMITIVES:
            raise ValueError(f"primitive must be one of {self.PRIMITIVES}, not {primitive!r}")
        self.pin = pin
        self.params = params
        self.primitive = primitive
        super().__init__()

    @property
    def f_out_hz(self):
        return self.params.f_out_mhz * 1e6

    def elaborate(self, platform):
        m = Module()
        p = self.params
        pll_clk = Signal()
        pll_lock = Signal()
        kwargs = dict(
            p_FEEDBACK_PATH="SIMPLE",
            p_PLLOUT_SELECT="GENCLK",
            p_DIVR=p.divr, p_DIVF=p.divf, p_DIVQ=p.divq, p_FILTER_RANGE=p.filter_range,
            i_RESETB=1, i_BYPASS=0,
            o_PLLOUTGLOBAL=pll_clk, o_LOCK=pll_lock,
        )
        if self.primitive == "SB_PLL40_PAD":
            kwargs["i_PACKAGEPIN"] = self.pin.io
        else:
            m.submodules.clk_buf = clk_buf = io.Buffer("i", self.pin)
            kwargs["i_REFERENCECLK"] = clk_buf.i
        m.submodules.pll = Instance(self.primitive, **kwargs)

        reset_until_ready(m, pll_clk, pll_lock, self.f_out_hz, self.rst)
        m.d.comb += [self.clk.eq(pll_clk), self.locked.eq(pll_lock)]
        # The timing constraint for the PLL output is not added here with
        # platform.add_clock_constraint(): Amaranth 0.5 names the constrained net after the last
        # module the clock signal enters (e.g. "device.rx_sync.clk"), a name that flattening
        # removes, and nextpnr then ignores the constraint.  See pcf_clock_constraint().
        return m


class DirectClock(wiring.Component):
    """The clock straight from the oscillator pin (no PLL), with the same ports as ``ICE40PLL``.

    ``rst`` is held for ``POR_DELAY_S`` after configuration; ``locked`` is always 1.
    """

    clk: Out(1)
    rst: Out(1, init=1)
    locked: Out(1)

    def __init__(self, pin, f_hz):
        self.pin = pin
        self.f_out_hz = float(f_hz)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.clk_buf = clk_buf = io.Buffer("i", self.pin)
        reset_until_ready(m, clk_buf.i, Const(1, 1), self.f_out_hz, self.rst)
        m.d.comb += [self.clk.eq(clk_buf.i), self.locked.eq(1)]
        return m
