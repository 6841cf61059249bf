"""The threat search's transposition table: one source for the hardware (the engine's
position key, :mod:`.engine_key`; the table, :mod:`.ttable`) and the twin
(:mod:`traxfpga.host.reference.pvs`), without Amaranth.  docs/player.md ("The transposition
table") describes it.

**The key.**  A position's key is the XOR over its tiles of :func:`tile_key` of the tile's
square in the engine's store and its white-edge mask.  The engine keeps it as tiles are
placed and taken back, forced ones included.  A tile's key is a fixed function of 18 bits
(column and row in 7 bits each, the mask in 4) made of three layers that map to 4-input
LUTs: five 4-bit S-boxes (20 bits); 40 bits, each the XOR of 3 or 4 of those from
different S-boxes; :data:`KEY_BITS` bits, each a nonlinear function of 4 of those.  It is
one-to-one on the tiles of a 128x128 store.  So shallow a function has regularities: on
four tiles that swap two columns between two rows, a 16-bit slice of the XOR of their keys
is zero about 80 times as often as chance.  (A sum would cut that to about 15 times, for
about 120 more logic cells than the UP5K has.)  docs/player.md ("The transposition table") gives the
false hits measured in searches: none.

**The table.**  :data:`ENTRIES` entries of two 16-bit words (the iCEBreaker's; a board
may keep ``2**index_bits``), addressed by the key's low bits XOR the side to move (bit 0)
and the node's kind (bit 1); the next :data:`CHECK_BITS` of the key are the entry's
check.  An entry holds the least depth the attacker was found to win at and the greatest
depth it was found to fail at: a win at depth d answers every depth >= d, a failure every
depth <= d (0: none known).  A verdict on another position replaces an entry unless the
entry is worth more (:func:`worth`): the deeper a verdict, the more work it saves.
"""

import random
from functools import lru_cache

__all__ = ["KEY_BITS", "KEY_MASK", "INDEX_BITS", "CHECK_BITS", "DEPTH_BITS", "ANY_DEPTH",
           "ENTRIES", "ENTRY_WORDS", "worth",
           "COORD_BITS", "key_coord", "LAYER_A", "LAYER_B", "LAYER_C", "OR", "AND",
           "tile_key", "position_key", "slot", "check", "probe", "merge", "store_coord"]

COORD_BITS = 7          # a column or row of the store (at most 128 squares a side)
INDEX_BITS = 13
ENTRIES = 1 << INDEX_BITS
ENTRY_WORDS = 2         # 16-bit words an entry (an SPRAM's 16k words hold the table)
DEPTH_BITS = 3          # depths 1 .. 7 (0: none)
#: The depth of a failure that holds at every depth (the defender wins or draws at once,
#: or the attacker's move threatens nothing): the deepest an entry holds.
ANY_DEPTH = (1 << DEPTH_BITS) - 1
CHECK_BITS = ENTRY_WORDS * 16 - 2 * DEPTH_BITS
KEY_BITS = INDEX_BITS + CHECK_BITS
KEY_MASK = (1 << KEY_BITS) - 1
OR, AND = 0, 1          # the node's kind: the attacker to move, or the defender


def _tables(seed=4):
    """The layers' wiring and truth tables, drawn once from a fixed seed.  Layer A is five
    4-bit S-boxes (bijections whose every output bit is nonlinear) on the 18 input bits
    and two zeros, in a shuffled order, so it loses nothing; layer B has full rank (so it
    loses nothing either); each layer-C truth table has 8 ones in 16 and is not affine."""
    rnd = random.Random(seed)
    affine = set()
    for lin in range(16):
        t = sum((bin(lin & i).count("1") & 1) << i for i in range(16))
        affine |= {t, t ^ 0xFFFF}

    def nonlinear():
        while True:
            t = sum(1 << i for i in rnd.sample(range(16), 8))
            if t not in affine:
                return t

    def sbox():
        while True:
            perm = rnd.sample(range(16), 16)
            tables = [sum((perm[i] >> k & 1) << i for i in range(16)) for k in range(4)]
            if not any(t in affine for t in tables):
                return tables

    def wiring(n_out, n_in, k):
        # every input used: the draws go round a shuffled list of the inputs
        pool, out = [], []
        for _ in range(n_out):
            picks = []
            while len(picks) < k:
                if not pool:
                    pool = rnd.sample(range(n_in), n_in)
                i = pool.pop()
                if i not in picks:
                    picks.append(i)
            out.append(tuple(picks))
        return out

    n_in = 2 * COORD_BITS + 4
    order = rnd.sample(list(range(n_in)) + [None, None], n_in + 2)
    a = []
    for g in range(5):
        wires = tuple(order[4 * g:4 * g + 4])
        a += [(wires, t) for t in sbox()]
    while True:     # 3 or 4 A bits of different S-boxes (not all 4: their span is even)
        b = [tuple(4 * g + rnd.randrange(4) for g in rnd.sample(range(5), 3 + n % 2))
             for n in range(40)]
        if _rank([sum(1 << i for i in w) for w in b]) == 20:
            break
    c = [(w, nonlinear()) for w in wiring(KEY_BITS, 40, 4)]
    return a, b, c


def _rank(rows):
    """The rank over GF(2) of integers as bit vectors."""
    rank, rows = 0, list(rows)
    for bit in range(max(rows).bit_length()):
        pivot = next((r for r in rows if r >> bit & 1), None)
        if pivot is None:
            continue
        rows.remove(pivot)
        rows = [r ^ pivot if r >> bit & 1 else r for r in rows]
        rank += 1
    return rank


#: Layer A: (input bits, truth table; a wire None is a zero); layer B: the layer-A bits
#: XORed; layer C: (layer-B bits, truth table).  A truth table's bit ``i`` is the output for inputs whose bit ``k``
#: (of ``i``) is the ``k``-th wire's value.
LAYER_A, LAYER_B, LAYER_C = _tables()


def _lut(bits, wires, table):
    return table >> sum(bits[w] << k for k, w in enumerate(wires) if w is not None) & 1


@lru_cache(maxsize=1 << 16)
def tile_key(x: int, y: int, mask: int) -> int:
    """The key of a tile at store column ``x``, row ``y`` with white-edge ``mask``."""
    v = x | y << COORD_BITS | mask << 2 * COORD_BITS
    bits = [v >> i & 1 for i in range(2 * COORD_BITS + 4)]
    a = [_lut(bits, w, t) for w, t in LAYER_A]
    b = [sum(a[i] for i in w) & 1 for w in LAYER_B]
    return sum(_lut(b, w, t) << n for n, (w, t) in enumerate(LAYER_C))


def position_key(tiles) -> int:
    """The key of a position: ``tiles`` its (store column, row, mask)s."""
    key = 0
    for t in tiles:
        key ^= tile_key(*t)
    return key


def store_coord(offset: int, log2n: int) -> int:
    """A store column (or row) of the engine with ``2**log2n`` squares a side: the game's
    first tile lies at ``-1`` (the engine's area starts at 0 after a reset), the others
    ``offset`` squares from it."""
    return (offset - 1) % (1 << log2n)


def key_coord(coord: int, log2n: int) -> int:
    """The :data:`COORD_BITS`-bit column (or row) that a store of ``2**log2n`` squares a
    side gives :func:`tile_key` for its ``coord``: sign-extended, so that every square
    within 32 of the first tile's (``-1``) keys as it does in a 128x128 store, and one key
    (and the opening book's) serves every store a game of the book reaches."""
    top = 1 << (log2n - 1)
    return (coord ^ top) - top & (1 << COORD_BITS) - 1


def slot(key: int, stm: int, kind: int, index_bits: int = INDEX_BITS) -> int:
    """The entry of ``key`` with ``stm`` to move (0 white, 1 black), for a node of ``kind``
    (``index_bits``: a table of another size, which the twin can keep to show what more
    entries would save)."""
    return (key ^ stm ^ kind << 1) & ((1 << index_bits) - 1)


def check(key: int, index_bits: int = INDEX_BITS) -> int:
    """The entry's check of ``key``: the key's bits above the index, as many as an entry
    holds (:data:`CHECK_BITS`; a smaller table than the iCEBreaker's leaves the key's top
    bits out)."""
    return key >> index_bits & (1 << CHECK_BITS) - 1


def probe(entry, chk: int, depth: int):
    """``(win, fail)``: whether ``entry`` (check, win depth, fail depth) answers a node of
    ``depth`` whose key has check ``chk``."""
    c, w, f = entry
    if c != chk:
        return False, False
    return w != 0 and w <= depth, f >= depth


def worth(win: int, fail: int) -> int:
    """What an entry's depths (``win``, ``fail``; 0: none) are worth keeping: the deeper of
    them, a failure at :data:`ANY_DEPTH` counting as none.  Such a failure is found at
    once (a reply that wins or draws, or one scan that meets no threat), whereas a deeper
    verdict stands for a deeper search.  So a search to iteration 6 needs a fifth fewer
    placements than with every entry replaced (``bench work``, docs/figures.md "The
    search's work"), and more with those failures counted at their depth."""
    return max(win, 0 if fail == ANY_DEPTH else fail)


def merge(entry, chk: int, win: bool, depth: int):
    """The entry after storing a verdict (``win`` or not at ``depth``) of check ``chk``:
    kept and tightened if it is the same position's; another position's stays if it is
    worth more than the verdict (:func:`worth`), else the verdict replaces it."""
    c, w, f = entry
    if c != chk:
        if worth(w, f) > worth(depth if win else 0, 0 if win else depth):
            return entry
        w, f = 0, 0
    if win:
        w = depth if w == 0 else min(w, depth)
    else:
        f = max(f, depth)
    return chk, w, f
