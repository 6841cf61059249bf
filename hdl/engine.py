"""The Trax move engine: placement, forced plays, rollback, undo, loop and line detection.

See ``docs/engine.md`` for the design; in short:

* **Board store** (``cells``): one :data:`~traxfpga.hdl.tiles.Cell` word per square
  of an N×N torus.  Besides the tile it keeps, for an empty square, the colour of
  the track entering it across each edge, so a placement needs to read only the
  square itself and its four neighbours.
* **Path ends** (``far_w``, ``far_b``): for every tile and colour, the far end of
  the path that leaves the tile by an open edge.  Joining two ends of the same
  path closes a loop; a joined path whose ends lie on opposite outermost edges of
  the area is a line.  Nothing ever walks a path or scans the board.
* **Undo log** (``log``): one entry per placed tile (its square and the four path
  ends it joined) and a trailer per move (the tile count and the previous area).
  Rolling back an illegal move and undoing a move are the same routine.
* **Forced stack** (``forced``): squares into which two same-coloured tracks enter.

The parts, one module each: the state machine (:mod:`.engine_control`), the path-end
finder (:mod:`.engine_ends`), the joins with their loops and lines (:mod:`.engine_joins`),
the neighbour update (:mod:`.engine_neighbour`), the forced stack (:mod:`.engine_forced`),
the undo log (:mod:`.engine_log`), EVAL's pipeline (:mod:`.engine_eval`), and the layouts
they share (:mod:`.engine_layouts`).

Coordinates in commands are relative to the current area, exactly as in the
notation: column ``-1`` is ``@``, ``0`` is ``A``; row ``-1`` is ``0``.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .engine_control import Control
from .engine_layouts import CellOut, Command, Op, Result, Tried
# EVAL's weights: one source for the engine and its model (see eval_weights.py).
from .eval_weights import EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS
from .tt_spec import KEY_BITS

#: Bits of ``Engine.state``: room for every state of the engine's state machine.
STATE_BITS = 6

__all__ = ["Op", "Command", "Result", "Tried", "CellOut", "Engine", "STATE_BITS", "EVAL_WEIGHTS", "EVAL_LINE",
           "EVAL_MAX"]


class Engine(wiring.Component):
    """The Trax rules engine.

    Parameters
    ----------
    log2n : int
        The board store holds ``N = 2**log2n`` squares in each direction (N >= 8),
        as a torus.  The area in play may grow to ``N - 2`` columns and rows, so that
        the empty squares just outside it on opposite sides never share a word of
        the store; a move that would make it larger is refused with
        ``Status.CAPACITY``.
    log_depth : int
        Entries in the undo log.  A move needs one per tile plus one; a move of
        more than ``log_depth - 1`` tiles is refused with ``Status.CAPACITY``, and
        undo reaches back as far as the log still holds whole moves.  By default 512,
        or 256 for a store of 32x32 or less: its entries (up to 67 bits, 62 compact on
        two ports) then take 5 (4) block RAMs of 256x16 rather than 9 of 512x8, which the
        HX8K's 32 need.
    stack_depth : int
        Entries in the stack of forced squares (``Status.CAPACITY`` on overflow).
    clear_on_start : bool
        Clear the whole board store after reset (needed where the store is SPRAM,
        whose contents are undefined at configuration); ``False`` relies on the
        memories' zero initial contents, which simulation and block RAM provide.
    spram : bool
        Keep the board store and the path ends in iCE40UP5K SPRAM blocks (three of
        the four; needs ``log2n <= 7``) instead of block RAM.
    dual : bool
        Keep the stores in two banks of simple dual-port block RAM each (even and odd
        columns): a tile's four neighbours read in 3 cycles instead of 5, and the next
        forced square read while a tile is written (docs/engine.md, "The dual-port
        schedule").  Not with ``spram``.
    quad : bool
        With ``dual``, on true dual-port block RAM (ECP5's ``DP16KD``): each bank's write
        port reads too, and a tile reads its four neighbours in one cycle (docs/engine.md,
        "Four reads a cycle").
    keyed : bool
        Keep the position's key (``key``).  A reset then also starts the next game at the
        same squares of the store.
    profile : bool
        Show the state machine's state (``state``), for simulation's profiles of where the
        cycles go; its states' names are in ``state_names`` once elaborated.
    scope : bool
        Keep each placement's scope for the sequencer's scoped scans
        (:mod:`.engine_scope`: the result's ``box`` and ``hull``, and ``tried``), and
        scan a command's window (``Command.window``).

    Attributes
    ----------
    cmd : In(stream.Signature(Command))
        One command at a time; ``ready`` while the engine is idle.
    res : Out(stream.Signature(Result))
        Exactly one result per command.
    cells : Out(stream.Signature(CellOut))
        The squares of the area, row by row, in answer to ``Op.DUMP`` (before its result).
    busy : Out(1)
        High from a command's acceptance to its result's transfer.
    key : Out(KEY_BITS)
        With ``keyed``: the position's key (:mod:`.tt_spec`) XOR the side to move (bit 0),
        for the search's transposition table; current while the engine is idle.
    state : Out(STATE_BITS)
        With ``profile``: the state's code (``state_names[code]`` is its name).
    tried : Out(Tried)
        With ``scope``: each legal placement made, two cycles after it is decided.
    """

    def __init__(self, *, log2n=7, log_depth=None, stack_depth=256, clear_on_start=True,
                 spram=False, dual=False, quad=False, keyed=False, profile=False,
                 scope=False):
        assert log2n >= 3
        if log_depth is None:
            log_depth = 512 if log2n > 5 else 256
        if spram and dual:
            raise ValueError("an SPRAM has one port: the store cannot be dual-port")
        if quad and not dual:
            raise ValueError("four reads a cycle are the dual-port schedule's")
        assert log_depth & (log_depth - 1) == 0, "log_depth must be a power of two"
        self.log2n = log2n
        self.n = 1 << log2n
        self.log_depth = log_depth
        self.stack_depth = stack_depth
        self.clear_on_start = clear_on_start
        self.spram = spram
        self.dual = dual
        self.quad = quad
        self.keyed = keyed
        self.profile = profile
        self.scope = scope
        self.state_names = {}
        super().__init__({
            "cmd":   In(stream.Signature(Command)),
            "res":   Out(stream.Signature(Result)),
            "cells": Out(stream.Signature(CellOut)),
            "busy":  Out(1),
            **({"key": Out(KEY_BITS)} if keyed else {}),
            **({"state": Out(STATE_BITS)} if profile else {}),
            **({"tried": Out(Tried)} if scope else {}),
        })

    def elaborate(self, platform):
        m = Module()
        Control(self, m).build()
        return m
