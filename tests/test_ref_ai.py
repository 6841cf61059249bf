"""The reference AI: wins when it can, stops threats, always legal, deterministic, quick."""

import random
import time

import pytest

from traxfpga.host.reference.ai import AIOpponent, choose_move, evaluate
from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.trax import Game, format_move

GAMES = {g["id"]: g for g in load_corpus()}


def prefix(gid, n):
    g = Game()
    for mv in GAMES[gid]["moves"][:n]:
        g.play(mv)
    return g


def test_takes_an_immediate_win():
    g = Game()
    for m in ("@0/", "A0\\"):
        g.play(m)
    mv = choose_move(g)
    g.play(mv)
    assert g.winner == "white"


def test_takes_the_win_in_decisive_corpus_games():
    """Before the last move of games the mover won, the AI finds a winning move."""
    n = 0
    for rec in GAMES.values():
        exp = rec["expect"]
        if not exp or not exp["winner"]:
            continue
        g = prefix(rec["id"], len(rec["moves"]) - 1)
        if exp["winner"] != g.to_move:
            continue
        g.play(choose_move(g))
        assert g.winner == exp["winner"], rec["id"]
        n += 1
        if n == 15:
            break
    assert n == 15


@pytest.mark.parametrize("gid, ply", [(1, 10), (2, 3), (2, 9), (3, 7), (4, 12), (1, 13)])
def test_stops_a_threat(gid, ply):
    g = prefix(gid, ply)
    me = g.to_move
    opp = "black" if me == "white" else "white"
    assert not g.has_winning_move(me) and g.has_winning_move(opp)
    mv = choose_move(g)
    g.play(mv)
    assert not g.over and not g.has_winning_move(opp)


def test_does_not_disturb_the_game():
    g = prefix(1, 10)
    before = (g.board_rows(), list(g.moves))
    choose_move(g)
    assert (g.board_rows(), g.moves) == before


def test_legal_deterministic_and_quick():
    for seed in range(2):
        rng = random.Random(seed)
        g = Game()
        while not g.over and g.ply < 30:
            t = time.perf_counter()
            a = choose_move(g, random.Random(seed * 100 + g.ply))
            assert time.perf_counter() - t < 1.0
            b = choose_move(g, random.Random(seed * 100 + g.ply))
            assert a == b and a in g.legal_moves()
            g.play(a if rng.random() < 0.5 else rng.choice(g.legal_moves()))


def test_beats_a_random_player():
    wins = 0
    for seed in range(6):
        rng = random.Random(seed)
        g = Game()
        ai_side = "white" if seed % 2 == 0 else "black"
        while not g.over and g.ply < 200:
            g.play(choose_move(g, rng) if g.to_move == ai_side else rng.choice(g.legal_moves()))
        wins += g.winner == ai_side
    assert wins >= 5


def test_game_over_raises():
    g = Game()
    for m in ("@0/", "A0\\", "@2\\"):
        g.play(m)
    with pytest.raises(ValueError):
        choose_move(g)


def test_opponent_object_and_evaluate():
    g = prefix(2, 6)
    text = AIOpponent(seed=5).reply(g)
    assert text in [format_move(m) for m in g.legal_moves()]
    assert isinstance(evaluate(g, "white"), float)
    # variants
    for variant in ("8x8", "looptrax"):
        v = Game(variant)
        for _ in range(12):
            if v.over:
                break
            v.play(choose_move(v))
