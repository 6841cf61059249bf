"""The engine's position key (:mod:`.tt_spec`, "The key"): a tile's key from its square and
mask, XORed in as the tile is placed and again as it is taken back."""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .tt_spec import COORD_BITS, KEY_BITS, LAYER_A, LAYER_B, LAYER_C

__all__ = ["PositionKey"]


def _lut(bits, wires, table):
    """A 4-input truth table (a wire None is a zero): one LUT."""
    index = Cat(*(Const(0, 1) if w is None else bits[w] for w in wires))
    return Const(table, 16).bit_select(index, 1)


def tile_key(x, y, mask):
    """:func:`~.tt_spec.tile_key` as logic, of store coordinates narrower than
    :data:`~.tt_spec.COORD_BITS` (zero-extended)."""
    v = Cat(x, Const(0, COORD_BITS - len(x)), y, Const(0, COORD_BITS - len(y)), mask)
    a = [_lut(v, w, t) for w, t in LAYER_A]
    b = [_xor(a[i] for i in w) for w in LAYER_B]
    return Cat(*(_lut(b, w, t) for w, t in LAYER_C))


def _xor(values):
    out = Const(0, 1)
    for v in values:
        out = out ^ v
    return out


class PositionKey(wiring.Component):
    """The XOR of the keys of the tiles on the board.

    The tile (``x``, ``y``, ``mask``) is given with ``toggle`` and held for that cycle; its
    key is registered (in the cells of its last layer), so the XOR has it two cycles after
    the strobe.

    Attributes
    ----------
    x, y : In(log2n)
        The tile's square in the store.
    mask : In(4)
        Its white edges.
    toggle : In(1)
        The tile was placed, or taken back.
    clear : In(1)
        The board was cleared.
    key : Out(KEY_BITS)
    """

    def __init__(self, log2n):
        assert log2n <= COORD_BITS
        super().__init__({
            "x": In(log2n), "y": In(log2n), "mask": In(4),
            "toggle": In(1), "clear": In(1),
            "key": Out(KEY_BITS),
        })

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
