"""The engine's position key (:mod:`.tt_spec`, "The key"): a tile's key from its square and
mask, XORed in as the tile is placed and again as it is taken back."""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .tt_spec import COORD_BITS, KEY_BITS, LAYER_A, LAYER_B, LAYER_C

__all__ = ["PositionKeySignature", "PositionKey", "tile_key"]


def _lut(bits, wires, table):
    """A 4-input truth table (a wire None is a zero): one LUT."""
    index = Cat(*(Const(0, 1) if w is None else bits[w] for w in wires))
    return Const(table, 16).bit_select(index, 1)


def tile_key(x, y, mask):
    """:func:`~.tt_spec.tile_key` as logic, of store coordinates narrower than
    :data:`~.tt_spec.COORD_BITS` sign-extended (:func:`~.tt_spec.key_coord`)."""
    v = Cat(x, x[-1].replicate(COORD_BITS - len(x)), y, y[-1].replicate(COORD_BITS - len(y)),
            mask)
    a = [_lut(v, w, t) for w, t in LAYER_A]
    b = [_xor(a[i] for i in w) for w in LAYER_B]
    return Cat(*(_lut(b, w, t) for w, t in LAYER_C))


def _xor(values):
    out = Const(0, 1)
    for v in values:
        out = out ^ v
    return out


class PositionKeySignature(wiring.Signature):
    """The key seen from the engine.

    ``x``, ``y`` (the square in the store) and ``mask`` (white edges): a tile, given with
    ``toggle`` (placed, or taken back) and held for that cycle.  ``clear``: the board was
    cleared.  ``key``: the XOR of the keys of the tiles on the board.
    """

    def __init__(self, log2n):
        assert log2n <= COORD_BITS
        super().__init__({
            "x": In(log2n), "y": In(log2n), "mask": In(4),
            "toggle": In(1), "clear": In(1),
            "key": Out(KEY_BITS),
        })


class PositionKey(wiring.Component):
    """The XOR of the keys of the tiles on the board.  A tile's key is registered (in the
    cells of its last layer), so ``key`` has it two cycles after the ``toggle``."""

    def __init__(self, log2n):
        super().__init__(PositionKeySignature(log2n))

    def elaborate(self, platform):
        m = Module()
        h = Signal(KEY_BITS)
        toggle = Signal()
        m.d.sync += [h.eq(tile_key(self.x, self.y, self.mask)), toggle.eq(self.toggle)]
        with m.If(self.clear):
            m.d.sync += self.key.eq(0)
        with m.Elif(toggle):
            m.d.sync += self.key.eq(self.key ^ h)
        return m
