"""The weights of the engine's ``EVAL``: the one place the hardware (``hdl/engine.py``) and
its software model (``host/reference/evaluate.py``) read them from.  Pure data, no Amaranth.

``trax-fpga fit-eval`` fits them to the recorded games and, with ``--write``, rewrites this
file; docs/player.md says how.
"""

#: The weight of an open path end by the distance (|dx|, |dy|) from the empty square its
#: track runs into to the one the path's other end runs into: adjacent spaces (a loop
#: attack), diagonal ones (a corner), then two, three and four squares apart.  Each fits
#: the engine's 4-bit weight register (0 .. 15).
EVAL_WEIGHTS = {'adjacent': 15, 'corner': 4, 'two': 0, 'three': 0, 'four': 0}
#: The line potential of a path end (not in Loop Trax), by how many squares the span
#: between the two squares its ends run into (the larger of |dx| - 1 and |dy| - 1, at
#: least 3) falls short of the area's width or height along it (at least 8): 0 short,
#: 1 short, ... 5 short; further 0.  Each fits the engine's 5-bit register (0 .. 31).
EVAL_LINE = (0, 2, 5, 0, 0, 0)
#: The potentials saturate here: above the leaf value's clamp (``pvs_isa.LEAF_CLAMP``),
#: and far above a game's (each path end adds at most END_MAX + LINE_MAX).
EVAL_MAX = (1 << 14) - 1
#: The counts of attack ends saturate here: the leaf value reads them only as none, one to
#: three, or four and more (``pvs_isa.leaf_value``).
ATT_MAX = (1 << 3) - 1

#: The classes, in the order of the fitted features.
END_CLASSES = ("adjacent", "corner", "two", "three", "four")
END_MAX = 15
LINE_MAX = 31
