"""The boards trax-fpga supports, and what the build and flash flows need to know about each.

This module is deliberately light (no Amaranth import at module level) so the command line
can list the boards without paying for the Amaranth import; ``Board.platform()`` imports the
amaranth-boards class only when a build needs it.
"""

from dataclasses import dataclass
import importlib

from ..hdl.tt_spec import INDEX_BITS
from .families import get_family

__all__ = ["Board", "BOARDS", "DEFAULT_BOARD", "get_board", "board_names"]


@dataclass(frozen=True)
class Board:
    #: short name used on the command line
    name: str
    #: human-readable name
    title: str
    #: FPGA family, a key of ``families.FAMILIES``: the tools, resource names and PLL
    family: str
    #: "module:Class" of the amaranth-boards platform
    platform_path: str
    #: FPGA part (as amaranth-boards spells it) and package
    device: str
    package: str
    #: capacity of the part in the family's units (``Family.logic_unit`` and ``bram_unit``):
    #: iCE40 logic cells (LUT4 + carry + FF), 4 kbit block RAMs and 256 kbit SPRAMs; ECP5 LUT4s,
    #: 18 kbit DP16KD block RAMs and no SPRAM
    logic_cells: int
    bram: int
    spram: int
    #: the board's oscillator (the platform's default clock) in MHz
    osc_mhz: float
    #: the default target for the PLL output, MHz (what the device is built for by default)
    clock_mhz: float
    #: default board capacity N (the device stores an N x N Trax board)
    capacity: int
    #: PLL primitive that fits the board's clock pin.  iCE40: "SB_PLL40_PAD" when the oscillator
    #: arrives on the PLL's own input pad, "SB_PLL40_CORE" when it arrives on another (global)
    #: pin; ECP5: "EHXPLLL"
    pll_primitive: str
    #: the serial port resource (name, number) wired to the board's USB serial chip (the FT2232H's
    #: second channel on the iCE40 boards, the ULX3S's FT231X)
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
    #: the programmers that can write the board, in order of preference when several are
    #: installed: (name, arguments before the bitstream path)
    programmers: tuple = ()
    #: a note shown by ``trax-fpga flash`` (jumpers and the like)
    flash_note: str = ""
    #: why the Trax device cannot be built for this board (None: it can); the self-test can
    device_unfit: str | None = None
    #: the device has the perft unit (``:perft``) unless the part has no room for it
    perft: bool = True
    #: search cores of the device (:mod:`traxfpga.hdl.cores`): as many as fit at the clock
    cores: int = 1
    #: the engines read four squares a cycle (``Engine(quad=True)``), where the store is
    #: block RAM with two read-write ports (ECP5's ``DP16KD``) and the part has room for
    #: the logic it adds (about 1000 LUT4s a core)
    four_reads: bool = False
    #: nextpnr's placement seed for the device (None: nextpnr's own), where the part is so
    #: full that the clock is met for some seeds and not others
    nextpnr_seed: int | None = None
    #: each search core has the threat search's transposition table (SPRAM or block RAM)
    #: and its engine the position's key, and so the opening book (None: where the store is
    #: SPRAM, as on the iCEBreaker, whose fourth SPRAM holds the table)
    table: bool | None = None
    #: each table's entries, ``2**table_bits`` (the iCEBreaker's SPRAM holds 2**13; fewer
    #: leave block RAM for more cores)
    table_bits: int = INDEX_BITS

    def has_table(self, capacity=None):
        """Whether the device's search cores have the transposition table (`table`)."""
        return self.store_in_spram(capacity) if self.table is None else self.table

    def store_in_spram(self, capacity=None):
        """Whether the device's board store and path ends go to SPRAM (16K words each) at
        ``capacity`` (None: the board's); else they are block RAM, which is dual-port, and
        the engines use their dual-port schedule (``Engine(dual=True)``)."""
        capacity = self.capacity if capacity is None else capacity
        return self.spram >= 3 and capacity <= 128

    def store_reads_four(self, capacity=None):
        """Whether the device's engines read four squares a cycle (``Engine(quad=True)``):
        the board's choice (`four_reads`), where the store is block RAM."""
        return self.four_reads and not self.store_in_spram(capacity)

    def __post_init__(self):
        family = get_family(self.family)
        if self.pll_primitive not in family.pll_primitives:
            raise ValueError(f"{self.name}: {self.pll_primitive} is not an {family.title} PLL")

    @property
    def family_info(self):
        """The board's ``families.Family``."""
        return get_family(self.family)

    @property
    def bitstream_name(self):
        """The bitstream's file name in the build folder (Amaranth's design name is ``top``)."""
        return "top" + self.family_info.bitstream_suffix

    def platform_class(self):
        module_name, class_name = self.platform_path.split(":")
        return getattr(importlib.import_module(module_name), class_name)

    def platform(self):
        """A fresh platform instance with the extra resources this board needs."""
        platform = self.platform_class()()
        if self.extra_resources:
            platform.add_resources(getattr(platform, self.extra_resources))
        return platform


# iceprog needs no board name for these FTDI boards; openFPGALoader takes its generic iCE40 one.
# Both write the SPI flash.
ICE40_PROGRAMMERS = (("iceprog", ()), ("openFPGALoader", ("-b", "ice40_generic")))

# Both write the configuration flash through the ULX3S's FT231X (its JTAG pins), the same USB
# device as the serial port: openFPGALoader with -f (without it, only the SRAM), fujprog with
# "-j flash" (the ULX3S's own programmer).
ULX3S_PROGRAMMERS = (("openFPGALoader", ("-b", "ulx3s", "-f")), ("fujprog", ("-j", "flash")))


def _ulx3s(size, *, logic_cells, bram, clock_mhz, cores, four_reads, table,
           table_bits=INDEX_BITS, nextpnr_seed=None):
    """A ULX3S: the boards differ only in their ECP5 part, and so in the search cores it
    holds, the clock they meet, whether their engines read four squares a cycle and whether
    the cores have the transposition table."""
    return Board(
        name=f"ulx3s-{size.lower()}",
        title=f"Radiona ULX3S (LFE5U-{size}-BG381)",
        family="ecp5",
        platform_path=f"amaranth_boards.ulx3s:ULX3S_{size}_Platform",
        device=f"LFE5U-{size}", package="BG381",
        logic_cells=logic_cells, bram=bram, spram=0,
        # A 64 x 64 store (62 columns and rows are more than a game at one second a move
        # reaches) so that the block RAMs hold many cores (docs/hardware.md).
        osc_mhz=25.0, clock_mhz=clock_mhz, capacity=64, cores=cores, four_reads=four_reads,
        table=table, table_bits=table_bits,
        nextpnr_seed=nextpnr_seed,
        # The 25 MHz oscillator arrives on G2 (a PCLK pin); the EHXPLLL takes it from there.
        pll_primitive="EHXPLLL",
        uart=("uart", 0),
        # Eight LEDs, active high, in a row: the first two and the last.
        leds=(("led", 0), ("led", 1), ("led", 7)),
        serial_port="/dev/ttyUSB0",
        serial_note="the FT231X's only port; the programmer uses the same chip, so close the "
                    "port while flashing",
        led_note="ready = LED D0, thinking = LED D1, error = LED D7 (active high)",
        programmers=ULX3S_PROGRAMMERS,
        flash_note="writes the configuration flash through the FT231X; the FPGA restarts from "
                   "it when programming ends",
    )


BOARDS = {
    "icebreaker": Board(
        name="icebreaker",
        title="1BitSquared iCEBreaker (iCE40UP5K-SG48)",
        family="ice40",
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
        programmers=ICE40_PROGRAMMERS,
        flash_note="writes the SPI flash; the FPGA restarts from it when programming ends",
        # No room for the perft unit: the device with it needs 5401 of the 5280 logic cells.
        perft=False,
        # 98% full: nextpnr places the device up to a MHz either side of 24 MHz
        # depending on its seed (22.6 to 24.2 MHz over seeds 1 to 16); seed 13 meets the
        # clock.  Any change to the netlist may need another seed (docs/figures.md).
        nextpnr_seed=13,
    ),
    "hx8k": Board(
        name="hx8k",
        title="Lattice iCE40-HX8K Breakout Board (iCE40HX8K-CT256)",
        family="ice40",
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
        programmers=ICE40_PROGRAMMERS,
        flash_note=("writes the SPI flash: the programming jumpers must be set for flash "
                    "(the board's factory setting; see the board's user guide)"),
        # The sequencer's program takes the block RAM the perft unit needs (33 of 32).
        perft=False,
    ),
    "icestick": Board(
        name="icestick",
        title="Lattice iCEstick Evaluation Kit (iCE40HX1K-TQ144)",
        family="ice40",
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
        programmers=ICE40_PROGRAMMERS,
        flash_note="writes the SPI flash (an unmodified iCEstick cannot be programmed in SRAM)",
        device_unfit=("the Trax device does not fit the iCEstick's iCE40HX1K: it has 1280 "
                      "logic cells, and the rules engine alone needs about 2,500 on an "
                      "iCE40 (docs/figures.md); build the board self-test with --design "
                      "selftest"),
    ),
    # The ECP5 parts have no SPRAM: the board store is in DP16KD block RAM.  The device with a
    # 128x128 store takes 50 of them, which even the 25F's 56 hold.
    # A core takes 17 block RAMs (its undo log's compact 72-bit entries take two), its
    # transposition table 16 and its program with the book one more: six fill the 85F
    # (206 of 208).  A core's table is worth more than two cores (docs/figures.md, "Many
    # cores").  Built for 45 MHz the six placed at 43.1, 42.3 and 41.0 MHz (nextpnr seeds
    # 1 to 3: their longest paths cross the die from a store's block RAM), so they run at
    # the PLL's step below, 42.86 MHz (25 MHz / 7 x 12), where seed 1 placed them at
    # 43.32 MHz (docs/figures.md).  Any change to the netlist may need another seed.
    "ulx3s-85f": _ulx3s("85F", logic_cells=83640, bram=208, clock_mhz=25 / 7 * 12, cores=6,
                        four_reads=True, table=True, nextpnr_seed=1),
    # A core with the threat search's table completes an iteration in half the cycles of a
    # core without, and two cores reach deeper in 0.8 s than one (docs/figures.md, "Many
    # cores").  A table of 8,192 entries takes 16 DP16KD, so two cores with such tables
    # would need 70 of the 56 block RAMs; with 4,096 entries each (5.6% more placements)
    # they take 54.
    "ulx3s-25f": _ulx3s("25F", logic_cells=24288, bram=56, clock_mhz=50.0, cores=2,
                        four_reads=True, table=True, table_bits=12),
}

DEFAULT_BOARD = "icebreaker"


def board_names():
    return list(BOARDS)


def get_board(name):
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r}; known boards: {', '.join(BOARDS)}") from None
