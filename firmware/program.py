"""The serial protocol as microcode for the protocol sequencer.

``docs/protocol.md`` describes the protocol; this is its implementation, assembled with
:class:`~traxfpga.firmware.isa.Asm` into the sequencer's block RAM.  Labels read as states:

* ``idle``: wait for a line; bad lines go to their error, empty lines are dropped;
* ``dash``, ``command``: ``-X`` and ``:word`` dispatch on the first letter, then the rest of
  the word is checked character by character;
* ``move``: the notation grammar, accumulating the column and row for the engine;
* ``play``, ``contest_move``, ``board``, ``status``, ``reset``: the engine commands and
  their answers, printed while the engine still offers its result;
* the board's own move: :func:`traxfpga.firmware.player.board_move` (the search sequencer);
* ``error``: ``! <name>``; ``release``: done with the line, back to ``idle``.
"""

from ..hdl.engine import Op as EngineOp
from ..hdl.tiles import Reason, Variant, Winner
from . import text
from .isa import Asm, Cond, Idx, Num, Op, Src
from .player import board_move

__all__ = ["program", "IDLE"]

#: The label the sequencer waits at for a line (the "ready" LED).
IDLE = "idle"

# flags
F_CONTEST = 1       # the move being read is an opponent's contest move (else :play)
F_MOVE_CMD = 2      # the board's move answers :move (result line), else a contest line


def _word(a, rest, fail):
    """Match the rest of a keyword, then the end of the word; else go to ``fail``."""
    for ch in rest:
        a.goto(fail, cond=Cond.EQ, imm=ch, neg=True, inc_else=True)
    a.goto(fail, cond=Cond.WORD_END, neg=True)


def _names(a, table, names, size):
    """A CALL table of name printers (each prints its name and returns)."""
    labels = [f"{table}_{i}" for i in range(len(names))]
    a.table(table, labels, size)
    for label, name in zip(labels, names):
        a.label(label)
        a.emit(name)
        a.i(Op.RET)


def _result_fields(a):
    """`` <placed> <width> <height> <ply> <winner> <reason>`` from the offered result."""
    for num in (Num.PLACED, Num.WIDTH, Num.HEIGHT, Num.PLY):
        a.emit(" ")
        a.i(Op.NUM, imm=num)
    a.emit(" ")
    a.i(Op.CALL, imm=Idx.WINNER, to="colour_names")
    a.emit(" ")
    a.i(Op.CALL, imm=Idx.REASON, to="reason_names")


def _move(a):
    """The move in ``col``/``acc``/``tile`` in notation."""
    a.i(Op.NUM, imm=Num.COL)
    a.i(Op.NUM, imm=Num.ROW)
    a.i(Op.EMIT, imm=Src.TILE)


def program(*, player_id="trax-fpga", capacity=128, perft=True):
    """The assembled protocol (an :class:`~traxfpga.firmware.isa.Asm`); ``perft``: the device
    has the perft unit (else ``:perft`` answers ``! no-perft``)."""
    text.check_player_id(player_id)
    a = Asm()
    _line(a)
    _dash(a, player_id)
    _commands(a, capacity, perft)
    _board_and_status(a)
    _reset(a)
    _move_line(a)
    _own_move(a)
    _errors(a)
    _name_tables(a)
    return a


def _line(a):
    """A line: what its first character makes it, and the rest of a line, which may only be spaces (``trailing``, a subroutine)."""
    a.label(IDLE)
    a.wait(Cond.LINE)
    a.i(Op.JUMP, cond=Cond.LINE_BAD, imm=Idx.LINE_ERR, to="line_errors")
    a.i(Op.SET_ERR, imm=0)                              # the error LED goes out
    a.goto("release", cond=Cond.AT_END)                 # an empty line
    a.goto("dash", cond=Cond.EQ, imm="-", inc=True)
    a.goto("command", cond=Cond.EQ, imm=":", inc=True)
    a.i(Op.SET_FLAGS, imm=F_CONTEST, to="move")

    a.label("release")
    a.i(Op.RELEASE, to=IDLE)

    # Only spaces may follow (a subroutine: returns at the end of the line).
    a.label("trailing")
    a.i(Op.RET, cond=Cond.AT_END)
    a.goto("trailing", cond=Cond.EQ, imm=" ", inc=True)
    a.goto("syntax")


def _dash(a, player_id):
    """``-T``, and ``-W``, ``-B`` and ``-R``, which start a game."""
    a.label("dash")
    a.goto("dash_t", cond=Cond.EQ, imm="T", inc=True)
    a.goto("dash_w", cond=Cond.EQ, imm="W", inc=True)
    a.goto("dash_b", cond=Cond.EQ, imm="B", inc=True)
    a.goto("dash_b", cond=Cond.EQ, imm="R", inc=True)
    a.goto("unknown")

    a.label("dash_t")
    _word(a, "", "unknown")
    a.i(Op.CALL, to="trailing")
    a.emit(player_id + "\n")
    a.goto("release")

    for colour, role in (("w", 1), ("b", 2)):
        a.label(f"dash_{colour}")
        _word(a, "", "unknown")
        a.i(Op.CALL, to="trailing")
        a.i(Op.SET_ROLE, imm=role)
        a.i(Op.KEEP_VAR)
        a.i(Op.ENGINE, imm=EngineOp.RESET.value)
        a.wait(Cond.RES)
        a.i(Op.ACK)
        a.i(Op.COMMIT_VAR)
        if colour == "w":
            a.i(Op.SET_FLAGS, imm=0, to="think")        # the board opens
        else:
            a.goto("release")


def _commands(a, capacity, perft):
    """The ``:commands``: the dispatch on the first letter, and ``:play``, ``:undo``, ``:move``, ``:perft`` and ``:version``."""
    a.label("command")
    for word in text.COMMANDS:
        if word != "perft":                             # p: play, which tells perft apart
            a.goto(f"cmd_{word}", cond=Cond.EQ, imm=word[0], inc=True)
    a.goto("unknown")

    a.label("cmd_play")
    a.goto("cmd_perft", cond=Cond.EQ, imm="e", inc=True)
    _word(a, "lay", "unknown")
    a.label("play_args")
    a.goto("play_args", cond=Cond.EQ, imm=" ", inc=True)
    a.i(Op.SET_FLAGS, imm=0, to="move")

    a.label("cmd_undo")
    _word(a, "ndo", "unknown")
    a.i(Op.CALL, to="trailing")
    a.i(Op.SET_FLAGS, imm=0)
    a.i(Op.ENGINE, imm=EngineOp.UNDO.value, to="applied")

    a.label("cmd_move")
    _word(a, "ove", "unknown")
    a.i(Op.CALL, to="trailing")
    a.i(Op.SET_FLAGS, imm=F_MOVE_CMD, to="think")

    # :perft D: a number like a row's (no leading zeros), 0 .. MAX_PERFT_DEPTH
    a.label("cmd_perft")
    _word(a, "rft", "unknown")
    if perft:
        a.label("perft_args")
        a.goto("perft_args", cond=Cond.EQ, imm=" ", inc=True)
        a.i(Op.ACC_M1, cond=Cond.EQ, imm="0", inc=True, to="perft_end")     # acc = D - 1
        a.i(Op.COL_DIGIT, cond=Cond.NONZERO, inc=True, to="perft_digits")
        a.goto("syntax")
        a.label("perft_digits")
        a.i(Op.ACC_MUL, cond=Cond.DIGIT, imm=0, inc=True, to="perft_digits")
        a.label("perft_end")
        a.goto("syntax", cond=Cond.WORD_END, neg=True)
        a.i(Op.CALL, to="trailing")
        a.i(Op.SET_ERR, cond=Cond.PERFT_DEPTH, neg=True, imm=text.E_RANGE, to="error")
        a.i(Op.PERFT)
        a.emit("= ")
        a.i(Op.NUM, imm=Num.PERFT)
        a.emit("\n")
        a.goto("release")
    else:
        a.i(Op.SET_ERR, imm=text.E_NOPERFT, to="error")

    a.label("cmd_version")
    _word(a, "ersion", "unknown")
    a.i(Op.CALL, to="trailing")
    a.emit(f"= trax-fpga protocol {text.PROTOCOL_VERSION} capacity {capacity}\n")
    a.goto("release")


def _board_and_status(a):
    """``:board`` and ``:status``: a ``DUMP`` of the squares, printed or dropped."""
    a.label("cmd_board")
    _word(a, "oard", "unknown")
    a.i(Op.CALL, to="trailing")
    a.i(Op.ENGINE, imm=EngineOp.DUMP.value)
    a.label("board_square")
    a.goto("board_end", cond=Cond.RES)
    a.goto("board_square", cond=Cond.CELL, neg=True)
    a.i(Op.EMIT, cond=Cond.CELL_OCC, imm=Src.CELL1, to="board_occupied")
    a.i(Op.EMIT, imm=".", to="board_sep")
    a.label("board_occupied")
    a.i(Op.EMIT, imm=Src.CELL2)
    a.label("board_sep")
    a.i(Op.EMIT, cond=Cond.CELL_EOL, imm="\n", to="board_next")
    a.emit(" ")
    a.label("board_next")
    a.i(Op.ACK_CELL, to="board_square")
    a.label("board_end")
    a.emit("= ok ")
    a.i(Op.NUM, imm=Num.WIDTH)
    a.emit(" ")
    a.i(Op.NUM, imm=Num.HEIGHT)
    a.emit("\n")
    a.i(Op.ACK, to="release")

    a.label("cmd_status")
    _word(a, "tatus", "unknown")
    a.i(Op.CALL, to="trailing")
    a.i(Op.ENGINE, imm=EngineOp.DUMP.value)            # squares dropped: just the numbers
    a.label("status_drain")
    a.i(Op.ACK_CELL, cond=Cond.CELL, to="status_drain")
    a.goto("status_drain", cond=Cond.RES, neg=True)
    a.emit("= ")
    a.i(Op.CALL, imm=Idx.VARIANT, to="variant_names")
    for num in (Num.WIDTH, Num.HEIGHT, Num.PLY):
        a.emit(" ")
        a.i(Op.NUM, imm=num)
    a.emit(" ")
    a.i(Op.CALL, imm=Idx.WINNER, to="colour_names")
    a.emit(" ")
    a.i(Op.CALL, imm=Idx.REASON, to="reason_names")
    a.emit(" ")
    a.i(Op.CALL, imm=Idx.ROLE, to="role_names")
    a.emit("\n")
    a.i(Op.ACK, to="release")


def _reset(a):
    """``:reset [VARIANT]``."""
    a.label("cmd_reset")
    _word(a, "eset", "unknown")
    a.label("reset_args")
    a.goto("reset_args", cond=Cond.EQ, imm=" ", inc=True)
    a.i(Op.KEEP_VAR, cond=Cond.AT_END, to="reset")
    for name in text.VARIANTS:
        a.goto(f"variant_{name}", cond=Cond.EQ, imm=name[0], inc=True)
    a.goto("syntax")
    for name in text.VARIANTS:
        a.label(f"variant_{name}")
        _word(a, name[1:], "syntax")
        a.i(Op.CALL, to="trailing")
        a.i(Op.SET_VAR, imm=text.VARIANTS.index(name), to="reset")
    assert [v.name.lower() for v in Variant] == ["trax", "eight", "looptrax"]
    a.label("reset")
    a.i(Op.SET_ROLE, imm=0)
    a.i(Op.ENGINE, imm=EngineOp.RESET.value)
    a.wait(Cond.RES)
    a.i(Op.ACK)
    a.i(Op.COMMIT_VAR)
    a.emit("= ")
    a.i(Op.CALL, imm=Idx.VARIANT, to="variant_names")
    a.emit("\n")
    a.goto("release")


def _move_line(a):
    """A move, ``<column><row><tile>``: parsed, then played for ``:play`` or as the opponent's in contest mode."""
    a.label("move")
    a.i(Op.ACC_M1, cond=Cond.EQ, imm="@", inc=True, to="move_row0")
    a.i(Op.ACC_LETTER, cond=Cond.LETTER, inc=True, to="move_col")
    a.goto("syntax")
    a.label("move_col")
    a.i(Op.ACC_MUL, cond=Cond.LETTER, imm=1, inc=True, to="move_col")
    a.i(Op.COL_M1, cond=Cond.EQ, imm="0", inc=True, to="move_tile")
    a.i(Op.COL_DIGIT, cond=Cond.NONZERO, inc=True, to="move_row")
    a.goto("syntax")
    a.label("move_row0")
    a.i(Op.COL_M1, cond=Cond.EQ, imm="0", inc=True, to="move_tile")
    a.i(Op.COL_DIGIT, cond=Cond.NONZERO, inc=True, to="move_row")
    a.goto("syntax")
    a.label("move_row")
    a.i(Op.ACC_MUL, cond=Cond.DIGIT, imm=0, inc=True, to="move_row")
    a.i(Op.TILE_C, cond=Cond.TILE, inc=True, to="move_end")
    a.goto("syntax")
    a.label("move_tile")
    a.i(Op.TILE_C, cond=Cond.TILE, inc=True, to="move_end")
    a.goto("syntax")
    a.label("move_end")
    a.goto("syntax", cond=Cond.WORD_END, neg=True)
    a.i(Op.CALL, to="trailing")
    a.goto("contest_move", cond=Cond.FLAG0)

    # :play
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.label("applied")                                  # :play and :undo
    a.wait(Cond.RES)
    a.i(Op.ERR_STATUS, cond=Cond.RES_OK, neg=True, to="error")
    a.label("result")
    a.emit("= ok")
    _result_fields(a)
    a.goto("result_move", cond=Cond.FLAG1)
    a.emit("\n")
    a.i(Op.ACK, to="release")
    a.label("result_move")                              # :move adds the move played
    a.emit(" ")
    _move(a)
    a.emit("\n")
    a.i(Op.ACK, to="release")

    # the opponent's move in contest mode
    a.label("contest_move")
    a.i(Op.SET_ERR, cond=Cond.TURN, neg=True, imm=text.E_TURN, to="error")
    a.i(Op.ENGINE, imm=EngineOp.PLACE.value)
    a.wait(Cond.RES)
    a.i(Op.ERR_STATUS, cond=Cond.RES_OK, neg=True, to="error")
    a.i(Op.ACK, cond=Cond.RES_ENDED, to="release")      # it ended the game: no answer
    a.i(Op.ACK, to="think")


def _own_move(a):
    """The board's own move, and its answer line."""
    board_move(a, entry="think", found="found", nomove="nomove")
    a.label("found")                                    # the engine still offers the result
    a.goto("result", cond=Cond.FLAG1)                   # :move
    _move(a)                                            # contest: the move alone
    a.emit("\n")
    a.i(Op.ACK, to="release")
    a.label("nomove")
    a.i(Op.SET_ERR, imm=text.E_NOMOVE, to="error")


def _errors(a):
    """Error lines, and the line errors the buffer reports."""
    a.label("unknown")
    a.i(Op.SET_ERR, imm=text.E_UNKNOWN, to="error")
    a.label("syntax")
    a.i(Op.SET_ERR, imm=text.E_SYNTAX, to="error")
    a.label("error")
    a.emit("! ")
    a.i(Op.CALL, imm=Idx.ERR, to="error_names")
    a.emit("\n")
    a.goto("release")

    errors = ["release", "line_overlong", "line_framing", "line_busy"]
    a.table("line_errors", errors, 4)
    for label, code in zip(errors[1:], (text.E_OVERLONG, text.E_FRAMING, text.E_BUSY)):
        a.label(label)
        a.i(Op.SET_ERR, imm=code, to="error")


def _name_tables(a):
    """The names the answers print, by index."""
    _names(a, "error_names", text.ERRORS, 32)
    # indexed by the engine's Winner and Reason values
    assert [w.name.lower() for w in Winner][1:] == list(text.COLOURS[1:])
    assert [r.name.lower() for r in Reason][1:] == list(text.REASONS[1:])
    _names(a, "colour_names", text.COLOURS, 4)
    a.table("role_names", ["colour_names_0", "colour_names_1", "colour_names_2"], 4)
    _names(a, "reason_names", text.REASONS, 4)
    _names(a, "variant_names", text.VARIANTS, 4)
