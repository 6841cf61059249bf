"""How far the board's budget falls short of an iteration, on positions of its own games
(``trax-fpga bench reach``).

``bench pvs`` measures the search on positions cut from recorded human games.  The
positions that matter for strength are the ones where the board ran out of time in a
match: its answers that the budget cut.  This bench samples such answers from game
records, searches each once on the simulated device with its budget (the iteration it
completes and its nodes), and for those that stop short of iteration ``--depth`` counts
with the software twin the placements needed to complete it.  Twin and device run the
same program with the same noise seed, so the twin's count is the device's count without
a budget: its ratio to the device's nodes is how many times more nodes a second (or how
many times less work) the board would need to reach that iteration there.
"""

from ..firmware.top import THINK_TIME, budget_cycles
from ..hdl.lfsr import LFSR_SEED
from ..hdl.tt_spec import INDEX_BITS
from ..host.reference.pvs import run
from ..host.reference.trax import Game
from .bench import _search_each, depth_histogram

__all__ = ["bench_reach", "MAX_MULTIPLE"]

#: The twin stops at this many times the device's nodes (a few minutes a position): a
#: position that needs more is reported as needing more than this.
MAX_MULTIPLE = 8


def bench_reach(args, picked, progress=None, sim=None):
    """The positions ``picked`` (``(source, moves)`` each, drawn from ``args.records`` by
    :func:`~traxfpga.host.positions.sample_long_answers`): the iteration the device
    completes in its budget (``args.think_time`` seconds, by default the devices'
    ``THINK_TIME``) at ``args.clock_mhz``, and for those short of
    iteration ``args.depth`` the twin's placements to complete it (unless ``args.twin`` is
    false).  ``sim``: the :class:`~traxfpga.sim.pvs.PVSSim` to search on (by default
    ``args.cores`` cores, one, with the table unless ``args.table`` is false, and the book,
    on ``2**args.log2n`` squares, on the dual-port schedule with ``args.dual``, reading four
    squares a cycle with ``args.quad``: the iCEBreaker's device or the 25F's; with
    ``args.scoped`` its threat search scanning in scope).  The twin's count is of one core
    with the table."""
    from contextlib import nullcontext

    from ..hdl.pvs_program import program
    from .pvs import PVSSim

    progress = progress or (lambda text: None)
    think = getattr(args, "think_time", THINK_TIME)
    budget = budget_cycles(think, args.clock_mhz * 1e6)
    progress(f"{len(picked)} positions; the device's budget {budget:,} cycles ...")
    scoped = getattr(args, "scoped", False)
    log2n = getattr(args, "log2n", 7)
    twin = getattr(args, "twin", True)
    store = dict(log2n=log2n, dual=getattr(args, "dual", False), quad=getattr(args, "quad", False))
    device_of = dict(cores=getattr(args, "cores", 1), tt=getattr(args, "table", True),
                     tt_bits=getattr(args, "tt_bits", INDEX_BITS))
    with nullcontext(sim) if sim else PVSSim(**store, **device_of, scoped=scoped) as device:
        device.set_seed(LFSR_SEED)              # the twin's noise
        device.limits(cycles=budget)
        rows = _search_each(device, [moves for _, moves in picked], progress, lambda got: (
            f"iteration {got.depth}, {got.nodes:,} nodes in {got.cycles:,} cycles"))
    # the device's program (the iCEBreaker's: with the table) up to --depth
    code = program(args.depth, tt=True, scoped=scoped).words()
    short = []
    for (source, moves), got in zip(picked, rows):
        if got.depth >= args.depth or got.cycles < budget:
            continue            # reached, or the search ended by itself (a decided game)
        row = {"source": source, "ply": len(moves), "iteration": got.depth, "nodes": got.nodes}
        short.append(row)
        if twin:
            row.update(_twin_count(moves, got.nodes, args.depth, code, log2n,
                                   device_of["tt_bits"], progress, f"{source}, ply {len(moves)}"))
    cut = sum(r.cycles >= budget for r in rows)
    figures = {"target": "reach", "clock_mhz": round(args.clock_mhz, 3), "capacity": 1 << log2n,
               "cores": device_of["cores"], "table": device_of["tt"],
               "table_entries": 1 << device_of["tt_bits"] if device_of["tt"] else 0,
               "think_time_s": think,
               "budget_cycles": budget,
               "iteration": args.depth, "positions": len(rows), "seed": args.seed,
               "scoped": scoped,
               "depth_reached": depth_histogram(r.depth for r in rows),
               "depth_reached_at_budget": depth_histogram(
                   r.depth for r in rows if r.cycles >= budget),
               "cut_by_the_budget": cut,
               "reached": f"{cut - len(short)} of {cut}",
               "short": short}
    if twin:
        # the twin's nodes to complete the iteration over the device's, where it did
        figures.update(multiples_needed=sorted(s["multiple"] for s in short if s["multiple"]),
                       max_multiple=MAX_MULTIPLE,
                       beyond_max_multiple=sum(s["multiple"] is None for s in short))
    return figures


def _twin_count(moves, nodes, depth, code, log2n, tt_bits, progress, where):
    """The twin's placements to complete iteration ``depth`` after ``moves``, where the
    device stopped after ``nodes``: up to ``MAX_MULTIPLE`` times them."""
    twin = run(Game.after(moves), MAX_MULTIPLE * nodes, code=code, log2n=log2n, tt_bits=tt_bits)
    done = twin.depth >= depth
    progress(f"{where}: iteration {depth} needs "
             + (f"{twin.nodes:,} nodes, {twin.nodes / nodes:.1f} times the device's"
                if done else f"more than {MAX_MULTIPLE} times the device's nodes"))
    return {"twin_nodes": twin.nodes if done else None,
            "multiple": round(twin.nodes / nodes, 1) if done else None}
