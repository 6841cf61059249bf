"""The reference's winning paths (host/reference/paths.py), which the web page marks."""

from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.paths import paths, winning_paths
from traxfpga.host.reference.trax import Game, Illegal

_STEP = {(0, -1), (1, 0), (0, 1), (-1, 0)}


def _replayed(record):
    game = Game(engine_variant(record))
    for mv in record["moves"]:
        try:
            game.play(mv)
        except Illegal:
            break
    return game


def _adjacent(a, b):
    return (b[0] - a[0], b[1] - a[1]) in _STEP


def test_every_won_game_of_the_corpus_has_its_winning_path():
    won = 0
    for record in load_corpus():
        game = _replayed(record)
        if game.reason not in ("loop", "line"):
            assert winning_paths(game) == []
            continue
        won += 1
        found = winning_paths(game)
        assert found, record["id"]
        w, h = game.size
        for p in found:
            assert p["colour"] == game.winner and p["kind"] == game.reason
            cells = p["cells"]
            assert len(set(cells)) == len(cells)
            assert all(game.tile(c, r) is not None for c, r in cells)
            assert all(_adjacent(a, b) for a, b in zip(cells, cells[1:]))
            if p["kind"] == "loop":
                assert _adjacent(cells[-1], cells[0]) and len(cells) >= 4
            else:
                ends = {cells[0], cells[-1]}
                across = {c for c, _ in ends} == {0, w - 1} and w >= 8
                down = {r for _, r in ends} == {0, h - 1} and h >= 8
                assert across or down, record["id"]
    assert won > 100


def test_no_loop_or_line_before_the_game_ends():
    """The engine ends a game at its first loop or line, so every earlier position of a
    recorded game has none: a path finder that saw loops where there are none fails."""
    for record in load_corpus()[:60]:
        game = Game(engine_variant(record))
        for mv in record["moves"]:
            try:
                game.play(mv)
            except Illegal:
                break
            if game.over:
                break
            kinds = {p["kind"] for p in paths(game.board_rows())}
            assert kinds <= {"open"}, (record["id"], game.ply, kinds)


def test_every_tile_lies_on_one_path_of_each_colour():
    game = _replayed(load_corpus()[0])
    found = paths(game.board_rows())
    for colour in ("white", "black"):
        cells = [c for p in found if p["colour"] == colour for c in p["cells"]]
        assert sorted(cells) == sorted(set(cells))
        assert len(cells) == game.tiles


def test_the_examples_loop_and_line():
    from pathlib import Path
    from traxfpga.host.reference.movetext import read_moves
    root = Path(__file__).resolve().parents[1] / "docs" / "examples"
    for name in ("loop", "line"):
        game = Game()
        for mv in read_moves(str(root / f"{name}.txt")):
            game.play(mv)
        assert game.reason == name
        (found,) = winning_paths(game)
        assert found["kind"] == name and found["colour"] == game.winner


def test_an_empty_board_has_no_paths():
    assert paths([]) == [] and winning_paths(Game()) == []
