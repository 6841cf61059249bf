"""What the player's tests share: playing moves on the simulation and the reference side by
side, and a game against the reference AI timed on the device.  (The oracle for wins by
force they check the program's threat search against is the reference's,
:mod:`traxfpga.host.reference.forcing`.)"""

import pytest

from traxfpga.host.reference.trax import Game, Illegal, format_move
from traxfpga.sim import cxxrtl

SEED = 20151209

needs_cxx = pytest.mark.skipif(not cxxrtl.available(), reason="needs a C++ compiler")


def _result(res):
    """An engine result as the reference reports a step: (placed, size, winner, reason)."""
    from traxfpga.hdl.tiles import Reason, Winner
    winner = {Winner.NONE: None, Winner.WHITE: "white", Winner.BLACK: "black"}[
        Winner(res.winner)]
    reason = {Reason.NONE: None, Reason.LOOP: "loop", Reason.LINE: "line",
              Reason.DRAW: "draw"}[Reason(res.reason)]
    return res.placed, (res.width, res.height), winner, reason


def _play_both(sim, game, move):
    step = game.play(move)
    res = sim.play(move)
    assert _result(res) == (step.placed, step.size, step.winner, step.reason), \
        (game.moves, move)


def _reply_cycles(game):
    """How far past its budget a search may answer: the engine command in flight when the
    budget runs out, which the sequencer does not interrupt (it tests the budget between
    instructions).  That is one reply's work (placing and taking it back, about 70 cycles,
    and its EVAL: at most about 7 cycles for each square of the area and its ring), or a
    hunting SEEK, which makes and takes back every legal placement from where it starts to
    the scan's end: at most two a square of the area and its ring, each about 30 cycles.
    (A search on a 6x7 area, whose root has 66 legal placements, answered 1,896 cycles past
    its budget, over the bound without the hunt.)"""
    squares = (game.width + 2) * (game.height + 2)
    return 400 + 7 * squares + 2 * 30 * squares


def _position(sim, moves, variant="trax"):
    """A new game of ``moves`` on the simulation and the reference; returns the latter."""
    sim.reset(variant)
    game = Game(variant)
    for mv in moves:
        _play_both(sim, game, mv)
    return game


def _replay(sim, moves, variant="trax"):
    """A new game on the simulation and the reference, playing ``moves`` until the first
    the reference refuses (recorded games have a few); returns the reference's game."""
    sim.reset(variant)
    game = Game(variant)
    for mv in moves:
        try:
            game.copy().play(mv)
        except Illegal:
            break
        _play_both(sim, game, mv)
    return game


def timed_answers(dev, clk, seed, enough):
    """The board plays White on the simulated device ``dev`` against the reference AI
    (seeded with ``seed``) until ``enough(times)`` or the game's end; every answer is played
    on the reference (an illegal one raises ``Illegal``).  Returns each answer's time, from
    the first bit of the line sent to the last bit of the answer, in seconds of ``clk``."""
    import random

    from traxfpga.host.reference.ai import choose_move

    rng = random.Random(seed)
    game, times = Game(), []
    line = "-W"
    while not enough(times) and not game.over:
        start = dev.cycles
        answer = dev.run(line.encode() + b"\n", stop=ord("\n"), limit=2 * clk)
        times.append((dev.cycles - start) / clk)
        game.play(answer.decode().strip())
        if game.over:
            break
        line = format_move(choose_move(game, rng))
        game.play(line)
    return times


