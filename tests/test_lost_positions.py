"""The lost positions (``tests/data/lost_positions.jsonl``, written by ``trax-fpga bench
held-back --save``): the board's losing moves in the games the held-back 2016 contest program
won against it (``../shared/games/held-back/``) and in its losses to peryaudo's contest
client, with the moves that hold in each position and the twin's answer at a large budget.

The simulated board, at its contest budget, must answer with a move that holds wherever the
twin's answer does: a change that weakens the search where it once saw the attack fails
here.  Positions lost whatever is played only check that the board answers legally.
"""

from pathlib import Path

import pytest

from traxfpga.host.players import open_player
from traxfpga.host.positions import load_suite
from traxfpga.host.reference.forcing import refuted

from player_harness import needs_cxx

SUITE = Path(__file__).parent / "data" / "lost_positions.jsonl"


@pytest.fixture(scope="module")
def suite():
    return load_suite(SUITE)


def test_the_suite_holds_the_losing_moves(suite):
    """Each case's played move lost by force within its depth, and no move it lists as
    holding is the played one; the twin's answer is legal there."""
    assert len(suite) >= 10
    for case, holds, expected in suite:
        game = case.position()
        assert refuted(game, case.played, case.depth), case.source
        assert case.played not in holds, case.source
        game.copy().play(expected)
    assert any(expected in holds for _, holds, expected in suite), \
        "the suite has positions where the twin finds a move that holds"


@needs_cxx
@pytest.mark.slow
def test_the_board_holds_where_the_twin_does(suite):
    lost = []
    with open_player("sim") as board:
        for case, holds, expected in suite:
            answer = board.answer_position(case.moves)
            case.position().play(answer)                        # legal
            if expected in holds and answer not in holds:
                lost.append(f"{case.source}: {answer} (the twin's {expected} holds)")
    assert not lost, lost
