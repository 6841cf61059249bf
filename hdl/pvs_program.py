"""The search sequencer's program: principal variation search with iterative deepening and
a win-by-force search along threats for both sides, run by the hardware
(:mod:`traxfpga.hdl.pvs`) and by its twin (:mod:`traxfpga.host.reference.pvs`).
docs/player.md ("The search sequencer") describes it.
"""

from .opening_book import BOOK
from .pvs_isa import (INF, KEY_WORDS, LATCH, LEVELS, WIN, WORD_BITS, Asm, Cond, Op, Rel, ScanMode,
                      pack_move)
from .tile_chars import TILE_CHARS
from .tt_spec import AND, ANY_DEPTH, DEPTH_BITS, OR

__all__ = ["program", "threat_search", "schedule", "answer_rank", "OPENING", "MAX_ITER",
           "MAX_BOOK", "ROM_WORDS", "MAX_DEFENCE", "MAX_ATTACK", "TEST_CAP", "MAX_TEST_CAP",
           "F", "G"]

#: The board's first move as White, in notation coordinates (column, row, tile): ``@0/``.
#: Both openings are legal and equal to the search; after ``@0+`` a 2016 contest program won
#: every game by the same line in 12 moves (docs/player.md).
OPENING = (-1, -1, "/")

#: The last iteration (schedule(): a PVS of 7 plies, the threat search at MAX_DEFENCE).
MAX_ITER = 13
#: The one-port devices' program ROM (eight iCE40 block RAMs; the iCEBreaker has no more).
ROM_WORDS = 1024
#: The opening book's room: 6 words an entry beside the one-port devices' program, within
#: its ROM (tests/test_pvs.py checks that a full book fits).
MAX_BOOK = 56


class F:
    """A level's frame registers."""
    (ALPHA, BETA, BEST, MOVE, DEPTH, STATE, VAL, BMOVE,
     KILLER, KVALID, KSKIP, KFIRST, WKILL, THR, RET, WV) = range(16)
    HOLD = BMOVE        # an AND node's last reply that held (a PVS node writes BMOVE
                        # before it reads it)
    TKILL = KFIRST      # with the table, an OR node's last threat that won (a PVS node
                        # writes 0 or 1 there: a placement at (-1, -1), always refused)
    WKILL2 = KSKIP      # with the table, the win at once WKILL held before (the same)
    WKILL3 = STATE      # and the one before that (FULL or NULL there: the same)


class G:
    """The globals, in level 0's frame (registers RET and WV are the driver's own)."""
    ITER, BM, BV, DONE, CNT, DD, PD, LASTPD, RV, KREF, PRET, TMP, CAP, ANY = range(14)


# STATE: how the child now searched was asked.
FULL, NULL = 0, 1

#: The threat search's deepest test, in the attacker's moves: the opponent's moves at the
#: levels 2, 4, .. 2 * MAX_DEFENCE, ours between, so that level LEVELS - 1 stays the list.
MAX_DEFENCE = 7
assert MAX_DEFENCE < 1 << DEPTH_BITS        # the transposition table's depths
#: Our own win by force is looked for while the iteration's depth is at most this.
MAX_ATTACK = 4
#: A cap on a root move's test, in AND nodes, for the program with the table (the
#: one-port devices'): the test gives up there and the move counts as refuted.  0, the
#: devices' default, leaves the cap out of the program: matches showed no gain from it
#: (docs/history.md, "A cap on the root's tests").
TEST_CAP = 0
MAX_TEST_CAP = (1 << (WORD_BITS - 1)) - 1     # G.CAP counts down from it, signed
#: Root moves the opponent was found to win by force after, skipped by later iterations
#: (the list's registers; the oldest is forgotten).
EXCLUDED = 16
#: A root move's value once the opponent wins by force after it: below every move that
#: held, above a loss the search itself saw.
REFUTED = -(WIN - 32)
DECIDED = WIN - 64          # a value beyond this is a decided game
NO_MOVE = 0xFFFF            # an empty entry of the list: tile 3, no placement's word


def answer_rank(depth: int, value: int):
    """The order of many cores' answers (``Cores``' combiner and the twin's ``run_cores``
    play the greatest, the lower core's on a tie): a won game first, the quickest win
    best; then an undecided game's answer, of the deepest iteration first, then of the
    highest value; a lost game last.  A core whose own moves all lose at an iteration
    answers the best of the iteration before, which a deeper core's answer holds against
    as well: its value, of a shallower search, does not compare with the deeper one's."""
    if value > DECIDED:
        return 2, 0, value
    if value < -DECIDED:
        return 0, 0, value
    return 1, depth, value


def schedule(i: int):
    """Iteration ``i``'s (PVS depth in plies, threat-search depth in moves): the first
    iteration searches one ply without threats (it always completes); then the threat
    search deepens from one move (the opponent's wins at once, so that the answer kept when
    every move is refuted later at least stops those), on a PVS of two plies, to
    MAX_DEFENCE, and the PVS after it."""
    if i == 1:
        return 1, 0
    return max(2, i + 1 - MAX_DEFENCE), min(i - 1, MAX_DEFENCE)


def S(reg):
    """Operand: this level's frame register."""
    return reg, Rel.SELF


def C(reg):
    """Operand: the child level's frame register."""
    return reg, Rel.CHILD


def Gl(reg):
    """Operand: a global (level 0's frame register)."""
    return reg, Rel.GLOBAL


def L(reg):
    """Operand: an entry of the list of refuted root moves."""
    return reg, Rel.LIST


def _opening_word():
    col, row, tile = OPENING
    return pack_move(col, row, TILE_CHARS.index(tile))


def program(max_iter: int = MAX_ITER, threats: bool = True, cores: int = 1,
            tt: bool = False, cap: int = TEST_CAP, book=None, scoped: bool = False) -> Asm:
    """The program; ``max_iter`` is its deepest iteration (tests use shallow ones);
    ``threats`` False leaves out the threat search (a plain PVS, which tests compare with
    a minimax); with ``cores`` > 1 the root searches only the moves dealt to its core;
    ``tt``: the threat search asks and fills the transposition table (``TTGET``,
    ``TTPUT``), and with ``cap`` a root move's test gives up after that many AND nodes
    (0: no cap); with ``tt`` the opening book's ``book`` entries (:mod:`.opening_book`'s
    ``BOOK``: (key, move word, moves) each) are answered without a search (None: ``BOOK``;
    the book's test reads the table's key); ``scoped``: the AND nodes' scans for a reply
    that ends the game are scoped (docs/player.md, "Scoped scans")."""
    if not 1 <= max_iter <= LEVELS - 3:
        raise ValueError(f"max_iter must be 1 .. {LEVELS - 3}, not {max_iter}")
    if cores < 1:
        raise ValueError(f"cores must be at least 1, not {cores}")
    if not 0 <= cap <= MAX_TEST_CAP:
        raise ValueError(f"cap must be 0 .. {MAX_TEST_CAP}, not {cap}")
    cap = cap if tt and cap else None
    book = (BOOK if book is None else book) if tt else ()
    if len(book) > MAX_BOOK:
        raise ValueError(f"the book holds at most {MAX_BOOK} entries, not {len(book)}")
    a = Asm()
    _driver(a, max_iter, threats, tt, cap, book)
    if threats:
        _exclude(a)
    _answer(a, threats, tt)
    _node(a, threats, cores, frontier=tt)
    _ret(a, threats, cores, tt, cap)
    if tt:
        _frontier(a)
    if threats:
        threat_search(a, tt, capped=cap is not None, scoped=scoped)
    return a


def _full_window(a, upper):
    """Search the child with the window (-beta, -``upper``): ``upper`` is alpha, or a
    null-window value v that is to be searched again."""
    I, J = a.i, a.jmp
    I(Op.LD, S(F.BETA))
    I(Op.NEG)
    I(Op.ST, C(F.ALPHA))
    I(Op.LD, S(upper))
    I(Op.NEG)
    I(Op.ST, C(F.BETA))
    I(Op.UP)
    J("node")


def _arm_cap(a, cap):
    """The next test is a root move's: it gives up after ``cap`` AND nodes (G.CAP counts
    them down; 0, as for our own attack's test, counts nothing)."""
    a.i(Op.LDI, x=cap)
    a.i(Op.ST, Gl(G.CAP))


def _call_threat_test(a, back):
    """The child level's test (acc: its depth in moves); the verdict comes back at
    ``back``, in WV of this level."""
    I, J = a.i, a.jmp
    I(Op.ST, C(F.DEPTH))
    I(Op.LDI, x=back)
    I(Op.ST, S(F.RET))
    I(Op.UP)
    J("or_node")


def _book(a, book):
    """The opening book: each entry's key compared with the position's, a word at a time
    (``KEY`` tests acc as it was an instruction before: each word is loaded an instruction
    ahead of its test); a miss costs three instructions, as the first word nearly always
    differs; a hit answers the entry's move as the opening is answered."""
    I, J = a.i, a.jmp
    assert KEY_WORDS == 2
    mask = (1 << WORD_BITS) - 1
    for n, (key, word, _) in enumerate(book):
        miss = f"book{n + 1}"
        I(Op.LDI, x=key & mask)
        I(Op.LDI, x=key >> WORD_BITS & mask)
        I(Op.JMP, (0, Rel.SELF), x=miss, cond=Cond.KEY, neg=True)     # lo, before hi
        I(Op.JMP, (1, Rel.SELF), x=miss, cond=Cond.KEY, neg=True)     # hi, before the jump
        I(Op.LDI, x=word)
        J("booked")
        a.label(miss)


def _driver(a, max_iter, threats, tt, cap, book):
    """Iterative deepening at level 0: the opening book, then the game's state, the
    killers and the list cleared, then each iteration (our own win by force, the last
    answer rechecked, the PVS at the root) and the next one's depths."""
    I, J = a.i, a.jmp
    # -- the driver: iterative deepening at level 0 ----------------------------------------
    a.label("start")
    I(Op.PROBE)
    J("finish", Cond.OVER)                  # no move: found stays low
    J("opening", Cond.EMPTY)
    _book(a, book)
    I(Op.LDI, x=LEVELS - 2)                 # forget the killers of levels 1 .. LEVELS - 2
    I(Op.ST, Gl(G.CNT))
    a.label("clear")
    I(Op.LDI, x=0)
    I(Op.ST, C(F.KVALID))
    I(Op.ST, C(F.WKILL))
    I(Op.ST, C(F.HOLD))
    if tt:
        I(Op.ST, C(F.TKILL))
        I(Op.ST, C(F.WKILL2))
        I(Op.ST, C(F.WKILL3))
    I(Op.UP)
    I(Op.LD, Gl(G.CNT))
    I(Op.ADDI, x=-1)
    I(Op.ST, Gl(G.CNT))
    J("clear", Cond.ZERO, neg=True)
    a.label("down")
    I(Op.DOWN)
    J("down", Cond.ROOT, neg=True)
    I(Op.DOWN)                              # lv = 0
    I(Op.LDI, x=NO_MOVE)                    # and the refuted root moves
    for k in range(EXCLUDED):
        I(Op.ST, L(k))
    I(Op.LDI, x=0)
    I(Op.ST, Gl(G.DONE))
    I(Op.ST, Gl(G.DD))
    I(Op.ST, Gl(G.LASTPD))
    I(Op.LDI, x=1)
    I(Op.ST, Gl(G.ITER))
    I(Op.ST, Gl(G.PD))
    if tt:
        I(Op.LDI, x=ANY_DEPTH)              # the depth of a verdict that holds at every one
        I(Op.ST, Gl(G.ANY))
    a.label("iter")                         # lv = 0
    if threats:
        I(Op.LDI, x=0)
        I(Op.ST, Gl(G.KREF))
        if cap is not None:
            I(Op.ST, Gl(G.CAP))             # our own attack's test has no cap
        I(Op.LD, Gl(G.DD))                  # our own win by force first
        J("pvs", Cond.ZERO)
        I(Op.CMPI, x=MAX_ATTACK)
        J("pvs", Cond.GT)
        _call_threat_test(a, "attack_back")
        a.label("attack_back")
        I(Op.LD, S(F.WV))
        J("pvs", Cond.ZERO)
        I(Op.LD, C(F.MOVE))                 # the root's test left its move there
        I(Op.ST, Gl(G.BM))
        I(Op.LDI, x=DECIDED + 1)
        I(Op.ST, Gl(G.BV))
        I(Op.LD, Gl(G.ITER))
        I(Op.ST, Gl(G.DONE))
        J("answer")
    a.label("pvs")
    if threats:
        # The PVS as deep as last time: test the last answer at the new depth first, and
        # search again only if the opponent wins by force after it.
        I(Op.LD, Gl(G.PD))
        I(Op.CMP, Gl(G.LASTPD))
        J("run_pvs", Cond.EQ, neg=True)
        I(Op.UP)
        I(Op.REST, Gl(G.BM))
        I(Op.PLACE)
        J("recheck_drawn", Cond.ENDED)      # (only a draw ends the game here)
        if cap is not None:
            _arm_cap(a, cap)
        I(Op.LD, Gl(G.DD))
        _call_threat_test(a, "recheck_back")
        a.label("recheck_back")             # lv = 1
        I(Op.LD, S(F.WV))
        I(Op.UNDO)
        I(Op.DOWN)
        J("recheck_held", Cond.ZERO)
        I(Op.LDI, x="run_pvs")
        I(Op.ST, Gl(G.PRET))
        I(Op.LD, Gl(G.BM))
        J("exclude")
        a.label("recheck_held")
        I(Op.LD, Gl(G.ITER))
        I(Op.ST, Gl(G.DONE))
        J("next_iter")
        a.label("recheck_drawn")
        I(Op.UNDO)
        I(Op.DOWN)
        a.label("run_pvs")
        I(Op.LD, Gl(G.PD))
        I(Op.ST, Gl(G.LASTPD))
    I(Op.LDI, x=-INF)
    I(Op.ST, C(F.ALPHA))
    I(Op.LDI, x=INF)
    I(Op.ST, C(F.BETA))
    I(Op.LD, Gl(G.PD))
    I(Op.ST, C(F.DEPTH))
    I(Op.UP)
    J("node")
    a.label("root_done")                    # lv = 1, acc = the root's value
    I(Op.ST, Gl(G.RV))
    I(Op.DOWN)
    I(Op.ARM)
    I(Op.CMPI, x=-DECIDED)                  # every move loses: keep the last answer,
    J("take", Cond.LT, neg=True)            # which held one move less deep
    I(Op.LD, Gl(G.ITER))
    I(Op.CMPI, x=1)
    J("answer", Cond.EQ, neg=True)
    a.label("take")
    I(Op.LD, Gl(G.RV))
    I(Op.ST, Gl(G.BV))
    I(Op.LD, C(F.BMOVE))
    I(Op.ST, Gl(G.BM))
    I(Op.LD, Gl(G.ITER))
    I(Op.ST, Gl(G.DONE))
    I(Op.LD, Gl(G.BV))                      # a decided game: no deeper iteration changes it
    I(Op.CMPI, x=DECIDED)
    J("answer", Cond.GT)
    I(Op.CMPI, x=-DECIDED)
    J("answer", Cond.LT)
    a.label("next_iter")                    # the next iteration (schedule())
    I(Op.LD, Gl(G.ITER))
    I(Op.CMPI, x=max_iter)
    J("answer", Cond.EQ)
    I(Op.ADDI, x=1)
    I(Op.ST, Gl(G.ITER))
    if threats:
        I(Op.ADDI, x=-1)                    # the threat depth, while it deepens
        I(Op.CMPI, x=MAX_DEFENCE)
        J("deeper", Cond.GT)
        I(Op.ST, Gl(G.DD))
        I(Op.LDI, x=2)
        I(Op.ST, Gl(G.PD))
        J("iter")
        a.label("deeper")
        I(Op.ADDI, x=2 - MAX_DEFENCE)
    I(Op.ST, Gl(G.PD))
    J("iter")


def _mark_test(a, skip, mark):
    """KREF, once the last answer is refuted in this iteration (1), set to ``mark``: 2
    while a root move's test runs, 1 again after it (see "aborted")."""
    a.i(Op.LD, Gl(G.KREF))
    a.jmp(skip, Cond.ZERO)
    a.i(Op.LDI, x=mark)
    a.i(Op.ST, Gl(G.KREF))
    a.label(skip)


def _exclude(a):
    """Put acc (a refuted root move) on the list, note whether it is the last iteration's
    answer (see "aborted"), and go to PRET."""
    I, J = a.i, a.jmp
    a.label("exclude")
    I(Op.ST, Gl(G.TMP))
    for k in range(EXCLUDED - 1, 0, -1):
        I(Op.LD, L(k - 1))
        I(Op.ST, L(k))
    I(Op.LD, Gl(G.TMP))
    I(Op.ST, L(0))
    I(Op.CMP, Gl(G.BM))
    J("excluded", Cond.EQ, neg=True)
    I(Op.LDI, x=1)
    I(Op.ST, Gl(G.KREF))
    a.label("excluded")
    I(Op.LD, Gl(G.PRET))
    I(Op.JA)


def _answer(a, threats, tt):
    """The opening, the answer and the end of a search, and the way out when the budget
    is spent."""
    I, J = a.i, a.jmp
    a.label("opening")
    I(Op.LDI, x=_opening_word())
    a.label("booked")                       # a book's move in acc
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
    if threats:
        # The last answer was refuted in the iteration cut short: a root move that held
        # since (searched in full, its test passed) is the better answer.
        I(Op.LD, Gl(G.KREF))
        J("answer", Cond.ZERO)
        I(Op.LD, C(F.BEST))
        I(Op.CMPI, x=REFUTED)
        J("unheld" if tt else "answer", Cond.GT, neg=True)
        I(Op.ST, Gl(G.BV))
        I(Op.LD, C(F.BMOVE))
        I(Op.ST, Gl(G.BM))
    J("answer")
    if threats and tt:
        # None held yet, but a root move's test was cut short (KREF 2) after it held one
        # move less deep (_pretest): that move, the best the iteration found since, is
        # not known to lose; the last answer is.
        a.label("unheld")
        I(Op.LD, Gl(G.KREF))
        I(Op.CMPI, x=2)
        J("answer", Cond.EQ, neg=True)
        I(Op.LD, C(F.MOVE))
        I(Op.ST, Gl(G.BM))
        J("answer")


def _node(a, threats, cores, frontier):
    """A PVS node at level lv (ALPHA, BETA, DEPTH set by its parent): the killer first,
    then the scan, each legal placement searched a level down; with ``frontier`` (the
    program with the table, which has the room) a node one ply above its leaves is
    :func:`_frontier`'s."""
    I, J = a.i, a.jmp
    a.label("node")
    J("abort", Cond.OUT)
    I(Op.LD, S(F.DEPTH))
    J("leaf", Cond.ZERO)
    if frontier:
        I(Op.CMPI, x=1)
        J("frontier", Cond.EQ)
        a.label("node_body")
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
    a.label("loop")                         # (SEEK: the engine passes over refused squares)
    I(Op.SEEK)
    J("next", Cond.OK, neg=True)
    if cores > 1:                           # the root's moves dealt round the cores
        J("dealt", Cond.ROOT, neg=True)
        I(Op.DEAL)
        J("skip", Cond.MINE, neg=True)
        a.label("dealt")
    I(Op.LD, S(F.KSKIP))                    # the scan skips the killer searched first
    J("visit", Cond.ZERO)
    I(Op.SAVE, S(F.VAL))
    I(Op.LD, S(F.VAL))
    I(Op.CMP, S(F.KILLER))
    J("visit", Cond.EQ, neg=True)
    a.label("skip")
    I(Op.UNDO)
    J("next")
    a.label("visit")                        # a legal placement is on the board
    J("term", Cond.ENDED)
    I(Op.SAVE, S(F.MOVE))
    if threats:                             # the root skips the refuted moves
        J("visit_on", Cond.ROOT, neg=True)
        I(Op.LD, S(F.MOVE))
        for k in range(EXCLUDED):
            I(Op.CMP, L(k))
            J("skip", Cond.EQ)
        a.label("visit_on")
    I(Op.LD, S(F.DEPTH))
    I(Op.ADDI, x=-1)
    I(Op.ST, C(F.DEPTH))
    I(Op.LD, S(F.STATE))
    J("null", Cond.ZERO, neg=True)
    a.label("full")                         # the first child: window (-beta, -alpha)
    _full_window(a, F.ALPHA)
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


def _ret(a, threats, cores, tt, cap):
    """A leaf's value, and a child's value back at its parent: the re-search of a
    null-window result, the threat test of a root move about to be the best, the best
    move and alpha kept, the cut-off, the next placement, the level's killer."""
    I, J = a.i, a.jmp
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
    _full_window(a, F.VAL)
    a.label("back")
    I(Op.LDI, x=NULL)                       # the next children: null windows
    I(Op.ST, S(F.STATE))
    if threats:
        # a root move about to be the best, its game undecided: does the opponent win by
        # force after it, within the iteration's depth?
        J("taken_back", Cond.ROOT, neg=True)
        I(Op.LD, Gl(G.DD))
        J("taken_back", Cond.ZERO)
        I(Op.LD, S(F.VAL))
        I(Op.CMP, S(F.BEST))
        J("taken_back", Cond.GT, neg=True)
        I(Op.CMPI, x=DECIDED)
        J("taken_back", Cond.GT)
        I(Op.CMPI, x=-DECIDED)
        J("taken_back", Cond.LT)
        if tt:
            _pretest(a, cap)
        if cap is not None:
            _arm_cap(a, cap)
        if tt:
            _mark_test(a, "defence_marked", 2)
        I(Op.LD, Gl(G.DD))
        _call_threat_test(a, "defence_back")
        a.label("defence_back")
        if tt:
            _mark_test(a, "defence_unmarked", 1)
        I(Op.LD, S(F.WV))
        J("taken_back", Cond.ZERO)
        a.label("refuted")
        I(Op.LDI, x=REFUTED)                # it does: a loss, and on the list
        I(Op.ST, S(F.VAL))
        I(Op.LDI, x="taken_back")
        I(Op.ST, Gl(G.PRET))
        I(Op.LD, S(F.MOVE))
        J("exclude")
        a.label("taken_back")
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
    if cores > 1:
        J("ret", Cond.ROOT)                 # no move of this core's share: -INF
    I(Op.LDI, x=0)
    J("ret")


def _frontier(a):
    """A PVS node one ply above its leaves, other than the root: each child is placed,
    valued by EVAL (or TERM) and taken back here, without a level of its own.  A leaf's
    value is exact, so its null window and re-search would buy nothing, and the child's
    frame, window and return cost about thirty instructions a leaf.  The killer first,
    then the scan (USEEK: the take-back and the next placement in one command); a value at
    or above beta cuts."""
    I, J = a.i, a.jmp
    a.label("frontier")
    J("node_body", Cond.ROOT)               # (the root's moves have their own bookkeeping)
    I(Op.LDI, x=-INF)
    I(Op.ST, S(F.BEST))
    I(Op.LDI, x=0)
    I(Op.ST, S(F.KSKIP))
    I(Op.LD, S(F.KVALID))
    J("f_scan", Cond.ZERO)
    I(Op.REST, S(F.KILLER))
    I(Op.PLACE)
    J("f_scan", Cond.OK, neg=True)
    I(Op.LDI, x=1)
    I(Op.ST, S(F.KSKIP))
    J("f_killer_term", Cond.ENDED)
    I(Op.EVAL)
    I(Op.NEG)
    J("f_killer_scored")
    a.label("f_killer_term")
    I(Op.TERM)
    a.label("f_killer_scored")              # the killer's value: the first, so the best
    I(Op.ST, S(F.BEST))
    I(Op.SAVE, S(F.BMOVE))
    I(Op.UNDO)
    I(Op.CMP, S(F.BETA))
    J("done", Cond.LT, neg=True)
    a.label("f_scan")
    I(Op.SCAN0)
    a.label("f_loop")
    I(Op.SEEK)
    a.label("f_sought")
    J("f_next", Cond.OK, neg=True)
    I(Op.LD, S(F.KSKIP))                    # the scan skips the killer valued first
    J("f_visit", Cond.ZERO)
    I(Op.SAVE, S(F.VAL))
    I(Op.LD, S(F.VAL))
    I(Op.CMP, S(F.KILLER))
    J("f_on", Cond.EQ)
    a.label("f_visit")
    J("f_term", Cond.ENDED)
    I(Op.EVAL)
    I(Op.NEG)
    J("f_scored")
    a.label("f_term")
    I(Op.TERM)
    a.label("f_scored")                     # acc = the move's value; the scan is at it
    I(Op.CMP, S(F.BEST))
    J("f_on", Cond.GT, neg=True)
    I(Op.ST, S(F.BEST))
    I(Op.SAVE, S(F.BMOVE))
    I(Op.CMP, S(F.BETA))
    J("f_on", Cond.LT)
    I(Op.UNDO)                              # a cut-off
    J("done")
    a.label("f_on")
    I(Op.USEEK)
    J("f_sought")
    a.label("f_next")
    I(Op.NEXT)
    J("f_loop", Cond.DONE, neg=True)
    J("done")


def _pretest(a, cap):
    """A root move's test one move less deep first (from two moves on): a refutation
    there is one at the full depth, found for a fraction of its nodes, and the table's
    entries carry over.  A move that passes it is marked as under test (KREF 2), so that
    a budget cut short in the full test answers a move known to hold one move less deep,
    never one the iteration could not test at all ("unheld")."""
    I, J = a.i, a.jmp
    if cap is not None:
        _arm_cap(a, cap)                    # harmless when the test is skipped: re-armed
    I(Op.LD, Gl(G.DD))
    I(Op.CMPI, x=1)
    J("pretested", Cond.EQ)
    I(Op.ADDI, x=-1)
    _call_threat_test(a, "pretest_back")
    a.label("pretest_back")
    I(Op.LD, S(F.WV))
    J("refuted", Cond.ZERO, neg=True)
    a.label("pretested")


def threat_search(a: Asm, tt: bool = False, capped: bool = False, scoped: bool = False):
    """The win-by-force test along threats (docs/player.md): an OR node (the attacker to
    move, DEPTH its moves left) and an AND node (the defender to move, DEPTH the attacker's
    moves left after the next).  A node answers 1 (the attacker wins by force) or 0 in
    acc to its parent's RET; an OR node that answers 1 leaves its move in MOVE, unless the
    table answered it (the root's never asks).  With ``tt`` a node asks the transposition
    table (an OR node after its killer's try) and stores its verdict; with ``capped`` (and
    ``tt``) an AND node counts G.CAP down, and a root move's test gives up at 0; with
    ``scoped`` an OR node's scan for a win records its placements, and the AND node's
    below scans only those in the scope of the attacker's move."""
    I, J = a.i, a.jmp

    a.label("wret")                         # acc = the verdict of level lv: in the
    I(Op.DOWN)                              # parent's WV, and on to the parent's RET
    I(Op.ST, S(F.WV))
    I(Op.LD, S(F.RET))
    I(Op.JA)

    capped = tt and capped
    _or_node(a, tt, scoped)
    _and_node(a, tt, capped, scoped)
    if capped:
        _capped(a)
    if tt:
        for name, verdict in (("known_win", 1), ("known_fail", 0)):
            a.label(name)
            I(Op.LDI, x=verdict)
            J("wret")


def _verdict(a: Asm, name, verdict, kind, tt, depth=S(F.DEPTH)):
    """A node's verdict, stored in the table at ``depth`` (a frame operand), back to the
    parent."""
    a.label(name)
    a.i(Op.LDI, x=verdict)
    if tt:
        a.i(Op.TTPUT, depth, x=kind)
    a.jmp("wret")


def _probe(a: Asm, kind):
    """The table's verdict, if it has one for this node, back to the parent."""
    I, J = a.i, a.jmp
    I(Op.TTGET, S(F.DEPTH), x=kind)
    J("known_win", Cond.GT)
    J("known_fail", Cond.LT)


def _killer_try(a: Asm, killer, missed, won):
    """The attacker's last winning move at a level (``killer``, a frame operand) tried: on
    at ``won`` when it wins at once (on the board), else taken back if it was legal and on
    at ``missed``, which is placed here."""
    a.i(Op.REST, killer)
    a.i(Op.PLACE)
    a.jmp(missed, Cond.OK, neg=True)
    a.jmp(won, Cond.WON)
    a.i(Op.UNDO)
    a.label(missed)


def _or_node(a: Asm, tt, scoped):
    """OR: a win at once (the level's last winning move first), else a safe threatening
    move after which every reply leaves a win within DEPTH - 1."""
    I, J = a.i, a.jmp
    a.label("or_node")
    # An AND node tries its child's killer itself (`and_try_got`) and enters at or_entered.
    _killer_try(a, S(F.WKILL), "or_entered", "or_won")
    if tt:
        # The two wins before it next: a reply that stops one of a double threat's wins
        # seldom stops the other (docs/history.md, "The OR node's earlier wins at once").
        _killer_try(a, S(F.WKILL2), "or_second", "or_won_second")
        _killer_try(a, S(F.WKILL3), "or_third", "or_won_third")
    J("abort", Cond.OUT)
    if tt:
        J("or_scan", Cond.ROOT)             # our own attack: its move is wanted
        _probe(a, OR)
    a.label("or_scan")
    I(Op.SCAN0, x=ScanMode.RECORD if scoped else ScanMode.PLAIN)
    a.label("or_win")
    J("abort", Cond.OUT)                    # (a long scan: no tile of this level is out)
    # Hunting: the engine takes back every move that ends nothing and scans on, so only
    # wins, losses (and in 8x8 every move) come back here.
    I(Op.HUNT)
    J("or_win_next", Cond.OK, neg=True)
    J("or_won_new", Cond.WON)
    J("undo_abort", Cond.OUT)
    # The loop's own copy of the checks, the jump back its last: one jump fewer a result.
    a.label("or_win_useek")
    I(Op.UHUNT)
    J("or_win_next", Cond.OK, neg=True)
    J("or_won_new", Cond.WON)
    J("or_win_useek", Cond.OUT, neg=True)
    J("undo_abort")
    a.label("or_win_next")
    I(Op.NEXT)
    J("or_win", Cond.DONE, neg=True)
    I(Op.LD, S(F.DEPTH))
    I(Op.ADDI, x=-1)
    J("or_false", Cond.ZERO)
    I(Op.ST, C(F.DEPTH))
    if tt:
        _threat_killer(a, scoped)
    I(Op.LDI, x="or_back")
    I(Op.ST, S(F.RET))
    I(Op.SCAN0)
    a.label("or_try")
    I(Op.SEEK)
    a.label("or_try_got")
    J("or_try_next", Cond.OK, neg=True)
    J("or_try_undo", Cond.ENDED)            # it lost or drew: not a threat
    a.label("or_try_got_new")
    _threat_try(a, "or_back", "or_try_undo", scoped)    # no win after it: the next
    if tt:
        I(Op.SAVE, S(F.TKILL))
    I(Op.UNDO)
    J("or_true")
    a.label("or_try_undo")                  # (or_try_got's checks again, looping here)
    I(Op.USEEK)
    J("or_try_next", Cond.OK, neg=True)
    J("or_try_undo", Cond.ENDED)
    J("or_try_got_new")
    a.label("or_try_next")
    I(Op.NEXT)
    J("or_try", Cond.DONE, neg=True)
    _verdict(a, "or_false", 0, OR, tt)
    a.label("or_won_new")
    if tt:                                  # the wins move down a place: a new win,
        a.label("or_won_third")             # or the third, first now
        I(Op.LD, S(F.WKILL2))
        I(Op.ST, S(F.WKILL3))
        a.label("or_won_second")            # the second first: the first second
        I(Op.LD, S(F.WKILL))
        I(Op.ST, S(F.WKILL2))
    I(Op.SAVE, S(F.WKILL))
    a.label("or_won")
    I(Op.UNDO)
    I(Op.SAVE, S(F.MOVE))
    _verdict(a, "or_true", 1, OR, tt)


def _threat_try(a: Asm, back, failed, scoped):
    """The placed threat (the scan register) searched by the AND node one level down
    (RET = ``back`` set); on at ``failed`` with the threat still placed if the attacker
    does not win after every reply, else on after this, the scan register the threat;
    ``scoped``: the threat's scope latched for the AND node's scan."""
    a.i(Op.SAVE, S(F.MOVE))
    a.i(Op.UP, x=LATCH if scoped else 0)
    a.jmp("and_node")
    a.label(back)                           # WV = the AND node's verdict
    a.i(Op.LD, S(F.WV))
    a.i(Op.REST, S(F.MOVE))
    a.jmp(failed, Cond.ZERO)


def _threat_killer(a: Asm, scoped):
    """An OR node's threat search starts with its level's last threat that won (its
    child's DEPTH set): a threat that won after one reply usually wins after the next.
    The scan meets it again if it fails, and the table answers its AND node then."""
    I, J = a.i, a.jmp
    I(Op.LDI, x="or_tback")
    I(Op.ST, S(F.RET))
    I(Op.REST, S(F.TKILL))
    I(Op.PLACE)
    J("or_tscan", Cond.OK, neg=True)
    J("or_tundo", Cond.ENDED)               # it lost or drew: not a threat
    _threat_try(a, "or_tback", "or_tundo", scoped)
    I(Op.UNDO)
    J("or_true")
    a.label("or_tundo")
    I(Op.UNDO)
    a.label("or_tscan")


def _capped(a: Asm):
    """A root move's test that reached its cap (an AND node at lv >= 3, its level's tile
    not out): every tile above the root move's taken back, and the test's verdict 1 (the
    move counts as refuted) back to level 1's RET.  No node on the way stores a verdict."""
    I, J = a.i, a.jmp
    a.label("capped")
    I(Op.DOWN)
    J("capped_root", Cond.ROOT)
    I(Op.UNDO)
    J("capped")
    a.label("capped_root")
    I(Op.UP)
    I(Op.LDI, x=1)
    J("wret")


def _and_saw_win(a: Asm, tt, at):
    """A reply that loses at once (the scan register) seen by the AND node's scan: the
    attacker threatens (THR not 0).  Tiles belong to neither player, so the reply is a
    win at once of the attacker's; with the table the first three the scan sees become the
    OR node's killers one level down (WKILL, WKILL2, WKILL3; THR counts them), so that
    after each reply the wins it may not have stopped are tried first, a double threat's
    second after the first."""
    I, J = a.i, a.jmp
    if not tt:
        I(Op.LDI, x=1)
        I(Op.ST, S(F.THR))
        return
    I(Op.LD, S(F.THR))
    J(f"and_saw_{at}_more", Cond.ZERO, neg=True)
    I(Op.SAVE, C(F.WKILL))
    J(f"and_saw_{at}_count")
    a.label(f"and_saw_{at}_more")
    I(Op.CMPI, x=2)
    J(f"and_saw_{at}_third", Cond.EQ)
    J(f"and_saw_{at}_count", Cond.GT)       # three seen: the rest only count
    I(Op.SAVE, C(F.WKILL2))
    J(f"and_saw_{at}_count")
    a.label(f"and_saw_{at}_third")
    I(Op.SAVE, C(F.WKILL3))
    a.label(f"and_saw_{at}_count")
    I(Op.LD, S(F.THR))
    I(Op.ADDI, x=1)
    I(Op.ST, S(F.THR))


def _and_node(a: Asm, tt, capped, scoped):
    """AND: no reply wins or draws, some reply loses at once (the attacker threatens), and
    after every other reply the attacker wins within DEPTH (an OR node one level down)."""
    I, J = a.i, a.jmp
    a.label("and_node")
    J("abort", Cond.OUT)
    if capped:
        I(Op.LD, Gl(G.CAP))                 # a root move's test: one AND node more
        J("and_counted", Cond.ZERO)
        I(Op.ADDI, x=-1)
        I(Op.ST, Gl(G.CAP))
        J("capped", Cond.ZERO)
        a.label("and_counted")
    if tt:
        _probe(a, AND)
    # The defender's last win at once at this level first (WKILL: the side to move's, as
    # in an OR node at this level): a win the attacker's last move did not stop usually
    # refutes the next one too.
    _killer_try(a, S(F.WKILL), "and_see_scan", "and_refuted")
    I(Op.LDI, x=0)
    I(Op.ST, S(F.THR))
    I(Op.SCAN0, x=ScanMode.SCOPED if scoped else ScanMode.PLAIN)
    a.label("and_see")
    J("abort", Cond.OUT)
    I(Op.HUNT)                              # only replies that end the game (as in or_win)
    a.label("and_see_got")
    J("and_see_next", Cond.OK, neg=True)
    J("and_see_undo", Cond.ENDED, neg=True)
    J("and_refuted", Cond.LOST, neg=True)   # it won or drew
    _and_saw_win(a, tt, "got")
    a.label("and_see_undo")
    J("undo_abort", Cond.OUT)
    a.label("and_see_useek")                # (and_see_got's checks again, looping here)
    I(Op.UHUNT)
    J("and_see_next", Cond.OK, neg=True)
    J("and_see_ended", Cond.ENDED)
    J("and_see_useek", Cond.OUT, neg=True)
    J("undo_abort")
    a.label("and_see_ended")
    J("and_refuted", Cond.LOST, neg=True)
    _and_saw_win(a, tt, "ended")
    J("and_see_undo")
    a.label("and_see_next")
    I(Op.NEXT)
    J("and_see", Cond.DONE, neg=True)
    I(Op.LD, S(F.THR))
    J("and_none", Cond.ZERO)                # no threat: not a forcing move
    I(Op.LD, S(F.DEPTH))
    I(Op.ST, C(F.DEPTH))
    I(Op.LDI, x="and_back")
    I(Op.ST, S(F.RET))
    # The level's last reply that held first (THR 3 while it is searched).  If it holds
    # no longer, the scan starts again (THR 2), and meets it again: with the table, the
    # OR node's probe refutes it again at once, cheaper than a test of every reply against
    # it; without, it could cost a whole OR search again, so the scan skips it.
    I(Op.REST, S(F.HOLD))
    I(Op.PLACE)
    J("and_scan", Cond.OK, neg=True)
    J("and_hold_undo", Cond.ENDED)
    I(Op.LDI, x=3)
    I(Op.ST, S(F.THR))
    I(Op.SAVE, S(F.MOVE))
    I(Op.UP)
    J("or_node")
    a.label("and_hold_undo")
    I(Op.UNDO)
    a.label("and_scan")
    I(Op.SCAN0)
    a.label("and_try")
    I(Op.SEEK)
    J("and_try_next", Cond.OK, neg=True)
    J("and_try_undo", Cond.ENDED)           # it lost at once
    J("and_try_got")
    a.label("and_beaten")                   # the killer won after this reply: the next
    I(Op.UNDO)
    I(Op.REST, S(F.MOVE))
    a.label("and_try_undo")                 # (the SEEK's checks again, looping here)
    I(Op.USEEK)
    J("and_try_next", Cond.OK, neg=True)
    J("and_try_undo", Cond.ENDED)
    a.label("and_try_got")
    I(Op.SAVE, S(F.MOVE))
    if not tt:
        I(Op.LD, S(F.THR))
        I(Op.CMPI, x=2)
        J("and_descend", Cond.EQ, neg=True)
        I(Op.LD, S(F.MOVE))
        I(Op.CMP, S(F.HOLD))
        J("and_try_undo", Cond.EQ)
        a.label("and_descend")
    # The OR node's first try, its killer, made here: after most replies it wins at once,
    # and the reply is then refuted without the OR node's entry, probe and return.
    _killer_try(a, C(F.WKILL), "and_child", "and_beaten")
    I(Op.UP)
    J("or_entered")
    a.label("and_back")                     # WV = the OR node's verdict
    I(Op.LD, S(F.WV))
    I(Op.REST, S(F.MOVE))
    J("and_holds", Cond.ZERO)               # the attacker has no win after this reply
    I(Op.LD, S(F.THR))
    I(Op.CMPI, x=3)
    J("and_try_undo", Cond.EQ, neg=True)
    I(Op.UNDO)
    I(Op.LDI, x=2)                          # the last reply that held did not: the scan
    I(Op.ST, S(F.THR))
    J("and_scan")
    a.label("and_try_next")
    I(Op.NEXT)
    J("and_try", Cond.DONE, neg=True)
    _verdict(a, "and_true", 1, AND, tt)
    a.label("and_holds")
    I(Op.UNDO)
    I(Op.SAVE, S(F.HOLD))
    if tt:
        _verdict(a, "and_false", 0, AND, tt)
    else:
        J("and_false")
    a.label("and_refuted")                  # (the scan register: the reply)
    I(Op.SAVE, S(F.WKILL))
    I(Op.UNDO)
    # A reply that wins or draws at once, or no threat at all, fails the attacker at every
    # depth: stored so, the table answers this node in every later iteration too.
    if tt:
        _verdict(a, "and_none", 0, AND, tt, depth=Gl(G.ANY))
    else:
        a.label("and_none")
        _verdict(a, "and_false", 0, AND, tt)
    a.label("undo_abort")                   # out of budget with this level's tile out
    I(Op.UNDO)
    J("abort")
