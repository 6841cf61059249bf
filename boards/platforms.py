"""The boards trax-fpga supports, and what the build and flash flows need to know about each.

This module is deliberately light (no Amaranth import at module level) so the command line
can list the boards without paying for the Amaranth import; ``Board.platform()`` imports the
amaranth-boards class only when a build needs it.
"""

from dataclasses import dataclass, field
import importlib

__all__ = ["Board", "BOARDS", "DEFAULT_BOARD", "get_board", "board_names"]


@dataclass(frozen=True)
class Board:
    #: short name used on the command line
    name: str
    #: human-readable name
    title: str
    #: "module:Class" of the amaranth-boards platform
    platform_path: str
    #: FPGA part (as amaranth-boards spells it) and package
    device: str
    package: str
    #: capacity of the part: logic cells (LUT4 + carry + FF), 4 kbit block RAMs, 256 kbit SPRAMs
    logic_cells: int
    bram: int
    spram: int
    #: the board's oscillator (the platform's default clock) in MHz
    osc_mhz: float
    #: the default target for the PLL output, MHz (what the device is built for by default)
    clock_mhz: float
    #: default board capacity N (the device stores an N x N Trax board)
    capacity: int
    #: PLL primitive that fits the board's clock pin: "SB_PLL40_PAD" when the oscillator arrives
    #: on the PLL's own input pad, "SB_PLL40_CORE" when it arrives on another (global) pin
    pll_primitive: str
    #: the serial port resource (name, number) on the FTDI's second channel
    uart: tuple
    #: LED resources (name, number) for the status bits: ready, thinking, error
    leds: tuple
    #: name of a platform attribute holding extra resources the LEDs need (or None)
    extra_resources: str = None
    #: where the serial port usually shows up on Linux, and a note on it
    serial_port: str = "/dev/ttyUSB1"
    serial_note: str = ""
    #: what the LEDs are physically, for the docs and the build report
    led_note: str = ""
    #: programmer invocations (the bitstream path is appended)
    iceprog_args: tuple = ()
    openfpgaloader_args: tuple = ("-b", "ice40_generic")
    #: a note shown by ``trax-fpga flash`` (jumpers and the like)
    flash_note: str = ""
    #: why the Trax device cannot be built for this board (None: it can); the self-test can
    device_unfit: str | None = None

    def platform_class(self):
        module_name, class_name = self.platform_path.split(":")
        return getattr(importlib.import_module(module_name), class_name)

    def platform(self):
        """A fresh platform instance with the extra resources this board needs."""
        platform = self.platform_class()()
        if self.extra_resources:
            platform.add_resources(getattr(platform, self.extra_resources))
        return platform


BOARDS = {
    "icebreaker": Board(
        name="icebreaker",
        title="1BitSquared iCEBreaker (iCE40UP5K-SG48)",
        platform_path="amaranth_boards.icebreaker:ICEBreakerPlatform",
        device="iCE40UP5K", package="SG48",
        logic_cells=5280, bram=30, spram=4,
        osc_mhz=12.0, clock_mhz=24.0, capacity=128,
        # The 12 MHz oscillator drives pin 35 (IOT_46b_G0), the UP5K's PLL input pad: the PLL
        # must take it directly through SB_PLL40_PAD.
        pll_primitive="SB_PLL40_PAD",
        uart=("uart", 0),
        # Main board: green LED (pin 37) = ready, red LED (pin 11) = error (both active low,
        # amaranth-boards declares them inverted).  "thinking" has no third LED on the main
        # board: it goes to the break-off PMOD's LED2 (green, pin 1 of PMOD2), which ships
        # attached to the board.
        leds=(("led_g", 0), ("led_g", 1), ("led_r", 0)),
        extra_resources="break_off_pmod",
        serial_port="/dev/ttyUSB1",
        serial_note="FT2232H channel B (interface 1); channel A is the flash programmer",
        led_note="ready = green LED, thinking = green LED2 on the break-off PMOD, error = red LED",
        flash_note="writes the SPI flash; the FPGA restarts from it when programming ends",
    ),
    "hx8k": Board(
        name="hx8k",
        title="Lattice iCE40-HX8K Breakout Board (iCE40HX8K-CT256)",
        platform_path="amaranth_boards.ice40_hx8k_b_evn:ICE40HX8KBEVNPlatform",
        device="iCE40HX8K", package="CT256",
        logic_cells=7680, bram=32, spram=0,
        # 32: the board store, path ends and undo log take 27 of the 32 block RAMs (64
        # would need about 45: the HX parts have no SPRAM).
        osc_mhz=12.0, clock_mhz=36.0, capacity=32,
        # The 12 MHz oscillator arrives on J3, a global buffer input that is not a PLL pad:
        # the PLL takes the clock from the global network (SB_PLL40_CORE).
        pll_primitive="SB_PLL40_CORE",
        uart=("uart", 0),
        leds=(("led", 0), ("led", 1), ("led", 2)),
        serial_port="/dev/ttyUSB1",
        serial_note="FT2232H channel B (interface 1); channel A is the flash programmer",
        led_note="ready = D2, thinking = D3, error = D4 (red LEDs, active high)",
        flash_note=("writes the SPI flash: the programming jumpers must be set for flash "
                    "(the board's factory setting; see the board's user guide)"),
    ),
    "icestick": Board(
        name="icestick",
        title="Lattice iCEstick Evaluation Kit (iCE40HX1K-TQ144)",
        platform_path="amaranth_boards.icestick:ICEStickPlatform",
        device="iCE40HX1K", package="TQ144",
        logic_cells=1280, bram=16, spram=0,
        osc_mhz=12.0, clock_mhz=36.0, capacity=32,
        # The 12 MHz oscillator arrives on pin 21, a global buffer input that is not a PLL pad.
        pll_primitive="SB_PLL40_CORE",
        uart=("uart", 0),
        leds=(("led", 4), ("led", 0), ("led", 2)),
        serial_port="/dev/ttyUSB1",
        serial_note="FT2232H channel B (interface 1); channel A is the flash programmer",
        led_note="ready = green centre LED (D5), thinking = red D1, error = red D3",
        flash_note="writes the SPI flash (an unmodified iCEstick cannot be programmed in SRAM)",
        device_unfit=("the Trax device does not fit the iCEstick's iCE40HX1K: it has 1280 "
                      "logic cells, and the rules engine alone needs 1922 (the whole device "
                      "4402 on the HX8K); build the board self-test with --design selftest"),
    ),
}

DEFAULT_BOARD = "icebreaker"


def board_names():
    return list(BOARDS)


def get_board(name):
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r}; known boards: {', '.join(BOARDS)}") from None
