"""Property tests over random legal games (hypothesis, derandomized).

* Every entry of legal_moves() plays without Illegal, and every other
  placement in range is rejected: legal_moves() is exactly what play() accepts.
* play then undo restores the position; format/parse round-trips every move.
* An independent naive engine (tests/ref_naive.py: layered forced plays,
  whole-board path search) agrees on every placement's legality and illegal
  code, on the forced tiles, the board and the result.
* Replaying a game through ``trax-fpga replay --json`` gives the same as Game.
"""

import contextlib
import io
import json
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from ref_naive import NaiveGame, NaiveIllegal
from traxfpga.host.reference.trax import Game, Illegal, Move, format_move, parse_move

SETTINGS = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VARIANTS = st.sampled_from(["trax", "trax", "8x8", "looptrax"])


def random_moves(seed, variant="trax", max_plies=60):
    rng = random.Random(seed)
    g = Game(variant)
    while not g.over and g.ply < max_plies:
        g.play(rng.choice(g.legal_moves()))
    return g.moves


def in_range_placements(g):
    if not g.board_rows():
        return [Move(-1, -1, t) for t in "+/\\"] + [Move(0, 0, "/")]
    return [Move(c, r, t) for r in range(-1, g.height + 1) for c in range(-1, g.width + 1)
            for t in "+/\\"]


def state(g):
    return (g.board_rows(), g.size, g.to_move, g.ply, list(g.moves), g.winner, g.reason, g.over)


@settings(max_examples=25, **SETTINGS)
@given(st.integers(0, 10**9), VARIANTS)
def test_legal_moves_are_exactly_the_playable_ones(seed, variant):
    moves = random_moves(seed, variant)
    g = Game(variant)
    for i, mv in enumerate(moves + [None]):
        legal = g.legal_moves()
        assert len(legal) == len(set(legal)) == g.legal_count()
        assert (legal == []) == g.over
        if i % 4 == 0 or mv is None:
            for m in in_range_placements(g):
                before = state(g)
                try:
                    g.play(m)
                except Illegal as e:
                    assert m not in legal, (moves[:i], m, str(e))
                    assert state(g) == before
                else:
                    assert m in legal, (moves[:i], m)
                    g.undo()
                    assert state(g) == before
        if mv is not None:
            g.play(mv)


@settings(max_examples=25, **SETTINGS)
@given(st.integers(0, 10**9), VARIANTS)
def test_play_undo_and_notation_round_trip(seed, variant):
    moves = random_moves(seed, variant)
    g = Game(variant)
    for mv in moves:
        for m in g.legal_moves():
            text = format_move(m)
            assert parse_move(text) == m
            before = state(g)
            step = g.play(text)
            assert step.move == text and step.size == g.size and step.placed >= 1
            assert (step.winner, step.reason) == (g.winner, g.reason)
            g.undo()
            assert state(g) == before
        g.play(mv)
    # and all the way back
    while g.ply:
        g.undo()
    assert state(g) == state(Game(variant))


@settings(max_examples=20, **SETTINGS)
@given(st.integers(0, 10**9), VARIANTS)
def test_agrees_with_the_naive_engine(seed, variant):
    rng = random.Random(seed)
    g, n = Game(variant), NaiveGame(variant)
    while True:
        for text in n.all_placements():
            try:
                n.try_move(text)
                naive = None
            except NaiveIllegal as e:
                naive = e.code
            try:
                g.play(text)
                g.undo()
                ref = None
            except Illegal as e:
                ref = e.code
            assert ref == naive, (g.moves, text)
        if g.over or g.ply >= 40:
            break
        mv = format_move(rng.choice(g.legal_moves()))
        step = g.play(mv)
        assert step.placed == n.play(mv)
        assert g.board_rows() == n.rows()
        assert (g.winner, g.reason) == (n.winner, n.reason)


def test_agrees_with_the_naive_engine_on_three_track_positions():
    """Corpus positions with moves that the forced plays make illegal."""
    from test_ref_rules import THREE_TRACKS
    prefixes = [
        THREE_TRACKS,
        (["@0/", "A0/", "@1+", "C1\\", "@1/", "C0+", "B0/", "B0/", "D2+", "@4/", "C6\\", "F4\\",
          "G4\\", "E5+", "H3/", "H2+", "F6+", "F7\\", "E0/", "F1/", "H2\\"], "G1+"),
    ]
    for moves, bad in prefixes:
        g, n = Game(), NaiveGame()
        for mv in moves:
            g.play(mv)
            n.play(mv)
        for text in n.all_placements():
            try:
                n.try_move(text)
                naive = None
            except NaiveIllegal as e:
                naive = e.code
            try:
                g.play(text)
                g.undo()
                ref = None
            except Illegal as e:
                ref = e.code
            assert ref == naive, text
        try:
            n.try_move(bad)
        except NaiveIllegal as e:
            assert e.code == "three-tracks"
        else:
            raise AssertionError("the naive engine accepted " + bad)


def replay_json(moves, variant, tmp_path):
    from traxfpga.host import cmd_replay
    import argparse
    p = tmp_path / "game.txt"
    p.write_text("# random game\n" + "\n".join(moves) + "\n")
    parser = argparse.ArgumentParser()
    cmd_replay.add_arguments(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cmd_replay.run(parser.parse_args(["--json", "--variant", variant, str(p)]))
    return rc, json.loads(out.getvalue())


@settings(max_examples=15, **SETTINGS)
@given(st.integers(0, 10**9), VARIANTS)
def test_cli_replay_json_equals_game(tmp_path_factory, seed, variant):
    tmp = tmp_path_factory.mktemp("replay")
    moves = random_moves(seed, variant)
    rc, out = replay_json(moves, variant, tmp)
    g = Game(variant)
    steps = []
    for mv in moves:
        s = g.play(mv)
        steps.append({"move": s.move, "placed": s.placed, "size": list(s.size)})
    assert rc == 0
    assert out == {"engine": "ref", "variant": variant, "applied": len(moves), "illegal": None,
                   "winner": g.winner, "reason": g.reason, "size": list(g.size), "steps": steps,
                   "board": g.board_rows()}
