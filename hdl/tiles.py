"""Tiles, edges and colours: the encodings shared by every hardware core.

Edges (directions) are numbered ``N=0, E=1, S=2, W=3``; the opposite of ``d`` is
``d ^ 2``.  A placed tile is fully described by the 4-bit mask of the edges its
*white* track touches (bit ``d`` set when edge ``d`` is white); the black track
touches the other two edges.  The six oriented tiles are therefore the six
4-bit masks with two bits set.

The notation names a tile by its shape only (``+``, ``/``, ``\\``); each shape
has two orientations whose masks are complements of each other.  The colour of
the track entering a space from a neighbouring tile is ``NONE``, ``WHITE`` or
``BLACK``.

Everything here is plain Python or a ``lib.enum``/``lib.data`` shape, usable
both in Amaranth designs and in host-side code that talks to them.
"""

from amaranth.hdl import Cat, unsigned
from amaranth.lib import data, enum

from .tile_chars import TILE_CHARS

__all__ = [
    "N", "E", "S", "W", "DIRS", "OFFSETS", "opposite",
    "Colour", "Shape", "SHAPE_MASKS", "SHAPE_CHARS", "mask_name", "MASK_NAMES",
    "Variant", "Status", "Winner", "Reason", "STATUS_CODES",
    "Lane", "Cell", "Pos", "End",
]

N, E, S, W = 0, 1, 2, 3
DIRS = (N, E, S, W)
#: (dx, dy) to the neighbour across each edge; y grows downwards (rows).
OFFSETS = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}


def opposite(d):
    return d ^ 2


class Colour(enum.Enum, shape=2):
    NONE  = 0
    WHITE = 1
    BLACK = 2


class Shape(enum.Enum, shape=2):
    """The tile as written in the notation."""
    PLUS      = 0   # "+": straights, N-S and E-W
    SLASH     = 1   # "/": curves N-W and S-E
    BACKSLASH = 2   # "\": curves N-E and S-W


#: Shape -> (first orientation, second orientation) as white-edge masks.  The
#: first orientation is the one of the opening move ``@0/`` (white N-W) or
#: ``@0+`` (white N-S).
SHAPE_MASKS = {
    Shape.PLUS:      (0b0101, 0b1010),
    Shape.SLASH:     (0b1001, 0b0110),
    Shape.BACKSLASH: (0b0011, 0b1100),
}
SHAPE_CHARS = {shape: TILE_CHARS[shape.value] for shape in Shape}

_LETTERS = "NESW"


def mask_name(mask):
    """The canonical cell name of a white-edge mask: its white edges in N, E, S, W order."""
    return "".join(_LETTERS[d] for d in DIRS if mask >> d & 1)


#: canonical name -> mask, for the six tiles.
MASK_NAMES = {mask_name(m): m for pair in SHAPE_MASKS.values() for m in pair}


class Variant(enum.Enum, shape=2):
    TRAX      = 0
    EIGHT     = 1   # 8x8 Trax
    LOOPTRAX  = 2


class Status(enum.Enum, shape=4):
    """Outcome of one engine command.  Codes match the reference engine's."""
    OK           = 0
    GAME_OVER    = 1
    FIRST_MOVE   = 2
    RANGE        = 3
    CAPACITY     = 4
    OCCUPIED     = 5
    NOT_ADJACENT = 6
    MISMATCH     = 7
    BOUNDS       = 8
    THREE_TRACKS = 9
    NO_UNDO      = 10


#: Status -> the reference engine's illegal-move code: the member's name, in lower case with
#: hyphens (``NOT_ADJACENT`` -> ``"not-adjacent"``).
STATUS_CODES = {s: s.name.lower().replace("_", "-") for s in Status if s is not Status.OK}


class Winner(enum.Enum, shape=2):
    NONE  = 0
    WHITE = 1
    BLACK = 2


class Reason(enum.Enum, shape=2):
    NONE = 0
    LOOP = 1
    LINE = 2
    DRAW = 3


#: One edge's quarter of a board-store word: a nibble, which the UP5K's SPRAM (and block
#: RAM) writes on its own.  Taking a tile back clears the colour it sent into an empty
#: neighbour by writing that neighbour's lane alone, without reading the word first: the
#: lane's other bits are an empty square's (no tile: ``white`` and ``occ`` are 0).
Lane = data.StructLayout({"inc": Colour, "white": 1, "occ": 1})


class Cell(data.Struct):
    """One word of the board store, as four lanes, one an edge ``d``: ``inc[d]`` is the colour
    of the track that enters this space across edge ``d`` from a neighbouring tile, kept
    while the space is empty (and frozen once a tile is placed on it); ``white`` is the
    placed tile's white-edge mask, a bit a lane; ``occ`` is held in every lane alike."""
    lane: data.ArrayLayout(Lane, 4)

    @property
    def occ(self):
        return self.lane[0].occ

    @property
    def white(self):
        return Cat(*(self.lane[d].white for d in DIRS))

    @property
    def inc(self):
        return _IncLanes(self.lane)

    def tile(self, mask):
        """Assignments making this word a placed tile of white edges ``mask`` (its entering
        colours kept)."""
        return [a for d in DIRS for a in (self.lane[d].occ.eq(1), self.lane[d].white.eq(mask[d]))]

    def empty(self, inc):
        """Assignments making this word an empty square with entering colours ``inc``."""
        return [a for d in DIRS for a in (
            self.lane[d].occ.eq(0), self.lane[d].white.eq(0), self.lane[d].inc.eq(inc[d]))]


class _IncLanes:
    """``cell.inc[d]``, for an edge given as an int or a value."""

    def __init__(self, lanes):
        self._lanes = lanes

    def __getitem__(self, d):
        return self._lanes[d].inc


def Pos(log2n):
    """Absolute board address (torus coordinates modulo N)."""
    return data.StructLayout({"x": unsigned(log2n), "y": unsigned(log2n)})


def End(log2n):
    """An open end of a path: a tile and the edge the track leaves it by."""
    return data.StructLayout({"x": unsigned(log2n), "y": unsigned(log2n), "d": 2})
