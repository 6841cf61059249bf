"""A deliberately naive, independent Trax rules engine used only to cross-check
the reference engine (traxfpga.host.reference.trax) in the property tests.

It shares no code with the reference engine and does everything the slow,
obvious way:

* the board is a dict {(x, y): white-edge mask} in absolute coordinates;
* the orientation of a tile is found by trying both and comparing every
  neighbouring edge;
* forced plays are filled *in layers*: scan every empty space next to a tile,
  fail on any space with three or more tracks of one colour, fill all spaces
  with a same-coloured pair at once, then check that every shared edge on the
  board joins equal colours (two forced tiles that disagree across their common
  edge would have produced a three-track space filled one at a time), repeat;
* wins are found by walking every path on the whole board.
"""

import re

NAMES = {"NE": 3, "NS": 5, "NW": 9, "ES": 6, "EW": 10, "SW": 12}
SHAPES = {"+": (5, 10), "/": (9, 6), "\\": (3, 12)}
STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}


class NaiveIllegal(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def colour_at(mask, d):
    return "w" if mask >> d & 1 else "b"


class NaiveGame:
    def __init__(self, variant="trax"):
        self.variant = variant
        self.board = {}
        self.moves = []
        self.winner = None
        self.reason = None

    # -- helpers
    def bbox(self, board=None):
        board = self.board if board is None else board
        xs = [x for x, _ in board]
        ys = [y for _, y in board]
        return min(xs), max(xs), min(ys), max(ys)

    def rows(self):
        if not self.board:
            return []
        x0, x1, y0, y1 = self.bbox()
        inv = {v: k for k, v in NAMES.items()}
        return [" ".join(inv[self.board[(x, y)]] if (x, y) in self.board else "."
                         for x in range(x0, x1 + 1)) for y in range(y0, y1 + 1)]

    @staticmethod
    def entering(board, x, y):
        """{side: colour} of tracks entering the empty space (x, y)."""
        out = {}
        for d, (dx, dy) in STEP.items():
            t = board.get((x + dx, y + dy))
            if t is not None:
                out[d] = colour_at(t, (d + 2) % 4)
        return out

    @staticmethod
    def consistent(board):
        for (x, y), t in board.items():
            for d, (dx, dy) in STEP.items():
                u = board.get((x + dx, y + dy))
                if u is not None and colour_at(t, d) != colour_at(u, (d + 2) % 4):
                    return False
        return True

    # -- a move
    def try_move(self, text):
        """The board after ``text`` (not applied) and the count placed, or NaiveIllegal."""
        m = re.fullmatch(r"(@|[A-Z]+)(0|[1-9][0-9]*)([+/\\])", text)
        if not m:
            raise NaiveIllegal("syntax")
        if self.winner or self.reason:
            raise NaiveIllegal("game-over")
        letters, digits, tile = m.groups()
        col = -1 if letters == "@" else \
            sum((ord(c) - 64) * 26 ** i for i, c in enumerate(reversed(letters))) - 1
        row = int(digits) - 1
        if not self.board:
            if (col, row) != (-1, -1) or tile == "\\":
                raise NaiveIllegal("first-move")
            return {(0, 0): SHAPES[tile][0]}, 1
        x0, x1, y0, y1 = self.bbox()
        if not (-1 <= col <= x1 - x0 + 1 and -1 <= row <= y1 - y0 + 1):
            raise NaiveIllegal("range")
        x, y = x0 + col, y0 + row
        if (x, y) in self.board:
            raise NaiveIllegal("occupied")
        ent = self.entering(self.board, x, y)
        if not ent:
            raise NaiveIllegal("not-adjacent")
        fits = [t for t in SHAPES[tile] if all(colour_at(t, d) == c for d, c in ent.items())]
        if not fits:
            raise NaiveIllegal("mismatch")
        board = dict(self.board)
        board[(x, y)] = fits[0]
        placed = 1
        while True:
            forced = {}
            cand = {(a + dx, b + dy) for (a, b) in board for dx, dy in STEP.values()}
            for (a, b) in sorted(cand):
                if (a, b) in board:
                    continue
                e = self.entering(board, a, b)
                whites = [d for d, c in e.items() if c == "w"]
                blacks = [d for d, c in e.items() if c == "b"]
                if len(whites) > 2 or len(blacks) > 2:
                    raise NaiveIllegal("three-tracks")
                if len(whites) == 2:
                    forced[(a, b)] = (1 << whites[0]) | (1 << whites[1])
                elif len(blacks) == 2:
                    forced[(a, b)] = 15 ^ ((1 << blacks[0]) | (1 << blacks[1]))
            if not forced:
                break
            board.update(forced)
            placed += len(forced)
            if not self.consistent(board):
                raise NaiveIllegal("three-tracks")
        if self.variant == "8x8":
            bx0, bx1, by0, by1 = self.bbox(board)
            if bx1 - bx0 >= 8 or by1 - by0 >= 8:
                raise NaiveIllegal("bounds")
        return board, placed

    def achievements(self, board):
        """{colour: (loop, line)} over every path on the board."""
        x0, x1, y0, y1 = self.bbox(board)
        res = {}
        for c in "wb":
            loop = line = False
            seen = set()
            for start, t in board.items():
                if start in seen:
                    continue
                sides = [d for d in range(4) if colour_at(t, d) == c]
                ends = []
                closed = False
                for d0 in sides:
                    (x, y), d = start, d0
                    while True:
                        seen.add((x, y))
                        nx, ny = x + STEP[d][0], y + STEP[d][1]
                        if (nx, ny) == start:
                            closed = True
                            break
                        u = board.get((nx, ny))
                        if u is None:
                            ends.append(((x, y), d))
                            break
                        entry = (d + 2) % 4
                        d = [s for s in range(4) if s != entry and colour_at(u, s) == c][0]
                        x, y = nx, ny
                    if closed:
                        break
                if closed:
                    loop = True
                    continue
                if self.variant == "looptrax":
                    continue
                (pa, da), (pb, db) = ends
                for (p, dp), (q, dq) in (((pa, da), (pb, db)), ((pb, db), (pa, da))):
                    if dp == 3 and dq == 1 and p[0] == x0 and q[0] == x1 and x1 - x0 + 1 >= 8:
                        line = True
                    if dp == 0 and dq == 2 and p[1] == y0 and q[1] == y1 and y1 - y0 + 1 >= 8:
                        line = True
            res[c] = (loop, line)
        return res

    def play(self, text):
        board, placed = self.try_move(text)
        mover = "w" if len(self.moves) % 2 == 0 else "b"
        other = "b" if mover == "w" else "w"
        self.board = board
        self.moves.append(text)
        ach = self.achievements(board)
        for c in (mover, other):
            loop, line = ach[c]
            if loop or line:
                self.winner = "white" if c == "w" else "black"
                self.reason = "loop" if loop else "line"
                return placed
        if self.variant == "8x8" and not self.legal_moves():
            self.reason = "draw"
        return placed

    def all_placements(self):
        if not self.board:
            return ["@0/", "@0+", "@0\\", "A1/"]
        x0, x1, y0, y1 = self.bbox()
        out = []
        for row in range(-1, y1 - y0 + 2):
            for col in range(-1, x1 - x0 + 2):
                letters = "@" if col == -1 else ""
                n = col + 1
                while n > 0:
                    n, r = divmod(n - 1, 26)
                    letters = chr(65 + r) + letters
                for tile in "+/\\":
                    out.append(f"{letters}{row + 1}{tile}")
        return out

    def legal_moves(self):
        legal = []
        for text in self.all_placements():
            try:
                self.try_move(text)
            except NaiveIllegal:
                continue
            legal.append(text)
        return legal
