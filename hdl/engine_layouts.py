"""The engine's data layouts: its commands and results (re-exported by
:mod:`traxfpga.hdl.engine`, where the rest of the design imports them from), and those its
parts share: the area in play and the undo log's entries."""

from amaranth.hdl import Cat, signed
from amaranth.lib import data, enum

from .engine_ends import one_hot_dir, top_dir
from .engine_scope import Box
from .tiles import Pos, Reason, Shape, Status, Variant, Winner

__all__ = ["Op", "Command", "Result", "Tried", "CellOut", "Area", "TileEntry", "Trailer", "LogEntry",
           "is_trailer", "had_neighbours"]


class Op(enum.Enum, shape=3):
    PLACE = 0   # place a tile (col, row, shape), with its forced plays
    UNDO  = 1   # take back the last move
    RESET = 2   # empty board, new game of `variant`
    DUMP  = 3   # stream the area's squares row by row on `cells`
    EVAL  = 4   # the attacking potential of both colours (`pot`, `att` of the result)
    SEEK  = 5   # PLACE the first placement at or after (col, row, tile) in scan order that
                # passes the square's checks (docs/engine.md, "SEEK"); the result names it
    UNDO_SEEK = 6   # UNDO, then SEEK from the placement after (col, row, tile) in the area
                    # as restored; one result, SEEK's (docs/engine.md, "UNDO_SEEK")


Command = data.StructLayout({
    "op":      Op,
    "col":     signed(16),
    "row":     signed(16),
    "tile":    Shape,
    "variant": Variant,
    # SEEK, UNDO_SEEK: keep only a placement that ends the game; take back each other legal
    # placement the scan makes and go on (docs/engine.md, "Hunting"; not in 8x8)
    "hunt":    1,
    # SEEK, UNDO_SEEK with an engine of `scope`: scan only the window, rows first_row ..
    # last_row of columns up to last_col (docs/player.md, "Scoped scans")
    "window":    1,
    "last_col":  signed(8),
    "first_row": signed(8),
    "last_row":  signed(8),
})

Result = data.StructLayout({
    "status":  Status,
    "placed":  16,          # tiles placed (1 + forced) by PLACE, taken back by UNDO
    "width":   16,
    "height":  16,
    "ply":     16,          # moves played so far
    "winner":  Winner,
    "reason":  Reason,
    "pot":     data.ArrayLayout(16, 2),     # EVAL: potential of white (0) and black (1)
    "att":     data.ArrayLayout(8, 2),      # EVAL: path ends one square from the other end
    # PLACE, SEEK: the placement tried (SEEK's scan ran out: column width + 1, RANGE)
    "col":     signed(16),
    "row":     signed(16),
    "tile":    Shape,
    # PLACE, SEEK, UNDO_SEEK: the legal placements made (with `hunt`, those taken back too)
    "nodes":   16,
    "variant": Variant,
    # An engine of `scope`: the last placement's tiles' extent and their hull with the far
    # ends they joined (:mod:`.engine_scope`)
    "box":     Box,
    "hull":    Box,
})

#: An engine of `scope`: each legal placement it makes (``valid`` for a cycle, two cycles
#: after it is decided; a hunt's taken back too), for the sequencer's recorded scans.  A
#: strobe, not a stream: nothing may hold the engine back.
Tried = data.StructLayout({
    "valid": 1,
    "col":   signed(8),
    "row":   signed(8),
    "tile":  Shape,
    "ended": 1,
    "box":   Box,
})

CellOut = data.StructLayout({
    "occ":   1,
    "white": 4,             # white-edge mask of the tile
    "eol":   1,             # last square of a row
})


def Area(log2n):
    """The area in play: its top-left square on the torus and its size."""
    return data.StructLayout({"minx": log2n, "miny": log2n,
                              "width": log2n + 1, "height": log2n + 1})


def TileEntry(log2n, compact=False):
    """A placed tile: its square and the far ends (squares) of the four paths it joined,
    white side a, white side b, black side a, black side b; and what taking it back writes
    without reading the stores: its white-edge ``mask``, ``nocc``, the edges it had a
    neighbour across when placed, and ``back``, across each such edge the edge held by
    the far end's path-end word before the tile joined it (the finder's ``back``).

    ``compact`` leaves ``nocc`` out: a side had a neighbour exactly when the far end found
    there is not P's own square (:func:`had_neighbours`)."""
    return data.StructLayout({"p": Pos(log2n), "e": data.ArrayLayout(Pos(log2n), 4),
                              "mask": 4, **({} if compact else {"nocc": 4}),
                              "back": data.ArrayLayout(2, 4)})


def Trailer(log2n, log_depth):
    """The end of a move: its tile count (less than ``log_depth``) and the area before it."""
    return data.StructLayout({"k": log_depth.bit_length(), "area": Area(log2n)})


def LogEntry(log2n, log_depth, compact=False):
    """A log entry: a tile's or a move's trailer (``trailer`` set).  ``compact`` leaves the
    flag out, a trailer being an entry whose tile ``mask`` is zero (a tile has two white
    edges; the trailer's fields end below the mask's bits, :func:`is_trailer`), and the
    tile's ``nocc``: 72 bits at N = 64, two ECP5 DP16KD of 512x36 where 77 take three."""
    tile, trailer = TileEntry(log2n, compact), Trailer(log2n, log_depth)
    assert trailer.size <= tile["mask"].offset, "a trailer must leave a tile's mask zero"
    union = data.UnionLayout({"tile": tile, "trailer": trailer})
    return data.StructLayout({**({} if compact else {"trailer": 1}), "u": union})


def is_trailer(entry):
    """Whether log entry ``entry`` (a view of a :func:`LogEntry`) is a move's trailer."""
    if "trailer" in entry.shape().members:
        return entry.trailer
    return entry.u.tile.mask == 0


def had_neighbours(tile, edges):
    """The edges a logged tile had a neighbour across when placed (its ``nocc``), where
    ``edges`` are the tile's edges of each colour (white, black)."""
    if "nocc" in tile.shape().members:
        return tile.nocc
    bits = []
    for d in range(4):
        bit = 0
        for c in range(2):
            for s, pick in enumerate((one_hot_dir, top_dir)):
                bit |= (pick(edges[c]) == d) & (tile.e[2 * c + s].as_value() != tile.p.as_value())
        bits.append(bit)
    return Cat(*bits)
