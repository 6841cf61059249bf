"""ECP5 clocking: the EHXPLLL parameter search and the component that clocks ``sync`` with it.

``ecp5_pll_params(f_in, f_out)`` chooses CLKI_DIV, CLKFB_DIV and CLKOP_DIV for an EHXPLLL whose
feedback is its own CLKOP output, within the limits Project Trellis' ``ecppll`` applies:

* input: 8 .. 400 MHz; phase detector, F_PFD = F_IN / CLKI_DIV: 3.125 .. 400 MHz
* output, F_OUT = F_PFD * CLKFB_DIV: 10 .. 400 MHz
* VCO, F_VCO = F_OUT * CLKOP_DIV: 400 .. 800 MHz

with CLKI_DIV and CLKOP_DIV in 1 .. 128 and CLKFB_DIV in 1 .. 80.  It returns the closest
achievable output; among equally close settings the one whose VCO is nearest 600 MHz, then
the first in (CLKI_DIV, CLKFB_DIV, CLKOP_DIV) order (ecppll's search and choices).

``ECP5PLL`` has the ports of ``pll.ICE40PLL``: the clock, and a reset held until LOCK and
``POR_DELAY_S`` more.

The design's clock needs no constraint of its own here: nextpnr-ecp5 derives the PLL output's
from the oscillator pin's (which amaranth-boards constrains) and the EHXPLLL's dividers, and
names the net after one of the clock's aliases (not ``clk``, so a ``FREQUENCY NET "clk"``
preference would be ignored).  The build checks the clock nextpnr reports against the PLL.
"""

from dataclasses import dataclass
import math

from amaranth.hdl import Instance, Module, Signal
from amaranth.lib import io, wiring
from amaranth.lib.wiring import Out

from .pll import reset_until_ready

__all__ = ["ECP5PLLParams", "ecp5_pll_params", "ECP5PLL",
           "F_IN_RANGE", "F_PFD_RANGE", "F_VCO_RANGE", "F_OUT_RANGE"]

# Limits as ecppll applies them (MHz).
F_IN_RANGE = (8.0, 400.0)
F_PFD_RANGE = (3.125, 400.0)
F_VCO_RANGE = (400.0, 800.0)
F_OUT_RANGE = (10.0, 400.0)
CLKI_DIV_MAX = 128
CLKFB_DIV_MAX = 80
CLKOP_DIV_MAX = 128
VCO_PREFERRED = 600.0
_TIE = 1e-9                # MHz: errors closer than this are equal


@dataclass(frozen=True)
class ECP5PLLParams:
    f_in_mhz: float
    requested_mhz: float
    clki_div: int
    clkfb_div: int
    clkop_div: int

    @property
    def f_pfd_mhz(self):
        return self.f_in_mhz / self.clki_div

    @property
    def f_out_mhz(self):
        """The frequency the PLL achieves (not necessarily the one requested)."""
        return self.f_pfd_mhz * self.clkfb_div

    @property
    def f_vco_mhz(self):
        return self.f_out_mhz * self.clkop_div

    @property
    def clkop_cphase(self):
        """CLKOP's coarse phase in VCO cycles: half a period, as ecppll sets it (it then
        truncates a single-precision product, which sometimes gives one less; with CLKOP as
        its own feedback the phase does not change the output)."""
        return self.clkop_div // 2

    def as_dict(self):
        return {
            "f_in_mhz": self.f_in_mhz, "requested_mhz": self.requested_mhz,
            "f_out_mhz": self.f_out_mhz, "f_pfd_mhz": self.f_pfd_mhz, "f_vco_mhz": self.f_vco_mhz,
            "clki_div": self.clki_div, "clkfb_div": self.clkfb_div, "clkop_div": self.clkop_div,
        }


def _within(value, limits):
    low, high = limits
    return low <= value <= high


def ecp5_pll_params(f_in_mhz, f_out_mhz):
    """Closest EHXPLLL setting (CLKOP feedback) for ``f_out_mhz`` from ``f_in_mhz``.

    Raises ``ValueError`` if either frequency is outside the PLL's range.
    """
    f_in_mhz = float(f_in_mhz)
    f_out_mhz = float(f_out_mhz)
    if not _within(f_in_mhz, F_IN_RANGE):
        raise ValueError(f"PLL input {f_in_mhz:g} MHz is outside "
                         f"{F_IN_RANGE[0]:g}..{F_IN_RANGE[1]:g} MHz")
    if not _within(f_out_mhz, F_OUT_RANGE):
        raise ValueError(f"PLL output {f_out_mhz:g} MHz is outside "
                         f"{F_OUT_RANGE[0]:g}..{F_OUT_RANGE[1]:g} MHz")
    best, best_key = None, (math.inf, math.inf)
    for clki_div in range(1, CLKI_DIV_MAX + 1):
        f_pfd = f_in_mhz / clki_div
        if not _within(f_pfd, F_PFD_RANGE):
            continue
        for clkfb_div in range(1, CLKFB_DIV_MAX + 1):
            f_out = f_pfd * clkfb_div
            error = abs(f_out - f_out_mhz)
            if error > best_key[0] + _TIE:
                continue
            for clkop_div in range(1, CLKOP_DIV_MAX + 1):
                f_vco = f_out * clkop_div
                if not _within(f_vco, F_VCO_RANGE):
                    continue
                key = (error, abs(f_vco - VCO_PREFERRED))
                if key[0] < best_key[0] - _TIE or (abs(key[0] - best_key[0]) <= _TIE
                                                   and key[1] < best_key[1] - _TIE):
                    best, best_key = (clki_div, clkfb_div, clkop_div), key
    if best is None:   # cannot happen for frequencies within range, kept as a guard
        raise ValueError(f"no PLL setting makes {f_out_mhz:g} MHz from {f_in_mhz:g} MHz")
    clki_div, clkfb_div, clkop_div = best
    return ECP5PLLParams(f_in_mhz=f_in_mhz, requested_mhz=f_out_mhz, clki_div=clki_div,
                         clkfb_div=clkfb_div, clkop_div=clkop_div)


class ECP5PLL(wiring.Component):
    """An ECP5 EHXPLLL fed by the oscillator's pin, its CLKOP output fed back.

    ``pin`` is the oscillator's clock pin, requested with ``dir="-"``; ``clk``, ``rst`` and
    ``locked`` are as in ``pll.ICE40PLL``.
    """

    clk: Out(1)
    rst: Out(1, init=1)
    locked: Out(1)

    def __init__(self, pin, params):
        self.pin = pin
        self.params = params
        super().__init__()

    @property
    def f_out_hz(self):
        return self.params.f_out_mhz * 1e6

    def elaborate(self, platform):
        m = Module()
        p = self.params
        m.submodules.clk_buf = clk_buf = io.Buffer("i", self.pin)
        pll_clk = Signal()
        pll_lock = Signal()
        m.submodules.pll = Instance(
            "EHXPLLL",
            # the loop settings ecppll writes for every output (Lattice's defaults)
            a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1",
            a_MFG_GMCREF_SEL="2",
            a_FREQUENCY_PIN_CLKI=f"{p.f_in_mhz:g}", a_FREQUENCY_PIN_CLKOP=f"{p.f_out_mhz:g}",
            p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
            p_DPHASE_SOURCE="DISABLED",
            p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB", p_OUTDIVIDER_MUXC="DIVC",
            p_OUTDIVIDER_MUXD="DIVD",
            p_CLKI_DIV=p.clki_div, p_CLKFB_DIV=p.clkfb_div,
            p_CLKOP_ENABLE="ENABLED", p_CLKOP_DIV=p.clkop_div,
            p_CLKOP_CPHASE=p.clkop_cphase, p_CLKOP_FPHASE=0,
            p_FEEDBK_PATH="CLKOP",
            i_RST=0, i_STDBY=0, i_CLKI=clk_buf.i, i_CLKFB=pll_clk,
            i_PHASESEL0=0, i_PHASESEL1=0, i_PHASEDIR=1, i_PHASESTEP=1, i_PHASELOADREG=1,
            i_PLLWAKESYNC=0, i_ENCLKOP=0,
            o_CLKOP=pll_clk, o_LOCK=pll_lock,
        )
        reset_until_ready(m, pll_clk, pll_lock, self.f_out_hz, self.rst)
        m.d.comb += [self.clk.eq(pll_clk), self.locked.eq(pll_lock)]
        return m
