"""The Trax reference engine: rules, notation, legal moves and perft.

Everything else in the project (the hardware engine, the device) is checked
against this module, so it follows the published rules (the 1994 and 1999 Trax FAQs, the
official rules, the booklet; not part of this repository) literally:

* Tiles.  A placed tile is described by the 4-bit mask of the edges its *white*
  track touches (bit ``d`` set when edge ``d`` is white, with ``N=0, E=1, S=2,
  W=3``); the black track touches the other two edges.  The six oriented tiles
  are the six masks with two bits set.  The notation names only the shape:
  ``+`` (straights N-S and E-W), ``/`` (curves N-W and S-E) and ``\\`` (curves
  N-E and S-W).  Each shape has two orientations, complements of each other,
  and the colour of any one neighbouring edge picks between them.
* Placement.  After the first move (``@0/``: white N-W, or ``@0+``: white N-S)
  a tile goes into an empty space next to a tile in play, and every shared
  edge must join track of the same colour.
* Forced plays.  Whenever an empty space has two edges entered by track of the
  same colour, the mover fills it with the only tile that joins them; this
  repeats until no such space is left.  If at any point an empty space is
  entered by three or four tracks of one colour, the whole move is illegal and
  the position is left unchanged.
* Wins.  After a complete move, loops and lines of each colour are looked for
  on the paths through the tiles placed by that move.  A line is a single path
  with one end on the outer W edge of a tile in the leftmost column and the
  other on the outer E edge of a tile in the rightmost column (or N/S with the
  top and bottom rows), and the area is at least 8 columns wide (rows tall).
  If the mover's colour has a loop or line, the mover wins; otherwise, if the
  opponent's colour has one, the opponent wins.
* Variants.  ``"trax"`` (unlimited), ``"8x8"`` (the area may never exceed
  8 columns or 8 rows; a move that would is illegal with code ``bounds``;
  drawn when no legal move remains) and ``"looptrax"`` (only loops win).

Internally the board is a dict from an absolute position ``p = y * STRIDE + x``
to the tile's white mask; a move is undone by deleting the tiles it placed.
Coordinates exposed by the API are *area-relative*: column ``0`` (``A``) is the
leftmost column in play, ``-1`` (``@``) the empty column left of it, and the
same for rows (``1`` is row ``0``, ``0`` is row ``-1``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "Game", "Move", "Step", "Illegal", "ILLEGAL_CODES", "VARIANTS",
    "parse_move", "format_move", "column_name", "row_name", "perft",
    "TILE_MASKS", "MASK_NAMES", "mask_name",
]

#: Every code an :class:`Illegal` may carry, in the order the checks are made.
ILLEGAL_CODES = ("syntax", "first-move", "range", "occupied", "not-adjacent", "mismatch",
                 "three-tracks", "bounds", "game-over", "capacity")
# "capacity" is never raised by the reference: the hardware engine uses it when a
# move would outgrow its board store (or its undo log or forced-play stack).

#: The variants :class:`Game` accepts.
VARIANTS = ("trax", "8x8", "looptrax")

N, E, S, W = 0, 1, 2, 3
_LETTERS = "NESW"

#: Shape character -> its two orientations as white-edge masks.  The first is the
#: orientation of the opening move (``@0/`` has white N-W, ``@0+`` white N-S).
TILE_MASKS = {"+": (0b0101, 0b1010), "/": (0b1001, 0b0110), "\\": (0b0011, 0b1100)}
_SHAPE_OF = {m: t for t, pair in TILE_MASKS.items() for m in pair}
_COLOUR_INDEX = {"white": 0, "black": 1}
_TILE_ORDER = {"+": 0, "/": 1, "\\": 2}


def mask_name(mask: int) -> str:
    """The canonical cell name of a white-edge mask, e.g. ``0b1001`` -> ``"NW"``."""
    return "".join(_LETTERS[d] for d in range(4) if mask >> d & 1)


#: Canonical name -> white-edge mask for the six oriented tiles.
MASK_NAMES = {mask_name(m): m for m in _SHAPE_OF}
_NAME_OF = {m: mask_name(m) for m in _SHAPE_OF}

# Absolute positions: p = y * STRIDE + x, the first tile at (ORIGIN, ORIGIN).
_SHIFT = 20
STRIDE = 1 << _SHIFT
_XMASK = STRIDE - 1
ORIGIN = 1 << (_SHIFT - 1)
#: Offset of the neighbour across each edge N, E, S, W.
_DELTA = (-STRIDE, 1, STRIDE, -1)

_POP = tuple(bin(i).count("1") for i in range(16))
_BIT_DIR = {1: 0, 2: 1, 4: 2, 8: 3}


def _fit_table():
    """FIT[w][b]: the (shape, mask) placements consistent with a space whose
    white-entered sides are ``w`` and black-entered sides are ``b``."""
    table = []
    for w in range(16):
        row = []
        for b in range(16):
            fits = []
            for t, pair in TILE_MASKS.items():
                for m in pair:
                    if (m & b) == 0 and (w & ~m) == 0:
                        fits.append((t, m))
                        break
            row.append(tuple(fits))
        table.append(tuple(row))
    return tuple(table)


_FIT = _fit_table()

# _EXIT[cmask][entry side] -> the other side of the track with edge mask cmask.
_EXIT = [[-1] * 4 for _ in range(16)]
for _m in _SHAPE_OF:
    for _d in range(4):
        if _m >> _d & 1:
            _EXIT[_m][_d] = _BIT_DIR[_m & ~(1 << _d)]
_EXIT = tuple(tuple(r) for r in _EXIT)
del _m, _d


class Illegal(Exception):
    """A move that cannot be played.

    Attributes
    ----------
    code : str
        One of :data:`ILLEGAL_CODES`.
    sentence : str
        A clear English sentence saying what is wrong.
    move : str or None
        The move text, when known.

    ``str(e)`` is ``"<code>: <sentence>"``.
    """

    def __init__(self, code: str, sentence: str, move: str | None = None):
        assert code in ILLEGAL_CODES, code
        super().__init__(f"{code}: {sentence}")
        self.code = code
        self.sentence = sentence
        self.move = move


class Move(NamedTuple):
    """A move in area-relative notation coordinates.

    ``col``: ``-1`` for ``@``, ``0`` for ``A`` ... ``25`` for ``Z``, ``26`` for
    ``AA``; ``row``: ``-1`` for ``0``, ``0`` for ``1``, ...; ``tile``: ``"+"``,
    ``"/"`` or ``"\\"``.
    """
    col: int
    row: int
    tile: str


class Step(NamedTuple):
    """What one applied move did.

    ``move`` is its notation, ``placed`` 1 plus the number of forced tiles,
    ``size`` the area ``(width, height)`` afterwards, and ``winner``/``reason``
    the game's result after it (``None`` while the game goes on).
    """
    move: str
    placed: int
    size: tuple
    winner: str | None
    reason: str | None


# ---------------------------------------------------------------- notation

def column_name(col: int) -> str:
    """Notation letters of an area-relative column: -1 -> ``@``, 0 -> ``A``, 26 -> ``AA``."""
    if col == -1:
        return "@"
    if col < -1:
        raise ValueError(f"column {col} has no name (the leftmost is -1, '@')")
    n = col + 1
    out = []
    while n > 0:
        n, r = divmod(n - 1, 26)
        out.append(chr(65 + r))
    return "".join(reversed(out))


def row_name(row: int) -> str:
    """Notation digits of an area-relative row: -1 -> ``0``, 0 -> ``1``."""
    if row < -1:
        raise ValueError(f"row {row} has no name (the topmost is -1, '0')")
    return str(row + 1)


#: Longest column (letters) or row (digits) accepted; far beyond any real game.
_MAX_PART = 64
#: Longest move text: a column, a row and a tile.
_MAX_MOVE = 2 * _MAX_PART + 1
_MOVE_RE = re.compile(r"(@|[A-Z]+)(0|[1-9][0-9]*)([+/\\])")


def _syntax(text, why):
    from .echo import shown
    return Illegal("syntax", f"{shown(text)} is not a move: {why}.", text)


def parse_move(text: str) -> Move:
    """Parse one move in Trax notation, e.g. ``"B3\\\\"`` -> ``Move(1, 2, "\\\\")``.

    Raises
    ------
    Illegal
        With code ``"syntax"`` for anything that is not exactly
        ``<column><row><tile>``: column ``@`` or capital letters ``A``.. ``Z``,
        ``AA``..; row ``0`` or a number without leading zeros; tile ``+``, ``/``
        or ``\\``.
    """
    if not isinstance(text, str):
        raise _syntax(text, "a move is a string such as 'B2/'")
    if len(text) > _MAX_MOVE:       # checked first: its other faults would mislead
        raise _syntax(text, f"it is too long (a move has at most {_MAX_MOVE} characters)")
    m = _MOVE_RE.fullmatch(text)
    if m:
        letters, digits, tile = m.groups()
        if len(letters) > _MAX_PART or len(digits) > _MAX_PART:
            raise _syntax(text, f"a column or row longer than {_MAX_PART} characters "
                          f"is not accepted")
        if letters == "@":
            col = -1
        else:
            col = 0
            for ch in letters:
                col = col * 26 + (ord(ch) - 64)
            col -= 1
        return Move(col, int(digits) - 1, tile)
    # Explain what is wrong, most specific first.
    if text == "":
        raise _syntax(text, "it is empty")
    if any(ch.isspace() for ch in text):
        raise _syntax(text, "it contains spaces")
    if any(ch.islower() for ch in text):
        raise _syntax(text, "letters must be capitals (columns are @, A..Z, AA..)")
    bad = [ch for ch in text if not (ch == "@" or "A" <= ch <= "Z" or ch.isdigit() and ch.isascii()
                                     or ch in "+/\\")]
    if bad:
        raise _syntax(text, f"{bad[0]!r} is not allowed (only @, A-Z, 0-9, +, / and \\)")
    if text[-1] not in "+/\\":
        raise _syntax(text, "it does not end with a tile (+, / or \\)")
    body = text[:-1]
    if any(ch in "+/\\" for ch in body):
        raise _syntax(text, "it has more than one tile symbol")
    i = 0
    while i < len(body) and not body[i].isdigit():
        i += 1
    letters, digits = body[:i], body[i:]
    if not letters:
        raise _syntax(text, "the column is missing (@, A..Z, AA..)")
    if "@" in letters and letters != "@":
        raise _syntax(text, "'@' is a column on its own and cannot be combined with letters")
    if not digits:
        raise _syntax(text, "the row number is missing")
    if not digits.isdigit():
        raise _syntax(text, "the column letters must come before the row number")
    if len(digits) > 1 and digits[0] == "0":
        raise _syntax(text, "the row number has a leading zero")
    raise _syntax(text, "expected <column><row><tile>, e.g. 'B2/'")  # pragma: no cover


def format_move(move: Move) -> str:
    """The notation of a :class:`Move`; ``parse_move(format_move(m)) == m``."""
    col, row, tile = move
    if tile not in TILE_MASKS:
        raise ValueError(f"tile {tile!r} is not one of + / \\")
    return f"{column_name(col)}{row_name(row)}{tile}"


# ---------------------------------------------------------------- the game

def trace(b: dict, p0: int, c: int):
    """The path of colour ``c`` (0 white, 1 black) through the tile at ``p0`` of board
    ``b`` (position to mask), walked out of its two edges of that colour until it leaves
    the tiles or comes back: ``(ends, tiles)``, ``ends`` its two ends as ``(tile, edge)``
    (the edge leaving the tile into an empty space), or None for a loop; ``tiles`` the
    tiles walked, ``p0`` first."""
    m0 = b[p0] if c == 0 else 15 ^ b[p0]
    ends, tiles = [], [p0]
    for start in (_BIT_DIR[m0 & -m0], _BIT_DIR[m0 & (m0 - 1)]):
        p, d = p0, start
        while True:
            q = p + _DELTA[d]
            t = b.get(q)
            if t is None:
                ends.append((p, d))
                break
            if q == p0:
                return None, tiles
            tiles.append(q)
            p, d = q, _EXIT[t if c == 0 else 15 ^ t][d ^ 2]
    return ends, tiles


class _Record(NamedTuple):
    placed: list
    bounds: tuple
    result: tuple
    text: str


class Game:
    """A game of Trax under one variant, with full undo.

    Parameters
    ----------
    variant : str
        ``"trax"`` (default), ``"8x8"`` or ``"looptrax"``.

    Attributes
    ----------
    variant : str
    moves : list of str
        The notation of every move applied, in order (forced tiles unwritten).
    winner : str or None
        ``"white"`` or ``"black"`` once someone has won.
    reason : str or None
        ``"loop"``, ``"line"`` or ``"draw"`` once the game is over.
    """

    __slots__ = ("variant", "moves", "winner", "reason", "_b", "_minx", "_maxx", "_miny", "_maxy",
                 "_hist", "_loops_only", "_limit", "_draws")

    def __init__(self, variant: str = "trax"):
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
        self.variant = variant
        self.moves = []
        self.winner = None
        self.reason = None
        self._b = {}
        self._minx = self._maxx = self._miny = self._maxy = 0
        self._hist = []
        self._loops_only = variant == "looptrax"
        self._limit = 8 if variant == "8x8" else 0
        self._draws = variant == "8x8"

    # ------------------------------------------------------------ properties

    @property
    def width(self) -> int:
        """Number of columns in play (0 before the first move)."""
        return self._maxx - self._minx + 1 if self._b else 0

    @property
    def height(self) -> int:
        """Number of rows in play (0 before the first move)."""
        return self._maxy - self._miny + 1 if self._b else 0

    @property
    def size(self) -> tuple:
        """``(width, height)``."""
        return (self.width, self.height)

    @property
    def ply(self) -> int:
        """Number of moves applied."""
        return len(self.moves)

    @property
    def to_move(self) -> str:
        """``"white"`` or ``"black"``: who plays next (White moves first)."""
        return "black" if len(self.moves) & 1 else "white"

    @property
    def over(self) -> bool:
        """True once the game has ended (a win or an 8x8 draw)."""
        return self.reason is not None

    @property
    def tiles(self) -> int:
        """Number of tiles in play."""
        return len(self._b)

    # ------------------------------------------------------------ inspection

    def tile(self, col: int, row: int) -> str | None:
        """The tile at area-relative ``(col, row)`` (0-based) as its white-edge
        pair (``"NE"``, ``"NS"``, ``"NW"``, ``"ES"``, ``"EW"``, ``"SW"``), or None."""
        if not (0 <= col < self.width and 0 <= row < self.height):
            return None
        m = self._b.get((self._miny + row) * STRIDE + self._minx + col)
        return None if m is None else _NAME_OF[m]

    def placed_tiles(self):
        """Every tile as ``(dx, dy, mask)``: its square counted from the game's first tile's
        and its white-edge mask (the position's key, :mod:`.ttable`, is made of these)."""
        return [((p & _XMASK) - ORIGIN, (p >> _SHIFT) - ORIGIN, m) for p, m in self._b.items()]

    def board_rows(self) -> list:
        """The position as canonical rows, top to bottom.

        Each cell is ``"."`` when empty, otherwise the two edges its white track
        joins in N, E, S, W order; cells are separated by one space.
        """
        b = self._b
        if not b:
            return []
        rows = []
        for y in range(self._miny, self._maxy + 1):
            base = y * STRIDE
            cells = []
            for x in range(self._minx, self._maxx + 1):
                m = b.get(base + x)
                cells.append("." if m is None else _NAME_OF[m])
            rows.append(" ".join(cells))
        return rows

    @classmethod
    def after(cls, moves, variant: str = "trax") -> "Game":
        """A new game with ``moves`` played in order (an :class:`Illegal` move raises)."""
        game = cls(variant)
        for mv in moves:
            game.play(mv)
        return game

    def copy(self) -> "Game":
        """An independent copy (including the undo history)."""
        g = Game.__new__(Game)
        g.variant = self.variant
        g.moves = list(self.moves)
        g.winner = self.winner
        g.reason = self.reason
        g._b = dict(self._b)
        g._minx, g._maxx, g._miny, g._maxy = self._minx, self._maxx, self._miny, self._maxy
        g._hist = list(self._hist)
        g._loops_only = self._loops_only
        g._limit = self._limit
        g._draws = self._draws
        return g

    def __repr__(self):
        state = f"{self.winner} wins by {self.reason}" if self.winner else (
            "drawn" if self.over else f"{self.to_move} to move")
        return f"<Game {self.variant} ply={self.ply} size={self.width}x{self.height} {state}>"

    # ------------------------------------------------------------ coordinates

    def _abs(self, col, row):
        """Absolute position of an area-relative (col, row)."""
        return (self._miny + row) * STRIDE + self._minx + col

    def _rel(self, p):
        """Area-relative (col, row) of an absolute position."""
        if not self._b:  # the only space on an empty board: @0
            return -1, -1
        return (p & _XMASK) - self._minx, (p >> _SHIFT) - self._miny

    def _entries(self, p):
        """(white sides, black sides) entering the empty space ``p``."""
        b = self._b
        w = k = 0
        t = b.get(p - STRIDE)
        if t is not None:
            if t & 4:
                w |= 1
            else:
                k |= 1
        t = b.get(p + 1)
        if t is not None:
            if t & 8:
                w |= 2
            else:
                k |= 2
        t = b.get(p + STRIDE)
        if t is not None:
            if t & 1:
                w |= 4
            else:
                k |= 4
        t = b.get(p - 1)
        if t is not None:
            if t & 2:
                w |= 8
            else:
                k |= 8
        return w, k

    # ------------------------------------------------------------ playing

    def _check(self, move):
        """Parse and check a move up to (not including) propagation.

        Returns ``(text, p, mask)``; raises :class:`Illegal`.
        """
        if isinstance(move, Move):
            col, row, tile = move
            if tile not in TILE_MASKS or not isinstance(col, int) or not isinstance(row, int):
                raise _syntax(str(move), "the tile must be one of + / \\ and the coordinates integers")
            if col < -1 or row < -1:
                raise Illegal("range", f"column {col} / row {row} is left of '@' or above '0'.",
                              str(move))
            text = format_move(move)
        else:
            text = move
            col, row, tile = parse_move(move)
        if self.reason is not None:
            if self.winner:
                raise Illegal("game-over", f"the game is over ({self.winner} won by a {self.reason}); "
                              f"no more moves can be played.", text)
            raise Illegal("game-over", "the game is over (drawn); no more moves can be played.", text)
        b = self._b
        if not b:
            if (col, row) != (-1, -1) or tile == "\\":
                raise Illegal("first-move", f"the first move must be '@0/' or '@0+', not {text!r}.",
                              text)
            return text, ORIGIN * STRIDE + ORIGIN, TILE_MASKS[tile][0]
        width, height = self.width, self.height
        if not -1 <= col <= width:
            raise Illegal("range", f"column {column_name(col)} is outside the playing area: with "
                          f"{width} column{'s' if width != 1 else ''} in play, columns run from @ to "
                          f"{column_name(width)}.", text)
        if not -1 <= row <= height:
            raise Illegal("range", f"row {row_name(row)} is outside the playing area: with "
                          f"{height} row{'s' if height != 1 else ''} in play, rows run from 0 to "
                          f"{row_name(height)}.", text)
        p = self._abs(col, row)
        if p in b:
            raise Illegal("occupied", f"{text[:-1]} already holds a tile.", text)
        w, k = self._entries(p)
        if not (w | k):
            raise Illegal("not-adjacent", f"{text[:-1]} does not touch any tile in play; a tile must "
                          f"be placed edge to edge with one.", text)
        for t, m in _FIT[w][k]:
            if t == tile:
                return text, p, m
        raise Illegal("mismatch", f"a {tile!r} tile at {text[:-1]} cannot join the neighbouring "
                      f"tracks colour to colour.", text)

    def _propagate(self, p, m):
        """Place mask ``m`` at ``p`` and every forced tile.

        Returns the list of positions placed (``p`` first), or None when the
        move is illegal (three or four same-coloured tracks entering an empty
        space), in which case the board is left exactly as it was.
        """
        b = self._b
        get = b.get
        b[p] = m
        placed = [p]
        stack = [p]
        pop = stack.pop
        while stack:
            s = pop()
            for q in (s - STRIDE, s + 1, s + STRIDE, s - 1):
                if q in b:
                    continue
                # entries of q, inlined from _entries
                w = k = 0
                t = get(q - STRIDE)
                if t is not None:
                    if t & 4:
                        w = 1
                    else:
                        k = 1
                t = get(q + 1)
                if t is not None:
                    if t & 8:
                        w |= 2
                    else:
                        k |= 2
                t = get(q + STRIDE)
                if t is not None:
                    if t & 1:
                        w |= 4
                    else:
                        k |= 4
                t = get(q - 1)
                if t is not None:
                    if t & 2:
                        w |= 8
                    else:
                        k |= 8
                nw = _POP[w]
                nk = _POP[k]
                if nw == 2 and nk < 3:
                    b[q] = w
                elif nk == 2 and nw < 3:
                    b[q] = 15 ^ k
                elif nw > 2 or nk > 2:
                    for r in placed:
                        del b[r]
                    return None
                else:
                    continue
                placed.append(q)
                stack.append(q)
        return placed

    def _apply(self, p, m, text, draws=True):
        """Apply a checked placement: propagate, bounds, wins, history.

        Returns the placed positions or an illegal code string.
        """
        placed = self._propagate(p, m)
        if placed is None:
            return "three-tracks"
        old = (self._minx, self._maxx, self._miny, self._maxy)
        x = p & _XMASK
        y = p >> _SHIFT
        if len(self._b) == len(placed):  # first move
            self._minx = self._maxx = x
            self._miny = self._maxy = y
        else:
            # Forced tiles always lie inside the bounding box of their two or
            # more neighbours, so only the placed tile can widen the area.
            if x < self._minx:
                self._minx = x
            elif x > self._maxx:
                self._maxx = x
            if y < self._miny:
                self._miny = y
            elif y > self._maxy:
                self._maxy = y
        if self._limit and (self._maxx - self._minx >= self._limit
                            or self._maxy - self._miny >= self._limit):
            self._minx, self._maxx, self._miny, self._maxy = old
            for r in placed:
                del self._b[r]
            return "bounds"
        self._hist.append(_Record(placed, old, (self.winner, self.reason), text))
        mover = len(self.moves) & 1  # 0 white, 1 black
        self.moves.append(text)
        winner, reason = self._wins(placed, mover)
        if winner is not None:
            self.winner, self.reason = winner, reason
        elif draws and self._draws and not self._has_legal():
            self.reason = "draw"
        return placed

    def play(self, move) -> Step:
        """Play one move (notation text or :class:`Move`) for the side to move.

        Returns
        -------
        Step

        Raises
        ------
        Illegal
            The game is then exactly as it was before the call.
        """
        text, p, m = self._check(move)
        placed = self._apply(p, m, text)
        if isinstance(placed, str):
            if placed == "three-tracks":
                raise Illegal("three-tracks", f"{text} forces tiles until an empty space is entered "
                              f"by three or more tracks of one colour, so the whole move is illegal.",
                              text)
            raise Illegal("bounds", f"{text} would make the playing area larger than "
                          f"{self._limit}x{self._limit}.", text)
        return Step(text, len(placed), (self.width, self.height), self.winner, self.reason)

    def undo(self) -> None:
        """Take back the last move (with its forced tiles).

        Raises
        ------
        IndexError
            When no move has been played.
        """
        if not self._hist:
            raise IndexError("no move to undo")
        rec = self._hist.pop()
        b = self._b
        for r in rec.placed:
            del b[r]
        self._minx, self._maxx, self._miny, self._maxy = rec.bounds
        self.winner, self.reason = rec.result
        self.moves.pop()

    # ------------------------------------------------------------ wins

    def _wins(self, placed, mover):
        """(winner, reason) after a move that placed ``placed`` by ``mover`` (0 white, 1 black)."""
        loop, line = self._achievements(placed)
        for c in (mover, 1 - mover):
            if loop[c]:
                return ("white", "black")[c], "loop"
            if line[c]:
                return ("white", "black")[c], "line"
        return None, None

    def _achievements(self, placed):
        """Loops and lines through the tiles ``placed``.

        Returns ``(loop, line)``, each a two-element list indexed by colour
        (0 white, 1 black).  Lines are not looked for in Loop Trax or while the
        area is under 8 columns and under 8 rows.
        """
        b = self._b
        loop = [False, False]
        line = [False, False]
        lines_possible = not self._loops_only and (
            self._maxx - self._minx >= 7 or self._maxy - self._miny >= 7)
        seen = set()
        for p0 in placed:
            for c in (0, 1):
                key = p0 * 2 + c
                if key in seen:
                    continue
                seen.add(key)
                ends, tiles = trace(b, p0, c)
                for q in tiles:
                    seen.add(q * 2 + c)
                if ends is None:
                    loop[c] = True
                elif lines_possible and not line[c]:
                    (pa, da), (pb, db) = ends
                    if self._is_line(pa, da, pb, db) or self._is_line(pb, db, pa, da):
                        line[c] = True
        return loop, line

    def _is_line(self, pa, da, pb, db):
        """True when an open path ending at (pa leaving by da) and (pb by db)
        joins the outermost W and E (or N and S) edges across >= 8 columns (rows)."""
        if da == W and db == E:
            return ((pa & _XMASK) == self._minx and (pb & _XMASK) == self._maxx
                    and self._maxx - self._minx >= 7)
        if da == N and db == S:
            return ((pa >> _SHIFT) == self._miny and (pb >> _SHIFT) == self._maxy
                    and self._maxy - self._miny >= 7)
        return False

    # ------------------------------------------------------------ move generation

    def _frontier(self):
        """Every empty space next to a tile: {p: (white sides, black sides)}."""
        b = self._b
        entries = self._entries
        spaces = {}
        for p in b:
            for q in (p - STRIDE, p + 1, p + STRIDE, p - 1):
                if q not in b and q not in spaces:
                    spaces[q] = entries(q)
        return spaces

    def _candidates(self):
        """Yield every legal placement ``(p, shape, mask)`` of the side to move.

        Placements that force no tile are recognised without touching the
        board: a tile forces a neighbour only when that empty neighbour is
        already entered by track of the colour the tile sends into it.
        Others are tried with :meth:`_propagate` and taken back.
        """
        b = self._b
        if self.reason is not None:
            return
        if not b:
            yield ORIGIN * STRIDE + ORIGIN, "+", TILE_MASKS["+"][0]
            yield ORIGIN * STRIDE + ORIGIN, "/", TILE_MASKS["/"][0]
            return
        spaces = self._frontier()
        limit = self._limit
        if limit:
            lo_x, hi_x = self._maxx - limit + 1, self._minx + limit - 1
            lo_y, hi_y = self._maxy - limit + 1, self._miny + limit - 1
        propagate = self._propagate
        get = spaces.get
        for q, (w, k) in spaces.items():
            if limit:
                x = q & _XMASK
                y = q >> _SHIFT
                if not (lo_x <= x <= hi_x and lo_y <= y <= hi_y):
                    continue
            fits = _FIT[w][k]
            if not fits:
                continue
            # sides of q whose empty neighbour is already entered by white / black
            dw = dk = 0
            for d in (0, 1, 2, 3):
                e = get(q + _DELTA[d])
                if e is not None:
                    if e[0]:
                        dw |= 1 << d
                    if e[1]:
                        dk |= 1 << d
            for t, m in fits:
                if (m & dw) or (~m & dk):
                    placed = propagate(q, m)
                    if placed is None:
                        continue
                    for r in placed:
                        del b[r]
                yield q, t, m

    def _outcomes(self, kinds=False):
        """Yield ``(p, shape, mask, wins)`` for every legal placement, where
        ``wins[c]`` tells whether the placement completes a loop or line of
        colour ``c`` (0 white, 1 black); with ``kinds``, ``wins`` is
        ``(loop, line)`` instead, each indexed by colour.

        A placement that forces no tile cannot close a loop (its space is
        entered by at most one track of each colour) and can complete a line
        only through its own free edge on the outermost column or row, so
        only those placements and the ones with forced tiles are traced.
        """
        b = self._b
        loops_only = self._loops_only
        nothing = ((False, False), (False, False)) if kinds else (False, False)
        for q, t, m in self._candidates():
            x = q & _XMASK
            y = q >> _SHIFT
            old = (self._minx, self._maxx, self._miny, self._maxy)
            if not b:
                yield q, t, m, nothing
                continue
            minx, maxx, miny, maxy = old
            if x < minx:
                minx = x
            elif x > maxx:
                maxx = x
            if y < miny:
                miny = y
            elif y > maxy:
                maxy = y
            w, k = self._entries(q)
            forced = False
            for d in (0, 1, 2, 3):
                r = q + _DELTA[d]
                if r in b:
                    continue
                ew, ek = self._entries(r)
                if (m >> d & 1 and ew) or (not m >> d & 1 and ek):
                    forced = True
                    break
            if not forced:
                if loops_only:
                    yield q, t, m, nothing
                    continue
                wide = maxx - minx >= 7
                tall = maxy - miny >= 7
                hit = [False, False]
                for c, cm in ((0, m), (1, 15 ^ m)):
                    free = cm & ~(w if c == 0 else k)
                    if ((wide and ((x == minx and free & 8) or (x == maxx and free & 2)))
                            or (tall and ((y == miny and free & 1) or (y == maxy and free & 4)))):
                        hit[c] = True
                if not (hit[0] or hit[1]):
                    yield q, t, m, nothing
                    continue
                b[q] = m
                placed = [q]
            else:
                placed = self._propagate(q, m)
            self._minx, self._maxx, self._miny, self._maxy = minx, maxx, miny, maxy
            loop, line = self._achievements(placed)
            self._minx, self._maxx, self._miny, self._maxy = old
            for r in placed:
                del b[r]
            if kinds:
                yield q, t, m, (tuple(loop), tuple(line))
            else:
                yield q, t, m, (loop[0] or line[0], loop[1] or line[1])

    def winning_moves(self, colour: str | None = None) -> list:
        """The legal moves that would complete a loop or line of ``colour``.

        Parameters
        ----------
        colour : {"white", "black"} or None
            Default: the side to move, for whom these moves win the game.
            For the other colour they are the opponent's threats (were it the
            opponent's turn); played by the side to move, such a move loses
            unless it also completes the mover's own loop or line.
        """
        c = _COLOUR_INDEX[colour or self.to_move]
        rel = self._rel
        out = []
        for q, t, _, wins in self._outcomes():
            if wins[c]:
                col, row = rel(q)
                out.append(Move(col, row, t))
        out.sort(key=lambda mv: (mv.row, mv.col, _TILE_ORDER[mv.tile]))
        return out

    def threats(self, colour: str | None = None) -> tuple:
        """``(loops, lines)``: how many legal placements would complete a loop of
        ``colour`` (default: the side to move), and how many a line; a
        placement that completes both counts in each.  For the side not to
        move these are its threats, as in :meth:`winning_moves`."""
        c = _COLOUR_INDEX[colour or self.to_move]
        loops = lines = 0
        for _, _, _, (loop, line) in self._outcomes(kinds=True):
            loops += loop[c]
            lines += line[c]
        return loops, lines

    def has_winning_move(self, colour: str | None = None) -> bool:
        """``bool(self.winning_moves(colour))``, stopping at the first one."""
        c = _COLOUR_INDEX[colour or self.to_move]
        for _, _, _, wins in self._outcomes():
            if wins[c]:
                return True
        return False

    def _has_legal(self):
        for _ in self._candidates():
            return True
        return False

    def _count_legal(self):
        n = 0
        for _ in self._candidates():
            n += 1
        return n

    def legal_moves(self) -> list:
        """Every legal move of the side to move, one per (space, tile) placement.

        Sorted by row, column and tile (``+``, ``/``, ``\\``); empty when the
        game is over.
        """
        rel = self._rel
        out = []
        for q, t, _ in self._candidates():
            c, r = rel(q)
            out.append(Move(c, r, t))
        out.sort(key=lambda mv: (mv.row, mv.col, _TILE_ORDER[mv.tile]))
        return out

    def legal_count(self) -> int:
        """``len(self.legal_moves())``, faster."""
        return self._count_legal()

    def perft(self, depth: int) -> int:
        """Number of legal move sequences of length ``depth`` from here.

        A finished game (win or draw) has no moves.  The last ply is counted
        without being played.
        """
        if depth <= 0:
            return 1
        if self.reason is not None:
            return 0
        if depth == 1:
            return self._count_legal()
        total = 0
        moves = list(self._candidates())
        undo = self.undo
        apply = self._apply
        for q, t, m in moves:
            apply(q, m, "", draws=False)
            if self.reason is None:
                total += self.perft(depth - 1)
            undo()
        return total


def perft(depth: int, variant: str = "trax") -> int:
    """perft from the start position of ``variant``."""
    return Game(variant).perft(depth)
