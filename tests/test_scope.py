"""The scope of a move (:mod:`traxfpga.host.reference.scope`): every reply that ends the
game after a move is one the rule keeps, checked against every reply's outcome."""

import json
from pathlib import Path

import pytest

from traxfpga.host.reference.scope import scope
from traxfpga.host.reference.trax import Game
from traxfpga.sim.bench import search_positions

DATA = Path(__file__).parent / "data"


def _positions():
    """Mid-game positions (``bench work``'s), and the commented games three moves from
    their end, where the threats are, those of an area 9 wide or tall (where lines are
    made too)."""
    out = [Game.after(moves) for moves in search_positions(4, 1)]
    for line in (DATA / "commented.jsonl").read_text().splitlines():
        g = json.loads(line)
        if g["variant"] == "trax" and len(g["moves"]) > 12:
            game = Game.after(g["moves"][:-3])
            if max(game.size) >= 9:
                out.append(game)
    return out


def test_every_reply_that_ends_the_game_is_kept():
    replies = kept = by_extents = by_boxes = ending = 0
    for game in _positions():
        for move in game.legal_moves():
            game.play(move)
            if game.over:
                game.undo()
                continue
            got = scope(game)
            assert got.ending <= got.kept <= got.kept_by_extents <= got.replies, \
                (game.moves, move)
            # the sequencer's boxes: coarser, as sure
            assert got.kept_by_extents <= got.kept_by_boxes <= got.replies, (game.moves, move)
            replies += len(got.replies)
            kept += len(got.kept)
            by_extents += len(got.kept_by_extents)
            by_boxes += len(got.kept_by_boxes)
            ending += len(got.ending)
            game.undo()
    assert ending > 0
    # a real filter: most replies cannot have changed
    assert kept < replies / 2, (kept, replies)
    assert by_extents < replies / 2, (by_extents, replies)
    assert by_boxes < replies / 2, (by_boxes, replies)


def test_the_game_is_left_as_it_was():
    game = Game.after(search_positions(1, 2)[0])
    game.play(game.legal_moves()[0])
    board, moves = dict(game._b), list(game.moves)
    scope(game)
    assert game._b == board and game.moves == moves


def test_8x8_is_refused():
    game = Game("8x8")
    game.play("@0+")
    with pytest.raises(ValueError, match="8x8"):
        scope(game)
