"""The board with the hand-wired searcher (``player="search"``) answers within the contest's
second when its search runs out of budget, at 115200 and at 19200 baud: the clock is slowed
down so that every search is cut by the budget, and each answer is timed from the first bit
of the opponent's move to the last bit of the board's, as the opponent's clock sees it.  The
same test of the default player, the sequencer, is in test_pvs.py."""

import pytest

from traxfpga.sim.device import DeviceSim

from search_harness import timed_answers

#: 115200 * 8: both line speeds divide it exactly, and it is slow enough that the budget
#: (0.8 s of it) cuts most searches of a game.
CLK = 921_600
SEED = 20161109


@pytest.mark.parametrize("baud", [115200, 19200])
def test_answers_in_time_when_the_budget_cuts_the_search(baud):
    with DeviceSim(capacity=128, clk_freq=CLK, baud=baud, player="search") as dev:
        times = timed_answers(dev, CLK, SEED, lambda times: len(times) >= 16 or sum(
            t >= dev.device.think_time for t in times) >= 3)
        assert dev.framing_errors == 0
    assert max(times) <= 1.0, times
    # The budget (0.8 s of the clock) cut searches short: the test is about that case.
    assert sum(t >= dev.device.think_time for t in times) >= 3, times
