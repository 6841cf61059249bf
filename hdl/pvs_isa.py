"""The search sequencer's instruction set: one source for the hardware
(:mod:`traxfpga.hdl.pvs`), its program (:mod:`traxfpga.hdl.pvs_program`) and the software
twin that runs the same program (:mod:`traxfpga.host.reference.pvs`).  docs/player.md ("The
search sequencer") describes the machine and the program.

The machine has an accumulator ``acc`` (16 bits, signed), a level ``lv``, a scan register
(``col``, ``row``, ``tile``), the area's width and height from the engine's last result,
compare flags, and a **frame** of 16 registers of 16 bits for every level, in one block RAM.
An instruction names a frame register by its operand (:data:`OPERAND_FIELDS`): its number and whose frame
(this level's, the child's, level 0's (the globals), or the last level's (the list)).

Every instruction is a guarded action: ``if cond xor neg: do op`` (a jump goes to ``x``),
else go on with the next one.
"""

import enum

__all__ = ["Op", "ScanMode", "PASSED_OVER", "LATCH", "LIST_ENTRIES", "WINDOW", "Cond", "Rel", "OPERAND_FIELDS", "INSN_FIELDS", "INSN_BITS", "MOVE_FIELDS",
           "field_width", "field_offsets", "FRAME_REGS",
           "LEVELS", "WORD_BITS", "KEY_WORDS", "MAX_CAPACITY", "MAX_CORES", "NODE_BITS", "MAX_NODE_LIMIT", "WIN", "INF", "LEAF_WIN", "LEAF_CLAMP",
           "ATT_PENALTY", "NOISE_MAX", "noise", "pack_move", "unpack_move", "leaf_value",
           "term_value", "to_signed", "Asm"]

WORD_BITS = 16          # acc and frame registers
KEY_WORDS = 2           # the key's low words that KEY tests (the opening book's keys)
FRAME_REGS = 16         # registers a level
LEVELS = 16             # frames: level 0 (globals), the root at 1, children below

#: Values, for the side to move.  A finished game: ``WIN - lv`` for the winner (a nearer
#: win is worth more), ``-(WIN - lv)`` for the loser, 0 for a draw.  ``INF`` bounds every
#: value (so that negating it stays in range).
WIN = 30000
INF = 32000
#: A leaf where the side to move has a loop attack (it completes the loop next move), or
#: where the opponent has two (only one can be stopped).
LEAF_WIN = 20000
LEAF_CLAMP = 15000      # other leaves: the potential difference, clamped to this
ATT_PENALTY = 6         # ... less this much for each of the opponent's attack ends
NOISE_MAX = 7           # a leaf's noise: 0 .. 7 (noise())
assert NOISE_MAX & (NOISE_MAX + 1) == 0     # the low bits of the LFSR, in hardware


class Op(enum.IntEnum):
    JMP = 0         # go to x
    LDI = 1         # acc = x
    LD = 2          # acc = F[a]
    ST = 3          # F[a] = acc
    TTGET = 4       # the transposition table's entry for this position, a node of kind x
                    # (tt_spec.OR, AND) and depth F[a]: a win known, GT; a failure known,
                    # LT; else EQ
    ADDI = 5        # acc += x
    NEG = 6         # acc = -acc
    CMP = 7         # flags = compare(acc, F[a]), signed
    CMPI = 8        # flags = compare(acc, x)
    SCAN0 = 9       # col = row = -1, tile = +: the first placement of the scan; x, its
                    # ScanMode (RECORD, SCOPED: docs/player.md, "Scoped scans")
    NEXT = 10       # the next placement in scan order (the square's next tile, or, after
                    # a refusal for the square or the last tile, the next square)
    SAVE = 11       # F[a] = the scan register (MoveWord)
    REST = 12       # the scan register = F[a]; the scan goes on as ScanMode.PLAIN
    PLACE = 13      # engine PLACE of the scan register; flags OK, ENDED, the square's
                    # refusal; counts a node when legal
    UNDO = 14       # engine UNDO
    EVAL = 15       # engine EVAL; acc = leaf_value for the side to move, plus noise from
                    # the LFSR, which then steps
    TERM = 16       # acc = term_value of the last PLACE, for its mover
    PROBE = 17      # engine PLACE out of range: the area, whether the game is over (OVER)
                    # or not begun (EMPTY)
    UP = 18         # lv += 1; x = LATCH: the last placement's scope kept, for the scoped
                    # scan of the level it enters
    DOWN = 19       # lv -= 1
    ARM = 20        # from now on OUT may hold (the first iteration always completes)
    ANSWER = 21     # the answer = F[a] (a MoveWord), found
    DEPTH = 22      # the depth output = acc
    VALUE = 23      # the value output = acc
    FINISH = 24     # the search is done: raise done, wait for the next request
    JA = 25         # go to acc (a return address a caller left in its frame)
    DEAL = 26       # many cores: the root scan's legal move is dealt to the next core in
                    # turn (the turn restarts at a root SCAN0); MINE: to this one
    SEEK = 27       # engine SEEK from the scan register: the first placement from it on
                    # in scan order that its square's word does not refuse, PLACEd; the
                    # scan register follows; flags as PLACE (the scan ran out: refused
                    # with the register past the last column, so NEXT sets DONE)
    USEEK = 28      # engine UNDO_SEEK: UNDO, then SEEK from the scan register's next
                    # placement (NEXT after a legal one, in the area as restored); as SEEK
    HUNT = 29       # SEEK hunting (the engine's `hunt`): a legal placement that does not
                    # end the game is taken back (a node each) and the scan goes on; flags
                    # as SEEK (in 8x8, SEEK)
    UHUNT = 30      # USEEK hunting: UNDO, then HUNT from the scan register's next placement
    TTPUT = 31      # store the verdict acc[0] (a win) of a node of kind x and depth F[a]


class ScanMode(enum.IntEnum):
    """How a scan (``SCAN0``'s x) goes on: what its HUNT, UHUNT and NEXT do."""
    PLAIN = 0       # every placement in scan order
    RECORD = 1      # as PLAIN, and each placement that places tiles (legal, or refused by
                    # its forced tiles) is listed for this level, with its tiles' extent
                    # and whether it ended the game (at most LIST_ENTRIES, else no list)
    SCOPED = 2      # the replies in scope of the move latched (UP's LATCH) in the parent
                    # level's list: first every placement in the window (the move's tiles'
                    # extent widened by WINDOW), then the parent's listed placements outside
                    # it that the scope keeps; PLAIN without a list or a latched move


#: The refusals a scan passes over (the reference engine's codes), found from the square's
#: word before anything is placed: the engine's SEEK goes on after them, as a scoped scan's
#: walk of its list does, in the hardware and in the twin.
PASSED_OVER = ("occupied", "not-adjacent", "mismatch", "bounds")
#: UP's x: latch the last placement's scope (the move the level entered answers).
LATCH = 1
#: A level's list of placements (ScanMode.RECORD): more, and the level has none.
LIST_ENTRIES = 128
#: The scoped scan's window: the squares within this many of the latched move's tiles'
#: extent (host/reference/scope.py argues the rule).
WINDOW = 2


class Cond(enum.IntEnum):
    ALWAYS = 0
    GT = 1          # acc > the operand of the last compare
    EQ = 2          # acc == ...
    LT = 3          # acc < ...
    OK = 4          # the last PLACE was legal
    ENDED = 5       # ... and ended the game (a win, a loss or a draw)
    DONE = 6        # the last NEXT took the scan past its last placement (col > width)
    ROOT = 7        # lv == 1
    OUT = 8         # armed, and the cycle budget or the node limit is spent
    ZERO = 9        # acc == 0
    OVER = 10       # the probe found the game over
    EMPTY = 11      # the probe found the board empty (the game's first move)
    WON = 12        # the last PLACE was legal and won for its mover
    LOST = 13       # ... and lost for its mover (it completed only the opponent's)
    MINE = 14       # the last DEAL dealt the move to this core
    KEY = 15        # acc as it was before the last instruction equals the position key's
                    # word a.reg (0 .. KEY_WORDS - 1) (with the table's key: the opening
                    # book's test; the hardware compares a registered acc)


class Rel(enum.IntEnum):
    """Whose frame an operand names."""
    SELF = 0
    CHILD = 1       # lv + 1
    LIST = 2        # level LEVELS - 1, which no search reaches
    GLOBAL = 3      # level 0


#: The fields of an instruction's operand, of an instruction and of a placement in a frame
#: register (:data:`MOVE_FIELDS`), from bit 0 up: one source for the assembler here and the
#: hardware's layouts (:mod:`.pvs_layout`), which are built from them.
OPERAND_FIELDS = (("reg", (FRAME_REGS - 1).bit_length()), ("rel", 2))
INSN_FIELDS = (
    ("x",    WORD_BITS),    # the immediate, or the jump target
    ("a",    OPERAND_FIELDS),
    ("op",   5),
    ("cond", 4),
    ("neg",  1),
)
#: A placement in a frame register: notation coordinates plus one (column -1, ``@``, is 0)
#: in 7 bits each, so the area may be 126 squares wide: a capacity of up to 128.  ``tile``
#: numbers the tiles as :data:`~traxfpga.hdl.tile_chars.TILE_CHARS`.
MOVE_FIELDS = (("tile", 2), ("row", 7), ("col", 7))
MAX_CAPACITY = 128
#: The most search cores a device may have, each a sequencer searching the root moves dealt
#: to it (``DEAL``).
MAX_CORES = 64
#: The width of a search's node limit and node count (``SearchLimits``, ``SearchReport``),
#: and so the largest budget in legal placements a search takes.
NODE_BITS = 32
MAX_NODE_LIMIT = (1 << NODE_BITS) - 1


def field_width(fields) -> int:
    """The width of a field table (a nested table's is its fields' sum)."""
    return sum(w if isinstance(w, int) else field_width(w) for _, w in fields)


def field_offsets(fields, base=0) -> dict:
    """``name -> (offset, width)`` of a field table, nested names joined by ``.``."""
    out = {}
    for name, w in fields:
        if isinstance(w, int):
            out[name] = (base, w)
        else:
            out.update({f"{name}.{k}": v for k, v in field_offsets(w, base).items()})
            w = field_width(w)
        base += w
    return out


INSN_BITS = field_width(INSN_FIELDS)
assert field_width(MOVE_FIELDS) == WORD_BITS


def to_signed(v: int, bits: int = WORD_BITS) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def pack_move(col: int, row: int, tile: int) -> int:
    assert -1 <= col < MAX_CAPACITY - 1 and -1 <= row < MAX_CAPACITY - 1, (col, row)
    return tile | (row + 1) << 2 | (col + 1) << 9


def unpack_move(word: int):
    return (word >> 9 & 0x7F) - 1, (word >> 2 & 0x7F) - 1, word & 3


def leaf_value(pot, att, stm: int, lfsr: int = 0) -> int:
    """A quiet position's value for the side to move ``stm`` (0 white, 1 black), from the
    engine's ``EVAL`` (``pot``, ``att``: per colour), plus :func:`noise` of ``lfsr``."""
    s, o = stm, 1 - stm
    if att[s]:
        v = LEAF_WIN
    elif att[o] >= 4:
        v = -LEAF_WIN
    else:
        v = max(-LEAF_CLAMP, min(LEAF_CLAMP, pot[s] - pot[o] - ATT_PENALTY * att[o]))
    return v + noise(lfsr)


def noise(lfsr: int) -> int:
    """The noise a leaf gets from the LFSR's value (its low bits: 0 .. :data:`NOISE_MAX`),
    so that near-equal moves vary with the search's seed."""
    return lfsr & NOISE_MAX


def term_value(mover_won: bool, mover_lost: bool, lv: int) -> int:
    """A finished game's value for the player who just moved, at level ``lv``."""
    if mover_won:
        return WIN - lv
    if mover_lost:
        return -(WIN - lv)
    return 0


class Asm:
    """Assembles a program: ``i(op, a=(reg, rel), x=..., cond=..., neg=...)``; a jump's ``x``
    is a label."""

    def __init__(self):
        self.code = []
        self.labels = {}

    def label(self, name):
        assert name not in self.labels, name
        self.labels[name] = len(self.code)

    def i(self, op, a=(0, Rel.SELF), x=0, cond=Cond.ALWAYS, neg=False):
        # The table's queries act regardless of the guard (a shorter path to the table).
        assert op not in (Op.TTGET, Op.TTPUT) or (cond == Cond.ALWAYS and not neg), \
            f"{op.name} must be unconditional"
        reg, rel = a if isinstance(a, tuple) else (a, Rel.SELF)
        self.code.append(dict(op=op, reg=reg, rel=rel, x=x, cond=cond, neg=neg))

    def jmp(self, to, cond=Cond.ALWAYS, neg=False):
        self.i(Op.JMP, x=to, cond=cond, neg=neg)

    def words(self):
        """The program as a list of dicts of integer fields (``x`` resolved)."""
        out = []
        for ins in self.code:
            x = ins["x"]
            if isinstance(x, str):
                x = self.labels[x]
            if not -(1 << 15) <= x < 1 << WORD_BITS:
                raise ValueError(f"{ins['op'].name}: {x} does not fit 16 bits")
            out.append(dict(ins, x=x & 0xFFFF))
        return out

    def assemble(self):
        """The program as integers, packed by :data:`INSN_FIELDS` (the hardware's ``Insn``)."""
        words = []
        for f in self.words():
            fields = {"x": f["x"], "a.reg": f["reg"], "a.rel": int(f["rel"]),
                      "op": int(f["op"]), "cond": int(f["cond"]), "neg": int(f["neg"])}
            w = 0
            for name, v in fields.items():
                offset, width = _INSN_OFFSETS[name]
                assert 0 <= v < 1 << width, (name, v)
                w |= v << offset
            words.append(w)
        return words


_INSN_OFFSETS = field_offsets(INSN_FIELDS)
