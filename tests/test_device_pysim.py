"""The simulated device on Amaranth's own simulator (the fallback without a C++ compiler), with a
small board store to reach the capacity limit, and a waveform file."""

import pytest

from traxfpga.host.searcher import choose
from traxfpga.host.trax import Game, format_move
from traxfpga.sim.device import DeviceSim


@pytest.fixture(scope="module")
def small():
    with DeviceSim(capacity=8, backend="pysim", max_defence=1) as sim:
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
    assert dev.exchange("@0/") == [format_move(choose(game, max_defence=1,
                                                       seed=dev.search_seed).move)]
    assert dev.leds & 0b111 == 0b001


def test_vcd_is_written(tmp_path):
    vcd = tmp_path / "device.vcd"
    with DeviceSim(capacity=8, backend="pysim", vcd=str(vcd)) as dev:
        assert dev.exchange("-T") == ["trax-fpga"]
    text = vcd.read_text()
    assert "$enddefinitions" in text and "uart_tx" in text
    assert text.count("\n#") > 100                   # many time steps were dumped
