"""What the page is sent about a position: its picture and the moves it may offer.

The picture is :func:`traxfpga.host.render.svg_board`'s, so the page draws nothing itself;
the squares to click are placed by :func:`~traxfpga.host.render.space_box`, the same
geometry; the tiles offered on a square are the reference's legal moves there, each with
the oriented tile it would put down (so the chooser shows exactly what will be played).
"""

from __future__ import annotations

from ..reference.paths import winning_paths
from ..reference.trax import Game, Illegal, column_name, format_move, parse_move, row_name
from ..render import space_box, svg_board, svg_tile

__all__ = ["TILE", "TILE_NAMES", "board_picture", "squares", "tile_pictures", "replayed",
           "last_box"]

#: Pixels a tile on the page's board.
TILE = 48
#: The six oriented tiles, by the white edges they join.
TILE_NAMES = ("NS", "EW", "NE", "NW", "ES", "SW")


def tile_pictures(size=40):
    """{name: SVG} of the six tiles, for the chooser (sent once, in ``hello``)."""
    return {name: svg_tile(name, size) for name in TILE_NAMES}


def board_picture(game):
    """The board's SVG, the winning loop or line marked when there is one."""
    marks = [(p["cells"], p["colour"]) for p in winning_paths(game)]
    return svg_board(game, tile=TILE, marks=marks)


def last_box(game):
    """``{"x", "y", "size"}`` of the tile the last move placed, in the picture's
    coordinates, or None before the first move.  The move's notation names its square in
    the area before it; only that tile can have grown the area (forced tiles lie between
    tiles in play), by one column (row) when it went into ``@`` (``0``)."""
    if not game.moves:
        return None
    mv = parse_move(game.moves[-1])
    x, y, size = space_box(max(mv.col, 0), max(mv.row, 0), TILE)
    return {"x": x, "y": y, "size": size}


def _placed_tile(game, move):
    """The oriented tile ``move`` puts on its square (by its white edges).  The area grows
    left (up) when the move is in column ``@`` (row ``0``), which moves the square to
    column (row) 0."""
    game.play(move)
    try:
        return game.tile(max(move.col, 0), max(move.row, 0))
    finally:
        game.undo()


def squares(game):
    """The squares where the side to move may play, in the board picture's coordinates:
    ``[{"square": "B2", "col", "row", "x", "y", "size", "moves": [{"move": "B2/",
    "tile": "NW"}, ...]}, ...]``.  Empty when the game is over."""
    if game.over:
        return []
    work = game.copy()
    by_square = {}
    for mv in game.legal_moves():
        key = (mv.col, mv.row)
        if key not in by_square:
            x, y, size = space_box(mv.col, mv.row, TILE)
            by_square[key] = {"square": column_name(mv.col) + row_name(mv.row),
                              "col": mv.col, "row": mv.row, "x": x, "y": y, "size": size,
                              "moves": []}
        by_square[key]["moves"].append({"move": format_move(mv),
                                        "tile": _placed_tile(work, mv)})
    return list(by_square.values())


def replayed(moves, upto=None):
    """A :class:`Game` after the first ``upto`` of ``moves`` (all by default), and the
    :class:`Illegal` that stopped the replay early, or None."""
    game = Game()
    for mv in moves[:upto]:
        try:
            game.play(mv)
        except Illegal as e:
            return game, e
    return game, None
