"""Run the hardware move engine alone in simulation, one command at a time.

:class:`CoreSim` owns a :class:`~traxfpga.hdl.engine.Engine` and a simulator: the
fastest compiled backend this machine can build (:mod:`traxfpga.sim.compiled`: Verilator,
else CXXRTL), else Amaranth's own simulator running in a background thread.  Each
method sends one command through the engine's ``cmd`` stream and waits for its
``res``.  Every command is timed in clock cycles, from the edge that accepts it
to the edge that hands over its result; ``trax-fpga bench engine`` reports them.
"""

from typing import NamedTuple

from amaranth.lib import data

from ..hdl.engine import CellOut, Command, Engine, Op, Result
from .backends import BACKENDS
from .compiled import COMPILED, default_backend
from .threaded import ThreadedSimulator
from ..firmware.text import COLOURS, REASONS
from ..hdl.tiles import (SHAPE_CHARS, STATUS_CODES, Reason, Shape, Status, Variant, Winner,
                         mask_name)

__all__ = ["CoreResult", "CoreSim", "CoreEngine", "open_core", "SHAPES", "VARIANTS"]

SHAPES = {"+": Shape.PLUS, "/": Shape.SLASH, "\\": Shape.BACKSLASH}
VARIANTS = {"trax": Variant.TRAX, "8x8": Variant.EIGHT, "looptrax": Variant.LOOPTRAX}
# Winner and Reason values by name, as the device prints them (None for NONE)
_WINNERS = {Winner(i): None if i == 0 else name for i, name in enumerate(COLOURS)}
_REASONS = {Reason(i): None if i == 0 else name for i, name in enumerate(REASONS)}


class CoreResult(NamedTuple):
    status: Status
    placed: int
    width: int
    height: int
    ply: int
    winner: str | None
    reason: str | None
    cycles: int          # from command acceptance to result
    pot: tuple = (0, 0)  # EVAL: potential of white and black
    att: tuple = (0, 0)  # EVAL: loop-attack path ends of white and black
    at: tuple = (0, 0, "+")  # PLACE, SEEK: the placement tried (column, row, tile)
    nodes: int = 0       # PLACE, SEEK: legal placements made (hunting: those taken back too)
    box: tuple = (0, 0, 0, 0)   # an engine of `scope`: the placement's tiles' extent and
    hull: tuple = (0, 0, 0, 0)  # hull (x0, x1, y0, y1: hdl/engine_scope.py)


def command(**fields):
    """An engine command payload: PLACE at (0, 0) of ``+`` in Trax unless ``fields`` say
    otherwise."""
    payload = {"op": Op.PLACE, "col": 0, "row": 0, "tile": Shape.PLUS, "variant": Variant.TRAX}
    payload.update(fields)
    return payload


def send_command(cx, payload):
    """Hand ``payload`` to the ``cmd`` stream of a compiled design, waiting until it is taken."""
    cx.set("cmd__payload", Command.const(payload).as_bits())
    cx.set("cmd__valid", 1)
    cx.until("cmd__ready")
    cx.tick()
    cx.set("cmd__valid", 0)


#: (offset, mask) of ``occ``, ``white`` and ``eol`` in a :data:`CellOut` word: a DUMP's
#: squares decoded with plain shifts (a view per square costs more than the simulation).
_CELL_FIELDS = tuple((field.offset, (1 << field.width) - 1)
                     for field in map(data.Layout.cast(CellOut).__getitem__,
                                      ("occ", "white", "eol")))


def _window(window):
    if window is None:
        return {}
    last_col, first_row, last_row = window
    return {"window": 1, "last_col": last_col, "first_row": first_row, "last_row": last_row}


def _box(box):
    return box.x0, box.x1, box.y0, box.y1


class CoreSim:
    """The engine in simulation.

    Parameters
    ----------
    log2n, log_depth, stack_depth :
        Passed to :class:`~traxfpga.hdl.engine.Engine`.
    clear_on_start : bool
        Simulate the power-up clear of the whole store (slow in ``pysim`` for large N).
    dual : bool
        The engine's dual-port schedule on banked block-RAM stores (the block-RAM boards').
    keyed : bool
        The engine keeps the position's key (:meth:`key`, compiled backends).
    scope : bool
        The engine keeps each placement's scope (the result's ``box`` and ``hull``) and
        scans a window (:meth:`seek`'s ``window``).
    backend : str
        ``"verilator"``, ``"cxxrtl"`` (compiled), ``"pysim"`` (Amaranth's simulator) or
        ``"auto"`` (:func:`~traxfpga.sim.compiled.default_backend`, unless a VCD file is
        wanted).
    vcd : str or None
        Write a waveform file (``pysim`` only).
    """

    def __init__(self, *, log2n=7, log_depth=512, stack_depth=256, clear_on_start=False,
                 dual=False, quad=False, keyed=False, scope=False, backend="auto", vcd=None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}")
        if backend == "auto":
            backend = default_backend() if vcd is None else "pysim"
        if backend != "pysim" and vcd is not None:
            raise ValueError("a VCD file needs the pysim backend")
        self.backend = backend
        args = dict(log2n=log2n, log_depth=log_depth, stack_depth=stack_depth,
                    clear_on_start=clear_on_start, dual=dual, keyed=keyed)
        if quad:
            args["quad"] = True
        if scope:
            args["scope"] = True
        self.engine = Engine(**args)
        if backend in COMPILED:
            self._cx = COMPILED[backend](self.engine, name="engine", made_as=(Engine, args))
            self._cx.set("res__ready", 1)
            self._cx.set("cells__ready", 1)
            return
        self._sim = ThreadedSimulator(self.engine, self._serve, vcd=vcd)

    async def _serve(self, ctx, request):
        eng = self.engine
        ctx.set(eng.cmd.payload, request)
        ctx.set(eng.cmd.valid, 1)
        await ctx.tick().until(eng.cmd.ready)
        ctx.set(eng.cmd.valid, 0)
        cycles = 0
        cells = []
        ctx.set(eng.res.ready, 1)
        ctx.set(eng.cells.ready, 1)
        while True:
            _, _, res_valid, res, cell_valid, cell = \
                await ctx.tick().sample(eng.res.valid, eng.res.payload,
                                        eng.cells.valid, eng.cells.payload)
            cycles += 1
            if cell_valid:
                cells.append((cell.occ, cell.white, cell.eol))
            if res_valid:
                break
        ctx.set(eng.res.ready, 0)
        ctx.set(eng.cells.ready, 0)
        return self._result(res, cycles), cells

    @staticmethod
    def _result(res, cycles):
        return CoreResult(Status(res.status), res.placed, res.width, res.height, res.ply,
                          _WINNERS[Winner(res.winner)], _REASONS[Reason(res.reason)], cycles,
                          (res.pot[0], res.pot[1]), (res.att[0], res.att[1]),
                          (res.col, res.row, SHAPE_CHARS[Shape(res.tile)]), res.nodes,
                          _box(res.box), _box(res.hull))

    def _call_compiled(self, payload):
        cx = self._cx
        send_command(cx, payload)
        cells = []
        if payload["op"] == Op.DUMP:
            # the area a square a cycle: collected in C (a DUMP after every probe is most
            # of the engine tests' time)
            raw, cycles = cx.collect("cells", "res__valid", max_out=self.engine.n ** 2)
            cells = [tuple((bits >> at) & mask for at, mask in _CELL_FIELDS) for bits in raw]
        else:
            cycles = cx.until("res__valid")
        res = Result.from_bits(cx.get("res__payload"))
        cx.tick()
        return self._result(res, cycles + 1), cells

    def _call(self, **fields):
        payload = command(**fields)
        if self.backend in COMPILED:
            return self._call_compiled(payload)
        return self._sim.call(payload)

    # -- commands -----------------------------------------------------------------------
    def reset(self, variant="trax"):
        return self._call(op=Op.RESET, variant=VARIANTS[variant])[0]

    def place(self, col, row, shape, *, hunt=False):
        """Place a tile: ``col``/``row`` relative to the area as in the notation
        (``-1`` for ``@``/``0``), ``shape`` one of ``+ / \\``.  ``hunt`` (an engine of
        ``scope``): a legal placement that ends nothing is taken back at once."""
        return self._call(op=Op.PLACE, col=col, row=row, tile=SHAPES[shape],
                          hunt=int(hunt))[0]

    def seek(self, col, row, shape, *, hunt=False, window=None):
        """``SEEK`` from a placement in scan order; the result's ``at`` is the one tried.
        ``hunt``: keep only a placement that ends the game, taking back the others;
        ``window``: (last column, first row, last row), the scan's (``scope``)."""
        return self._call(op=Op.SEEK, col=col, row=row, tile=SHAPES[shape], hunt=int(hunt),
                          **_window(window))[0]

    def undo(self):
        return self._call(op=Op.UNDO)[0]

    def undo_seek(self, col, row, shape, *, hunt=False, window=None):
        """``UNDO_SEEK``: take back the last move, then ``SEEK`` from the placement after
        (``col``, ``row``, ``shape``), the one taken back; the result is the SEEK's."""
        return self._call(op=Op.UNDO_SEEK, col=col, row=row, tile=SHAPES[shape],
                          hunt=int(hunt), **_window(window))[0]

    def key(self):
        """The engine's ``key`` output after the last command (``keyed``)."""
        if self.backend not in COMPILED:
            raise ValueError("the key is read from the compiled backends")
        return self._cx.get("key")

    def evaluate(self, **fields):
        """EVAL: the result whose ``pot`` and ``att`` hold both colours' attacking potential
        (:func:`traxfpga.host.reference.evaluate.evaluate` is the same in software).
        ``fields``: the command's others (``col``, ``row``, ...), which EVAL ignores."""
        return self._call(op=Op.EVAL, **fields)[0]

    def board_rows(self):
        """The area in the canonical row format of the reference engine."""
        _, cells = self._call(op=Op.DUMP)
        rows, row = [], []
        for occ, white, eol in cells:
            row.append(mask_name(white) if occ else ".")
            if eol:
                rows.append(" ".join(row))
                row = []
        return rows

    def close(self):
        if self.backend in COMPILED:
            self._cx.close()
        else:
            self._sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


#: A sentence for each refusal the hardware reports (it reports codes only).
SENTENCES = {
    Status.GAME_OVER: "the game is over; no more moves can be played.",
    Status.FIRST_MOVE: "the first move must be '@0/' or '@0+'.",
    Status.RANGE: "the column or row is outside the playing area and the new row and column around it.",
    Status.CAPACITY: "the move would outgrow the engine's board store (or its undo log or forced-play stack).",
    Status.OCCUPIED: "the space already holds a tile.",
    Status.NOT_ADJACENT: "the space does not touch any tile in play.",
    Status.MISMATCH: "the tile cannot join the neighbouring tracks colour to colour.",
    Status.BOUNDS: "the move would make the playing area larger than 8x8.",
    Status.THREE_TRACKS: "the forced plays lead to a space entered by three tracks of one colour.",
}


class CoreEngine:
    """The hardware engine alone, in simulation, as a ``replay`` engine
    (``trax-fpga replay --engine core``).  Notation is parsed on the host; the
    engine takes area-relative coordinates, exactly as the notation gives them."""

    name = "core"

    def __init__(self, variant="trax", **kwargs):
        self.sim = CoreSim(**kwargs)
        self.sim.reset(variant)
        self.results = []

    def play(self, move_text):
        from ..host.reference.trax import Illegal, Step, format_move, parse_move
        move = parse_move(move_text)
        res = self.sim.place(move.col, move.row, move.tile)
        self.results.append(res)
        if res.status != Status.OK:
            raise Illegal(STATUS_CODES[res.status], SENTENCES[res.status], move_text)
        return Step(format_move(move), res.placed, (res.width, res.height), res.winner,
                    res.reason)

    def board_rows(self):
        return self.sim.board_rows()

    def close(self):
        self.sim.close()


def open_core(arg, variant):
    """``core`` or ``core:LOG2N`` (default 7: a 128x128 store): the factory behind
    ``--engine core`` (the engine registry, :mod:`traxfpga.host.engines`, calls it)."""
    if arg and not (arg.isdigit() and 3 <= int(arg) <= 9):
        raise ValueError(f"core:LOG2N takes the store's size as a power of two, 3 .. 9 "
                         f"(core:7 is 128x128), not {arg!r}")
    return CoreEngine(variant, log2n=int(arg) if arg else 7)
