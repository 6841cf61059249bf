"""The pieces of host/render.py the web page uses: squares to click, marks, tile pictures."""

import re
import xml.etree.ElementTree as ET

from traxfpga.host.reference.paths import winning_paths
from traxfpga.host.reference.trax import Game, parse_move
from traxfpga.host.render import _MARK, space_box, svg_board, svg_tile

LOOP = ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/",
        "D0\\", "C1\\", "B1+", "E0+", "@5/"]


def _game(moves):
    g = Game()
    for mv in moves:
        g.play(mv)
    return g


def test_space_box_is_where_the_board_draws_each_empty_space():
    for title in (None, "a title"):
        g = _game(LOOP[:6])
        svg = svg_board(g, tile=40, title=title)
        dashed = set(re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="40" height="40" '
                                r'fill="none"', svg))
        w, h = g.size
        empty = [(c, r) for r in range(-1, h + 1) for c in range(-1, w + 1)
                 if g.tile(c, r) is None]
        boxes = {(f"{x:.2f}", f"{y:.2f}") for x, y, _ in (space_box(c, r, 40, title)
                                                          for c, r in empty)}
        assert boxes == dashed


def test_marks_draw_one_gold_track_per_cell_of_the_winning_loop():
    g = _game(LOOP)
    (loop,) = winning_paths(g)
    plain = svg_board(g)
    marked = svg_board(g, marks=[(loop["cells"], loop["colour"])])
    assert _MARK not in plain
    assert marked.count(_MARK) == len(loop["cells"])
    ET.fromstring(marked)


def test_svg_tile_draws_both_tracks():
    for name in ("NS", "EW", "NE", "NW", "ES", "SW"):
        pic = svg_tile(name, 32)
        assert pic.count("<path") == 2
        ET.fromstring(pic)


def test_last_box_is_the_tile_the_last_move_placed():
    from traxfpga.host.web.position import TILE, last_box
    g = Game()
    assert last_box(g) is None
    for mv in LOOP:
        g.play(mv)
        box = last_box(g)
        col = round((box["x"] - space_box(0, 0, TILE)[0]) / TILE)
        row = round((box["y"] - space_box(0, 0, TILE)[1]) / TILE)
        assert g.tile(col, row) is not None
        before = Game()
        for m in g.moves[:-1]:
            before.play(m)
        # The square was empty before the move: the box is the new tile's.
        mv = parse_move(g.moves[-1])
        assert before.tile(col - (mv.col == -1), row - (mv.row == -1)) is None
        assert (mv.col, mv.row) == (col - (mv.col == -1), row - (mv.row == -1))
