"""``:perft D`` on the simulated device against the reference's ``Game.perft``: from the start,
from recorded positions of each variant (near their ends too, where moves end the game),
perft 0, a finished game, bad arguments, a line sent while it counts; the position is the
same afterwards."""

import pytest

from traxfpga.firmware.isa import Op
from traxfpga.firmware.program import program
from traxfpga.hdl.perft import MAX_PERFT_DEPTH
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.trax import Game
from traxfpga.sim.device import DeviceSim
# The device of test_device.py, so that the compiled simulation is shared.
from test_device import dev, say  # noqa: F401 - a fixture, and its helper


def setup(dev, variant, moves):
    """The position after ``moves`` on the device and in the reference."""
    assert say(dev, f":reset {variant}") == [f"= {variant}"]
    game = Game(variant)
    for mv in moves:
        game.play(mv)
        assert say(dev, f":play {mv}")[0].startswith("= ok"), mv
    return game


def snapshot(dev):
    return say(dev, ":board") + say(dev, ":status")


def test_perft_from_the_start(dev):
    setup(dev, "trax", [])
    before = snapshot(dev)
    for depth, count in enumerate([1, 2, 24, 432, 9568]):
        assert say(dev, f":perft {depth}") == [f"= {count}"], depth
        assert Game().perft(depth) == count
    assert snapshot(dev) == before


def _positions():
    """(variant, moves): per variant, an early position of its first recorded game and one
    three moves before its end (where moves end the game)."""
    games = load_corpus()
    out = []
    for variant in ("trax", "looptrax", "8x8"):
        g = next(g for g in games if engine_variant(g) == variant and len(g["moves"]) > 12)
        out += [(variant, g["moves"][:6]), (variant, g["moves"][:len(g["moves"]) - 3])]
    return out


@pytest.mark.parametrize("variant, moves", _positions(),
                         ids=lambda v: v if isinstance(v, str) else f"ply{len(v)}")
def test_perft_from_recorded_positions(dev, variant, moves):
    game = setup(dev, variant, moves)
    before = snapshot(dev)
    # depth 3 in the early standard and Loop Trax positions, 2 elsewhere (8x8 tries every
    # placement after each move for its draw rule: far more cycles a leaf)
    depth = 3 if len(moves) == 6 and variant != "8x8" else 2
    for d in range(1, depth + 1):
        assert say(dev, f":perft {d}") == [f"= {game.perft(d)}"], (variant, len(moves), d)
    assert snapshot(dev) == before


def test_perft_of_a_finished_game(dev):
    game = setup(dev, "trax", ["@0/", "A0\\", "@2\\"])
    assert game.over
    before = snapshot(dev)
    assert say(dev, ":perft 0") == ["= 1"]
    assert say(dev, ":perft 1") == ["= 0"]
    assert say(dev, ":perft 3") == ["= 0"]
    assert snapshot(dev) == before


def test_bad_arguments_get_one_error_and_change_nothing(dev):
    game = setup(dev, "trax", ["@0/", "A2+"])
    before = snapshot(dev)
    for line, error in [(":perft", "syntax"), (":perft ", "syntax"), (":perft x", "syntax"),
                        (":perft -1", "syntax"), (":perft 05", "syntax"),
                        (":perft 3x", "syntax"), (":perft 3 4", "syntax"),
                        (f":perft {MAX_PERFT_DEPTH + 1}", "range"),
                        (":perft 99999999999999999999", "range"),
                        (":perfts 3", "unknown"), (":pe 3", "unknown"),
                        (":perfT 3", "unknown")]:
        assert say(dev, line) == [f"! {error}"], line
    assert say(dev, ":perft  2  ") == [f"= {game.perft(2)}"]     # spaces around the depth
    assert snapshot(dev) == before
    assert say(dev, ":play A3/")[0].startswith("= ok")        # :play still reads its word


def test_a_line_sent_while_it_counts_is_busy(dev):
    setup(dev, "trax", [])
    answer = dev.run(b":perft 4\n:status\n").decode().splitlines()
    assert answer == ["= 9568", "! busy"]
    assert say(dev, ":status") == ["= trax 0 0 0 - - -"]


def test_without_the_unit_perft_is_refused():
    """A device built without the perft unit (the iCEBreaker's) answers ``! no-perft`` and
    works on; its program has no ``PERFT``."""
    assert all(ins["op"] != Op.PERFT for ins in program(perft=False).code)
    assert sum(ins["op"] == Op.PERFT for ins in program().code) == 1
    # the device of test_pvs.py's timed games (one compiled simulation for both)
    with DeviceSim(capacity=128, clk_freq=921_600, baud=115200, perft=False,
                   node_limit=150) as small:
        assert small.exchange(":reset") == ["= trax"]
        for line in (":perft 2", ":perft", ":perft x"):
            assert small.exchange(line) == ["! no-perft"], line
        assert small.exchange(":play @0/") == ["= ok 1 1 1 1 - -"]
        assert small.exchange(":pe") == ["! unknown"]
        assert small.perft_count == 0
