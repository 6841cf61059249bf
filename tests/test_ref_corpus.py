"""The recorded games (host/reference/data/commented.jsonl, package data) on the reference engine.

* The 277 standard games carry the outcome and final board found by an
  independent engine; each must replay to exactly that.
* The Loop Trax and 8x8 games carry moves only and must replay legally under
  their variants.  Known discrepancy: the last move of 8x8 game 19 (``F0/``)
  would make the area 8x9, which this project's 8x8 rule rejects with code
  ``bounds`` (the recorder accepted it and it would close a white loop).
* Game 104's variant is "unknown"; it is replayed as standard Trax and must
  simply be legal.
"""

import pytest

from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.trax import Game, Illegal

GAMES = load_corpus()
STANDARD = [g for g in GAMES if g["variant"] == "trax"]
OTHERS = [g for g in GAMES if g["variant"] != "trax"]

#: id -> (index of the move rejected, code): disagreements with the record, see above
KNOWN_REJECTED = {19: (18, "bounds")}


def test_corpus_shape():
    assert len(GAMES) == 300
    assert len(STANDARD) == 277 and all(g["expect"] for g in STANDARD)
    assert sorted({g["variant"] for g in OTHERS}) == ["8x8", "looptrax", "unknown"]


def replay(rec):
    g = Game(engine_variant(rec))
    for i, mv in enumerate(rec["moves"]):
        try:
            g.play(mv)
        except Illegal as e:
            return g, (i, e.code)
    return g, None


def test_standard_games_match_the_record():
    failures = []
    for rec in STANDARD:
        g, err = replay(rec)
        got = {"winner": g.winner, "reason": g.reason, "size": list(g.size), "board": g.board_rows()}
        if err or got != rec["expect"]:
            failures.append((rec["id"], err, {k: v for k, v in got.items() if v != rec["expect"][k]}))
    assert failures == []


def test_standard_games_end_with_the_result():
    """A game with a result reaches it on its last move (no move after the end)."""
    for rec in STANDARD:
        g = Game()
        for i, mv in enumerate(rec["moves"]):
            assert not g.over, (rec["id"], i)
            g.play(mv)


@pytest.mark.parametrize("rec", OTHERS, ids=lambda r: f"{r['variant']}-{r['id']}")
def test_other_variants_replay_legally(rec):
    g, err = replay(rec)
    assert err == KNOWN_REJECTED.get(rec["id"])
    if err is None:
        assert g.ply == len(rec["moves"])


def test_game_19_last_move_is_out_of_bounds():
    rec = next(r for r in GAMES if r["id"] == 19)
    g = Game("8x8")
    for mv in rec["moves"][:-1]:
        g.play(mv)
    assert g.size == (8, 8) and not g.over
    with pytest.raises(Illegal) as info:
        g.play("F0/")
    assert info.value.code == "bounds"
    # in standard Trax the same move closes a white loop
    t = Game()
    for mv in rec["moves"]:
        t.play(mv)
    assert (t.winner, t.reason, t.size) == ("white", "loop", (8, 9))


def test_looptrax_games_end_with_a_loop():
    for rec in (r for r in OTHERS if r["variant"] == "looptrax"):
        g, err = replay(rec)
        assert err is None and g.reason == "loop"
