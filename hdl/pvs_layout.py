"""The search sequencer's instruction and placement words as Amaranth layouts, built from
the field tables of :mod:`.pvs_isa` (which the assembler and the twin read without
Amaranth), so that both pack the same bits."""

from amaranth.lib import data

from .pvs_isa import INSN_FIELDS, MOVE_FIELDS

__all__ = ["Insn", "MoveWord"]


def _layout(fields):
    return data.StructLayout({name: w if isinstance(w, int) else _layout(w)
                              for name, w in fields})


#: One instruction (``x``, ``a.reg``, ``a.rel``, ``op``, ``cond``, ``neg``).
Insn = _layout(INSN_FIELDS)
#: A placement in a frame register (``tile``, ``row``, ``col``).
MoveWord = _layout(MOVE_FIELDS)
