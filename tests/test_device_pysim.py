"""The simulated device on Amaranth's own simulator (the fallback without a C++ compiler), with a
small board store to reach the capacity limit, and a waveform file."""

import functools

import pytest

from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game, format_move
from traxfpga.sim.device import DeviceSim


#: The player's searches stop after this many legal placements: where the twin stops too,
#: and soon enough for Amaranth's simulator.
NODES = 150


@pytest.fixture(scope="module")
def small():
    with DeviceSim(capacity=8, backend="pysim", node_limit=NODES) as sim:
        yield sim


def test_pysim_backend_and_the_capacity_limit(small):
    dev = small
    assert dev.backend == "pysim"
    assert dev.exchange("-T") == ["trax-fpga"]
    assert dev.exchange(":version") == ["= trax-fpga protocol 1 capacity 8"]
    # A row of + tiles: the area may grow to N - 2 = 6 columns, then the store is full.
    answers = [dev.exchange(f":play {mv}") for mv in ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+"]]
    assert [a[0].split()[3] for a in answers] == ["1", "2", "3", "4", "5", "6"]   # widths
    assert dev.exchange(":play G1+") == ["! capacity"]
    assert dev.exchange(":play @1+") == ["! capacity"]
    assert dev.exchange(":status") == ["= trax 6 1 6 - - -"]
    assert dev.exchange(":board") == ["NS NS NS NS NS NS", "= ok 6 1"]


def test_pysim_contest_answer(small):
    dev = small
    assert dev.exchange("-B") == []
    game = Game()
    game.play("@0/")
    # (the twin of the device's 8x8 store: the opening book's keys are of 128x128, so
    # this device has no book position)
    assert dev.exchange("@0/") == [format_move(run(game, NODES, seed=dev.search_seed,
                                                   log2n=3).move)]
    assert dev.leds & 0b111 == 0b001


def test_vcd_is_written(tmp_path):
    vcd = tmp_path / "device.vcd"
    with DeviceSim(capacity=8, backend="pysim", vcd=str(vcd)) as dev:
        assert dev.exchange("-T") == ["trax-fpga"]
    text = vcd.read_text()
    assert "$enddefinitions" in text and "uart_tx" in text
    assert text.count("\n#") > 100                   # many time steps were dumped


AGREE_LINES = ["-T", ":reset", ":play @0/", ":play A2+", "-B", "@0+", ":status", ":undo",
               "bad line", ":board"]


@functools.cache
def _trace(backend):
    """Every byte the device sends for :data:`AGREE_LINES`, the cycle each arrives at, and
    the search's depth, seed and nodes, on ``backend`` (bench sim's device: one compiled
    simulation for both; Amaranth's simulator's trace is made once for both comparisons)."""
    from traxfpga.sim.bench import SIM_THINK_CYCLES
    from traxfpga.sim.device import DEFAULT_CLK
    with DeviceSim(capacity=16, backend=backend, node_limit=NODES,
                   think_time=SIM_THINK_CYCLES / DEFAULT_CLK) as dev:
        trace = []
        for line in AGREE_LINES:
            trace.append((dev.run(line.encode() + b"\n"), dev.cycles))
        trace.append((dev.search_depth, dev.search_seed, dev.search_nodes, dev.leds))
    return trace


@pytest.mark.parametrize("backend", ["verilator", "cxxrtl"])
def test_compiled_backends_agree_with_amaranths_simulator(backend):
    """The same lines on a compiled backend and on Amaranth's simulator: every byte the
    device sends, the cycle each arrives at, and the search's depth, seed and nodes."""
    from traxfpga.sim import cxxrtl, verilator
    if not {"verilator": verilator, "cxxrtl": cxxrtl}[backend].available():
        pytest.skip(f"the {backend} backend cannot build here")
    assert _trace(backend) == _trace("pysim")


@pytest.mark.slow
def test_bench_sim_json_contract(capsys):
    """``bench sim --json``: every compiled backend this machine builds, on one workload
    with the answers compared, the default marked."""
    import json

    from traxfpga.host.cli import main
    from traxfpga.sim import cxxrtl
    if not cxxrtl.available():
        pytest.skip("needs a C++ compiler")
    assert main(["bench", "sim", "--json", "--no-pysim"]) == 0
    figures = json.loads(capsys.readouterr().out)
    backends = figures["backends"]
    assert "cxxrtl" in backends and sum(b["default"] for b in backends.values()) == 1
    for b in backends.values():
        assert b["cycles_per_second"] > 0 and b["cycles"] > 500_000
    assert figures["workload"]["lines"][-1] == ":move" and figures["workload"]["answers"]
