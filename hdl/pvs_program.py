"""The search sequencer's program: principal variation search with iterative deepening,
run by the hardware (:mod:`traxfpga.hdl.pvs`) and by its twin
(:mod:`traxfpga.host.reference.pvs`).  docs/player.md ("The search sequencer") describes it.
"""

from .pvs_isa import INF, LEVELS, WIN, Asm, Cond, Op, Rel, pack_move
from .search_params import OPENING
from .tiles import SHAPE_CHARS

__all__ = ["program", "MAX_ITER", "F", "G"]

#: The deepest iteration, in plies (the root is level 1, so its leaves are at MAX_ITER + 1).
MAX_ITER = 12


class F:
    """A level's frame registers."""
    (ALPHA, BETA, BEST, MOVE, DEPTH, STATE, VAL, BMOVE,
     KILLER, KVALID, KSKIP, KFIRST) = range(12)


class G:
    """The globals, in level 0's frame."""
    ITER, BM, BV, DONE, CNT = range(5)


# STATE: how the child now searched was asked.
FULL, NULL = 0, 1


def _opening_word():
    col, row, tile = OPENING
    shape = {ch: int(k.value) for k, ch in SHAPE_CHARS.items()}[tile]
    return pack_move(col, row, shape)


def program(max_iter: int = MAX_ITER) -> Asm:
    """The program; ``max_iter`` is its deepest iteration (tests use shallow ones)."""
    if not 1 <= max_iter <= LEVELS - 3:
        raise ValueError(f"max_iter must be 1 .. {LEVELS - 3}, not {max_iter}")
    a = Asm()
    I, J = a.i, a.jmp
    S = lambda r: (r, Rel.SELF)             # noqa: E731
    C = lambda r: (r, Rel.CHILD)            # noqa: E731
    Gl = lambda r: (r, Rel.GLOBAL)          # noqa: E731

    def full_window(upper):
        """Search the child with the window (-beta, -``upper``): ``upper`` is alpha, or
        a null-window value v that is to be searched again."""
        I(Op.LD, S(F.BETA))
        I(Op.NEG)
        I(Op.ST, C(F.ALPHA))
        I(Op.LD, S(upper))
        I(Op.NEG)
        I(Op.ST, C(F.BETA))
        I(Op.UP)
        J("node")

    # -- the driver: iterative deepening at level 0 ----------------------------------------
    a.label("start")
    I(Op.PROBE)
    J("finish", Cond.OVER)                  # no move: found stays low
    J("opening", Cond.EMPTY)
    I(Op.LDI, x=LEVELS - 2)                 # forget the killers of levels 1 .. LEVELS - 2
    I(Op.ST, Gl(G.CNT))
    a.label("clear")
    I(Op.LDI, x=0)
    I(Op.ST, C(F.KVALID))
    I(Op.UP)
    I(Op.LD, Gl(G.CNT))
    I(Op.ADDI, x=-1)
    I(Op.ST, Gl(G.CNT))
    J("clear", Cond.ZERO, neg=True)
    a.label("down")
    I(Op.DOWN)
    J("down", Cond.ROOT, neg=True)
    I(Op.DOWN)                              # lv = 0
    I(Op.LDI, x=0)
    I(Op.ST, Gl(G.DONE))
    I(Op.LDI, x=1)
    I(Op.ST, Gl(G.ITER))
    a.label("iter")                         # lv = 0
    I(Op.LDI, x=-INF)
    I(Op.ST, C(F.ALPHA))
    I(Op.LDI, x=INF)
    I(Op.ST, C(F.BETA))
    I(Op.LD, Gl(G.ITER))
    I(Op.ST, C(F.DEPTH))
    I(Op.UP)
    J("node")
    a.label("root_done")                    # lv = 1, acc = the root's value
    I(Op.ST, Gl(G.BV))
    I(Op.LD, S(F.BMOVE))
    I(Op.ST, Gl(G.BM))
    I(Op.LD, Gl(G.ITER))
    I(Op.ST, Gl(G.DONE))
    I(Op.DOWN)
    I(Op.ARM)
    I(Op.LD, Gl(G.BV))                      # a decided game: no deeper iteration changes it
    I(Op.CMPI, x=WIN - 64)
    J("answer", Cond.GT)
    I(Op.CMPI, x=-(WIN - 64))
    J("answer", Cond.LT)
    I(Op.LD, Gl(G.ITER))
    I(Op.CMPI, x=max_iter)
    J("answer", Cond.EQ)
    I(Op.ADDI, x=1)
    I(Op.ST, Gl(G.ITER))
    J("iter")

    a.label("opening")
    I(Op.LDI, x=_opening_word())
    I(Op.ST, Gl(G.BM))
    I(Op.LDI, x=0)
    I(Op.ST, Gl(G.DONE))
    I(Op.ST, Gl(G.BV))
    a.label("answer")
    I(Op.LD, Gl(G.DONE))
    I(Op.DEPTH)
    I(Op.LD, Gl(G.BV))
    I(Op.VALUE)
    I(Op.ANSWER, Gl(G.BM))
    a.label("finish")
    I(Op.FINISH)
    J("start")

    # -- out of budget: take every level's tile back (levels 1 .. lv - 1 hold one) ---------
    a.label("abort")
    J("aborted", Cond.ROOT)
    I(Op.DOWN)
    I(Op.UNDO)
    J("abort")
    a.label("aborted")
    I(Op.DOWN)
    J("answer")

    # -- a node at level lv: ALPHA, BETA, DEPTH set by its parent ------------------------
    a.label("node")
    J("abort", Cond.OUT)
    I(Op.LD, S(F.DEPTH))
    J("leaf", Cond.ZERO)
    I(Op.LDI, x=-INF)
    I(Op.ST, S(F.BEST))
    I(Op.LDI, x=FULL)
    I(Op.ST, S(F.STATE))
    I(Op.LDI, x=0)
    I(Op.ST, S(F.KSKIP))
    I(Op.ST, S(F.KFIRST))
    I(Op.LD, S(F.KVALID))                   # the level's killer first, if legal here (at
    J("scan", Cond.ZERO)                    # the root: the last iteration's best move)
    I(Op.REST, S(F.KILLER))
    I(Op.PLACE)
    J("scan", Cond.OK, neg=True)
    I(Op.LDI, x=1)
    I(Op.ST, S(F.KSKIP))
    I(Op.ST, S(F.KFIRST))
    J("visit")
    a.label("scan")
    I(Op.SCAN0)
    a.label("loop")
    I(Op.PLACE)
    J("next", Cond.OK, neg=True)
    I(Op.LD, S(F.KSKIP))                    # the scan skips the killer searched first
    J("visit", Cond.ZERO)
    I(Op.SAVE, S(F.VAL))
    I(Op.LD, S(F.VAL))
    I(Op.CMP, S(F.KILLER))
    J("visit", Cond.EQ, neg=True)
    I(Op.UNDO)
    J("next")
    a.label("visit")                        # a legal placement is on the board
    J("term", Cond.ENDED)
    I(Op.SAVE, S(F.MOVE))
    I(Op.LD, S(F.DEPTH))
    I(Op.ADDI, x=-1)
    I(Op.ST, C(F.DEPTH))
    I(Op.LD, S(F.STATE))
    J("null", Cond.ZERO, neg=True)
    a.label("full")                         # the first child: window (-beta, -alpha)
    full_window(F.ALPHA)
    a.label("null")                         # the others: window (-alpha - 1, -alpha)
    I(Op.LD, S(F.ALPHA))
    I(Op.NEG)
    I(Op.ST, C(F.BETA))
    I(Op.ADDI, x=-1)
    I(Op.ST, C(F.ALPHA))
    I(Op.UP)
    J("node")
    a.label("term")                         # the placement ended the game
    I(Op.TERM)
    I(Op.UNDO)
    J("scored")

    a.label("leaf")
    I(Op.EVAL)
    a.label("ret")                          # acc = the value of level lv's position
    J("root_done", Cond.ROOT)
    I(Op.DOWN)
    I(Op.NEG)                               # ... for the player who moved into it
    I(Op.ST, S(F.VAL))
    I(Op.LD, S(F.STATE))
    J("back", Cond.ZERO)                    # a full-window result
    I(Op.LD, S(F.VAL))                      # a null-window one: alpha < v < beta is a
    I(Op.CMP, S(F.ALPHA))                   # better move, searched again with the window
    J("back", Cond.GT, neg=True)            # (-beta, -v)
    I(Op.CMP, S(F.BETA))
    J("back", Cond.LT, neg=True)
    I(Op.LDI, x=FULL)
    I(Op.ST, S(F.STATE))
    full_window(F.VAL)
    a.label("back")
    I(Op.LDI, x=NULL)                       # the next children: null windows
    I(Op.ST, S(F.STATE))
    I(Op.REST, S(F.MOVE))
    I(Op.UNDO)
    I(Op.LD, S(F.VAL))
    a.label("scored")                       # acc = the move's value; the scan is at the move
    I(Op.CMP, S(F.BEST))
    J("next", Cond.GT, neg=True)
    I(Op.ST, S(F.BEST))
    I(Op.SAVE, S(F.BMOVE))
    I(Op.CMP, S(F.ALPHA))
    J("next", Cond.GT, neg=True)
    I(Op.ST, S(F.ALPHA))
    I(Op.CMP, S(F.BETA))
    J("done", Cond.LT, neg=True)            # a cut-off: the parent will not take this line
    a.label("next")
    I(Op.LD, S(F.KFIRST))                   # after the killer: the scan from its start
    J("advance", Cond.ZERO)
    I(Op.LDI, x=0)
    I(Op.ST, S(F.KFIRST))
    J("scan")
    a.label("advance")
    I(Op.NEXT)
    J("loop", Cond.DONE, neg=True)
    a.label("done")
    I(Op.LD, S(F.BEST))
    I(Op.CMPI, x=-INF)                      # no legal move (a full 8x8 board): a draw
    J("draw", Cond.EQ)
    I(Op.REST, S(F.BMOVE))                  # the best move is the level's killer
    I(Op.SAVE, S(F.KILLER))
    I(Op.LDI, x=1)
    I(Op.ST, S(F.KVALID))
    I(Op.LD, S(F.BEST))
    J("ret")
    a.label("draw")
    I(Op.LDI, x=0)
    J("ret")
    return a
