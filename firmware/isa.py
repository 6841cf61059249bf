"""The protocol sequencer's microcode: instruction word, operations, conditions, assembler.

Plain Python.  The sequencer (:mod:`traxfpga.firmware.protocol`) runs one instruction per
cycle from a block-RAM program; :mod:`traxfpga.firmware.program` writes the program with the
:class:`Asm` below.

Every instruction is a *guarded action*::

    if cond(imm) xor neg:   do op (waiting while its handshake is not complete),
                            advance the line pointer if inc, go to target
    else:                   advance the line pointer if inc_else, go to the next one

``target`` defaults to the next instruction, so ``op`` alone is a plain step.  The line
character ``c`` (``line[ptr]``) and every other condition are those of the cycle the
instruction runs in.  ``JUMP`` and ``CALL`` go to ``target | index`` where the index is a
small register chosen by ``imm`` (:class:`Idx`): the table of targets must be aligned.

Word layout, from bit 0: target (10), imm (8), op (5), cond (5), neg, inc, inc_else, think.
"""

import enum

__all__ = ["Op", "Cond", "Idx", "Num", "Src", "WORD_BITS", "PC_BITS", "IMM_BITS",
           "ENGINE_OP_BITS", "Asm", "encode", "decode"]

PC_BITS = 10
WORD_BITS = 32


class Op(enum.IntEnum):
    NOP = 0
    EMIT = 1        # send imm (a byte below 0x80) or a special byte (Src); waits for the UART
    NUM = 2         # print a number (Num in imm); waits until its last character is sent
    ENGINE = 3      # give the engine a command (engine Op in imm); waits until taken;
                    # always unconditional
    ACK = 4         # take the engine's result
    ACK_CELL = 5    # take the engine's square
    RELEASE = 6     # done with the line; always unconditional
    CALL = 7        # ret = next; go to target | index
    JUMP = 8        # go to target | index
    RET = 9         # go to ret
    ACC_LETTER = 10  # acc = c - 'A'
    ACC_M1 = 11     # acc = -1
    ACC_MUL = 12    # acc = acc * (26 if imm else 10) + c - 39, saturating
    COL_M1 = 13     # col = acc; acc = -1
    COL_DIGIT = 14  # col = acc; acc = c - '1'
    TILE_C = 15     # tile = the tile character c
    SET_ROLE = 16   # role = imm
    SET_VAR = 17    # new_variant = imm
    KEEP_VAR = 18   # new_variant = variant
    COMMIT_VAR = 19  # variant = new_variant
    SET_ERR = 20    # err = imm (the error LED is lit while err != 0)
    ERR_STATUS = 21  # err = the result's status; take the result
    SET_FLAGS = 22  # flags = imm
    SEARCH = 27     # run the player (hdl/pvs.py) and wait for its answer; then col,
                    # acc, tile = its move (FOUND tells whether there is one); always
                    # unconditional
    PERFT = 28      # count the leaves to depth acc + 1 with the perft unit (hdl/perft.py)
                    # and wait for the count (Num.PERFT); always unconditional


class Cond(enum.IntEnum):
    ALWAYS = 0
    EQ = 1          # c == imm
    AT_END = 2      # ptr == line length
    WORD_END = 3    # at the end, or c is a space
    LETTER = 4      # c in A..Z
    DIGIT = 5       # c in 0..9
    NONZERO = 6     # c in 1..9
    TILE = 7        # c is + / or \
    LINE = 8        # a line (or a bad line) is offered
    LINE_BAD = 9    # ... with an error
    RES = 10        # the engine offers a result
    # The conditions on the offered result or square are registered: valid from the second
    # cycle of the offer, that is after an instruction that waited for it.
    RES_OK = 11     # ... with status OK
    RES_ENDED = 12  # ... of a game that has ended (a winner, or an 8x8 draw)
    RES_OVER = 13   # ... with status GAME_OVER
    CELL = 17       # the engine offers a square
    CELL_OCC = 18   # ... holding a tile (registered)
    CELL_EOL = 19   # ... last of its row (registered)
    TURN = 20       # a contest move may be played: a colour is chosen and it is the
                    # opponent's turn (or the game has ended, for the engine to say so)
    FLAG0 = 21      # flags bit 0
    FLAG1 = 22      # flags bit 1
    FOUND = 23      # the player's last answer holds a move
    PERFT_DEPTH = 24  # acc + 1 is a depth the perft unit takes (acc < MAX_PERFT_DEPTH)


class Idx(enum.IntEnum):
    """Index registers for JUMP/CALL tables (in imm)."""
    NONE = 0
    ERR = 1         # err (5 bits)
    WINNER = 2      # the result's winner (2 bits)
    REASON = 3      # the result's reason (2 bits)
    VARIANT = 4     # variant (2 bits)
    ROLE = 5        # role (2 bits)
    LINE_ERR = 6    # the offered line's error (2 bits)


class Num(enum.IntEnum):
    """Number sources for NUM (in imm)."""
    PLACED = 0
    WIDTH = 1
    HEIGHT = 2
    PLY = 3
    COL = 4         # col, as column letters
    ROW = 5         # acc + 1, in decimal (the row's notation)
    PERFT = 6       # the perft unit's last count


class Src(enum.IntEnum):
    """Special bytes for EMIT (imm >= 0x80)."""
    CELL1 = 0x80    # the square's first white edge letter (N, E, S, W order)
    CELL2 = 0x81    # its second
    TILE = 0x82     # the tile character of `tile`


#: Bits of an engine opcode (the engine's ``Op``; the sequencer checks it).
ENGINE_OP_BITS = 3
#: The bits of ``imm`` each operation's hardware reads (8 for the others, and for the
#: condition ``EQ``): the assembler refuses an immediate that does not fit, rather than let
#: the hardware drop its high bits.
IMM_BITS = {Op.ENGINE: ENGINE_OP_BITS, Op.NUM: 3, Op.JUMP: 3, Op.CALL: 3, Op.ACC_MUL: 1,
            Op.SET_ROLE: 2, Op.SET_VAR: 2, Op.SET_ERR: 5, Op.SET_FLAGS: 2}

_FIELDS = (("target", PC_BITS), ("imm", 8), ("op", 5), ("cond", 5), ("neg", 1), ("inc", 1),
           ("inc_else", 1), ("think", 1))
assert sum(w for _, w in _FIELDS) <= WORD_BITS


def encode(**fields):
    word, shift = 0, 0
    for name, width in _FIELDS:
        value = int(fields.get(name, 0))
        assert 0 <= value < (1 << width), (name, value)
        word |= value << shift
        shift += width
    return word


def decode(word):
    out, shift = {}, 0
    for name, width in _FIELDS:
        out[name] = (word >> shift) & ((1 << width) - 1)
        shift += width
    return out


def field_slices():
    """name -> (start, stop) bit positions, for the hardware."""
    out, shift = {}, 0
    for name, width in _FIELDS:
        out[name] = (shift, shift + width)
        shift += width
    return out


class Asm:
    """Assembles a program.  Targets are label names (or None: the next instruction)."""

    def __init__(self):
        self.code = []              # dicts of fields, target as a label or None
        self.labels = {}
        self.think = False          # mark instructions as the player's (the thinking LED)

    @property
    def here(self):
        return len(self.code)

    def label(self, name, align=1):
        while self.here % align:
            self.i(Op.NOP, to=None)
        assert name not in self.labels, name
        self.labels[name] = self.here

    def i(self, op=Op.NOP, *, cond=Cond.ALWAYS, neg=False, imm=0, to=None, inc=False,
          inc_else=False):
        if isinstance(imm, str):
            assert len(imm) == 1
            imm = ord(imm)
        imm = int(imm)
        width = IMM_BITS.get(op, 8)
        if not 0 <= imm < 1 << width:
            raise ValueError(f"{op.name}: the immediate {imm} does not fit its {width}-bit field")
        if op in IMM_BITS and cond == Cond.EQ:
            raise ValueError(f"{op.name} reads imm, so it cannot also test c == imm")
        # ENGINE, RELEASE, SEARCH and PERFT act regardless of the guard (shorter paths to the
        # other modules).
        assert op not in (Op.ENGINE, Op.RELEASE, Op.SEARCH, Op.PERFT) or \
            (cond == Cond.ALWAYS and not neg), f"{op.name} must be unconditional"
        self.code.append(dict(op=op, cond=cond, neg=neg, imm=imm, target=to, inc=inc,
                              inc_else=inc_else, think=self.think))

    # -- shorthands ---------------------------------------------------------------------
    def goto(self, to, cond=Cond.ALWAYS, neg=False, imm=0, inc=False, inc_else=False):
        self.i(Op.NOP, cond=cond, neg=neg, imm=imm, to=to, inc=inc, inc_else=inc_else)

    def wait(self, cond):
        """Stay here until ``cond``."""
        name = f"_wait{self.here}"
        self.labels[name] = self.here
        self.goto(name, cond=cond, neg=True)

    def emit(self, text):
        for ch in text:
            self.i(Op.EMIT, imm=ch)

    def table(self, name, entries, size):
        """An aligned jump table: ``entries`` labels, padded to ``size`` with ``pad``."""
        self.label(name, align=size)
        for i in range(size):
            self.i(Op.NOP, to=entries[i] if i < len(entries) else entries[-1])

    def assemble(self, depth):
        """The program as a list of ``depth`` words."""
        if len(self.code) > depth:
            raise ValueError(f"the program has {len(self.code)} instructions, more than {depth}")
        words = []
        for pc, ins in enumerate(self.code):
            fields = dict(ins)
            target = fields.pop("target")
            fields["target"] = pc + 1 if target is None else self.labels[target]
            words.append(encode(**fields))
        return words + [0] * (depth - len(words))
