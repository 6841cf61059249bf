"""The simulation figures of ``trax-fpga bench``: cycles per move of the hardware engine
over the recorded games (``bench engine``; its size and speed on the iCE40UP5K are added by
the command, :mod:`traxfpga.host.cmd_bench`), simulated cycles per second of the whole
device on every backend (``bench sim``), the device's ``:perft`` against the reference
(``bench perft``), and the player's node rate on one or many cores (``bench pvs``).
Progress goes to a ``progress(text)`` callback."""

import time
from collections import Counter

from ..firmware.top import THINK_TIME, budget_cycles
from ..hdl.tiles import Status
from ..hdl.tt_spec import INDEX_BITS

__all__ = ["bench_engine", "bench_sim", "bench_perft", "bench_pvs",
           "search_positions", "percentile"]


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def store_name(dual, quad=False):
    """The store a figure was measured on, as the figures name it."""
    return ("dual-port, four reads" if quad else "dual-port") if dual else "one-port"


def engine_cycles(log2n=7, progress=None, dual=False, quad=False):
    """Replay every recorded game on the engine (on the dual-port schedule with ``dual``,
    reading four squares a cycle with ``quad``);
    cycles per move and per placed tile.  ``progress(text)`` is told each stage."""
    from ..host.reference.corpus import engine_variant, load_corpus
    from ..host.reference.trax import parse_move
    from .core import CoreSim

    progress = progress or (lambda text: None)
    per_move, tiles = [], 0
    games = load_corpus()
    progress(f"the engine (N = {1 << log2n}, {store_name(dual, quad)} schedule) in "
             f"simulation (compiled on first use, then cached) ...")
    with CoreSim(log2n=log2n, dual=dual, quad=quad) as sim:
        backend = sim.backend
        progress(f"replaying {len(games)} recorded games on {backend} ...")
        start = time.perf_counter()         # after the (cached) compile
        for game in games:
            sim.reset(engine_variant(game))
            for text in game["moves"]:
                move = parse_move(text)
                res = sim.place(move.col, move.row, move.tile)
                if res.status != Status.OK:
                    break
                per_move.append(res.cycles)
                tiles += res.placed
                if res.winner or res.reason:
                    break
        seconds = time.perf_counter() - start
    return {
        "backend": backend,
        "moves": len(per_move),
        "cycles_per_move": {"mean": round(sum(per_move) / len(per_move), 2),
                            "p99": percentile(per_move, 0.99), "max": max(per_move)},
        "cycles_per_tile": {"mean": round(sum(per_move) / tiles, 2)},
        "simulated_cycles_per_second": round(sum(per_move) / seconds),
    }


def table_figures(probes, hits):
    """The threat search's transposition table over some searches: its probes and those
    it answered (``{}`` when nothing probed it: a device without a table)."""
    if not probes:
        return {}
    return {"tt": {"probes": probes, "hits": hits, "hit_rate": round(hits / probes, 3)}}


def bench_engine(args, progress=None):
    """The engine's figures in simulation (the synthesis figures are the command's)."""
    progress = progress or (lambda text: None)
    dual, quad = getattr(args, "dual", False), getattr(args, "quad", False)
    figures = {"target": "engine", "capacity": 1 << args.log2n, "store": store_name(dual, quad)}
    figures.update(engine_cycles(args.log2n, progress, dual=dual, quad=quad))
    return figures


#: The workload of ``bench sim``: engine-mode moves, then the board's own moves (searches).
SIM_WORKLOAD = [":reset", ":play @0/", ":play A2+", ":play A3/", ":move", ":move"]
#: ... searched with this budget (cycles): the device as built, thinking 1/60 s at 24 MHz,
#: so that the compiled backends run long enough to be timed and Amaranth's simulator
#: finishes in minutes.
SIM_THINK_CYCLES = 400_000


def bench_sim(args, progress=None):
    """Simulated clock cycles per second of the whole device on every simulation backend
    this machine can build (the same design: the default device at capacity 16, its
    budget :data:`SIM_THINK_CYCLES`), on the same workload (:data:`SIM_WORKLOAD`: engine
    moves, then two of the board's own searches), with the answers compared:
    ``{"backends": {name: {"cycles_per_second", "cycles", "seconds", "default"}},
    "workload": {...}}``.  ``progress(text)`` is told each stage."""
    from . import cxxrtl, verilator
    from .compiled import default_backend
    from .device import DEFAULT_CLK, DeviceSim

    backends = ([b for b, mod in (("verilator", verilator), ("cxxrtl", cxxrtl))
                 if mod.available()] + ([] if getattr(args, "no_pysim", False) else ["pysim"]))
    default = default_backend()
    progress = progress or (lambda text: None)
    figures = {"target": "sim", "backends": {},
               "workload": {"design": f"the default device, capacity 16, a budget of "
                                      f"{SIM_THINK_CYCLES:,} cycles",
                            "lines": SIM_WORKLOAD}}
    answers = {}
    for backend in backends:
        progress(f"{backend}: building the device (cached after the first run) ...")
        with DeviceSim(capacity=16, backend=backend,
                       think_time=SIM_THINK_CYCLES / DEFAULT_CLK) as sim:
            sim.exchange("-T")                  # warm up (and build)
            progress(f"{backend}: running the workload ...")
            start_cycles, start = sim.cycles, time.perf_counter()
            answers[backend] = [sim.exchange(line) for line in SIM_WORKLOAD]
            seconds = time.perf_counter() - start
            cycles = sim.cycles - start_cycles
        figures["backends"][backend] = {"cycles": cycles, "seconds": round(seconds, 3),
                                        "cycles_per_second": round(cycles / seconds),
                                        "default": backend == default}
    first = next(iter(answers.values()))
    if any(a != first for a in answers.values()):
        raise RuntimeError(f"the backends disagree: {answers}")
    figures["workload"]["answers"] = first
    return figures


def bench_perft(args, progress=None):
    """``:perft args.depth`` from the start position on the simulated device (capacity
    ``args.capacity``, 128 unless set, at ``args.clock_mhz``, the iCEBreaker's unless set,
    ``args.cores`` search cores, their engines on a dual-port store with ``args.dual``),
    checked against the reference's ``Game.perft``: the count,
    the simulated cycles from the line's end to the answer, cycles per leaf and leaves per
    second at the simulated clock.  ``progress(text)`` is told each stage, and the count so
    far while the device counts."""
    from ..host.reference.trax import Game
    from .device import DEFAULT_CLK, DeviceSim

    progress = progress or (lambda text: None)
    depth = args.depth
    progress(f"the reference's perft({depth}) ...")
    start = time.perf_counter()
    expected = Game().perft(depth)
    ref_seconds = time.perf_counter() - start
    progress(f"perft({depth}) = {expected:,} ({ref_seconds:.1f} s); the device in simulation "
             f"(compiled on first use, then cached) ...")
    chunk = 1 << 24                         # cycles between progress lines (a few seconds)
    cores = args.cores
    clk = round(getattr(args, "clock_mhz", DEFAULT_CLK / 1e6) * 1e6)
    dual, quad = getattr(args, "dual", False), getattr(args, "quad", False)
    with DeviceSim(capacity=getattr(args, "capacity", 128), clk_freq=clk, cores=cores,
                   dual=dual, quad=quad) as sim:
        if sim.exchange(":reset trax") != ["= trax"]:
            raise RuntimeError("the simulated device did not start a game")
        line = f":perft {depth}\n".encode()
        sent_at = sim.cycles + 10 * sim.divisor * len(line)     # the line's LF is in
        start = time.perf_counter()
        got = b""
        while not got.endswith(b"\n"):
            consumed, received, quiet = sim.step(line, cycles=chunk)
            line = line[consumed:]
            got += received
            if quiet and not got.endswith(b"\n"):
                raise RuntimeError(f"the device fell quiet without an answer: {got!r}")
            if not got:
                progress(f"{sim.cycles - sent_at:,} cycles: {sim.perft_count:,} of "
                         f"{expected:,} leaves")
        seconds = time.perf_counter() - start
        # the answer's own bytes are not the count's time
        cycles = sim.cycles - sent_at - 10 * sim.divisor * len(got)
        answer = got.decode("latin-1").strip()
        backend = sim.backend
        unchanged = sim.exchange(":status") == ["= trax 0 0 0 - - -"]
    count = int(answer[2:]) if answer.startswith("= ") and answer[2:].isdigit() else None
    return {
        "target": "perft", "depth": depth, "cores": cores, "answer": answer, "count": count,
        "store": store_name(dual, quad),
        "reference": expected, "matches_reference": count == expected and unchanged,
        "backend": backend, "cycles": cycles,
        "cycles_per_leaf": round(cycles / max(count or 0, 1), 2),
        "clock_mhz": clk / 1e6,
        "leaves_per_second": round((count or 0) * clk / cycles),
        "simulated_cycles_per_second": round(cycles / seconds),
    }


def search_positions(count, seed):
    """``count`` mid-game positions of standard Trax (moves), cut from seeded recorded games
    at ply 10 .. 30: where the board thinks longest."""
    import random

    from ..host.reference.corpus import engine_variant, load_corpus
    from ..host.reference.trax import Game, Illegal

    rng = random.Random(seed)
    games = [g for g in load_corpus() if engine_variant(g) == "trax" and len(g["moves"]) > 14]
    out = []
    while len(out) < count:
        g = rng.choice(games)
        cut = rng.randrange(10, min(len(g["moves"]) - 2, 30))
        game = Game()
        try:
            for mv in g["moves"][:cut]:
                game.play(mv)
        except Illegal:
            continue
        if not game.over:
            out.append(g["moves"][:cut])
    return out


def _search_each(sim, positions, progress, describe, states=None):
    """Set up each of ``positions`` (moves) on ``sim`` and search it once; the results, in
    order.  ``describe(result)`` is the end of each position's progress line.  With a
    list ``states``, a Counter of the engine's cycles in each state during each search is
    appended to it (``sim`` made with ``profile``)."""
    rows = []
    for k, moves in enumerate(positions):
        sim.reset("trax")
        for mv in moves:
            sim.play(mv)
        before = sim.state_cycles() if states is not None else None
        got = sim.search()
        if states is not None:
            states.append(Counter({name: n - before[name]
                                   for name, n in sim.state_cycles().items()}))
        rows.append(got)
        progress(f"position {k + 1}/{len(positions)} (ply {len(moves)}): {got.move}, "
                 f"{describe(got)}")
    return rows


def bench_pvs(args, progress=None):
    """The search sequencer (:mod:`traxfpga.hdl.pvs`) on ``args.positions`` seeded
    mid-game positions (:func:`search_positions`), each searched once with the device's
    budget (``args.think_time`` seconds, by default the devices' 0.8, of
    ``args.clock_mhz``): nodes per second, cycles a node, the share
    of the cycles the program itself takes (the rest waits for the engine), instructions
    a node and the iterations completed; the engine's store is ``2**args.log2n`` squares a
    side, on the dual-port schedule with ``args.dual``; ``args.cores`` sequencers share each
    search (their nodes summed, a node's cycles counted on its core); with ``args.scoped``
    their threat searches scan in scope.  With ``args.to_iteration`` each search runs without
    a budget to that iteration, the program's last: the cycles it takes to complete it."""
    from .pvs import PVSSim

    progress = progress or (lambda text: None)
    clock = args.clock_mhz
    think = getattr(args, "think_time", THINK_TIME)
    to_iteration = getattr(args, "to_iteration", None)
    budget = 0 if to_iteration else budget_cycles(think, clock * 1e6)
    positions = search_positions(args.positions, args.seed)
    progress((f"to iteration {to_iteration}" if to_iteration else
              f"budget {budget:,} cycles ({clock:g} MHz)")
             + ": building the sequencer and its engine (cached after the first run) ...")
    cores = getattr(args, "cores", 1)
    profile = getattr(args, "profile", False)       # one core (Cores refuses more)
    each = [] if profile else None
    scoped = getattr(args, "scoped", False)
    iterations = {"max_iter": to_iteration} if to_iteration else {}
    with PVSSim(log2n=args.log2n, dual=args.dual, quad=getattr(args, "quad", False), cores=cores,
                profile=profile, scoped=scoped, tt=getattr(args, "tt", None),
                tt_bits=getattr(args, "tt_bits", INDEX_BITS),
                **iterations) as sim:
        sim.limits(cycles=budget)
        rows = _search_each(sim, positions, progress, lambda got: (
            f"depth {got.depth}, {got.nodes:,} nodes in {got.cycles:,} cycles"), each)
    tt = sim.harness.tt                     # (None in args: the store's default)
    states = sum(each, Counter()) if profile else None
    cycles = sum(r.cycles for r in rows)
    busy = sum(r.busy for r in rows)          # the cores' own cycles (one core: cycles)
    nodes = sum(r.nodes for r in rows)
    own = busy - sum(r.engine_cycles for r in rows)
    probes, hits = sum(r.tt_probes for r in rows), sum(r.tt_hits for r in rows)
    return {
        "target": "pvs", "clock_mhz": round(clock, 3),
        **({"to_iteration": to_iteration} if to_iteration else
           {"think_time_s": think, "budget_cycles": budget}),
        "cycles_each": [r.cycles for r in rows],
        "store": store_name(args.dual, getattr(args, "quad", False)), "capacity": 1 << args.log2n,
        "cores": cores, "table": tt,
        "table_entries": 1 << sim.harness.tt_bits if tt else 0, "scoped": scoped,
        "positions": len(rows), "seed": args.seed, "nodes": nodes, "cycles": cycles,
        "nodes_per_second": round(nodes * clock * 1e6 / cycles),
        "cycles_per_node": round(busy / max(nodes, 1), 1),
        # the program's own cycles (not waiting for PLACE, UNDO or EVAL), a node
        "program_cycles_per_node": round(own / max(nodes, 1), 1),
        "program_pct": round(100 * own / busy, 1),
        "instructions_per_node": round(sum(r.insns for r in rows) / max(nodes, 1), 1),
        "depth_reached": depth_histogram(r.depth for r in rows),
        "at_budget": sum(budget and r.cycles >= budget for r in rows),
        # the positions the budget cut short (the others' searches ended by themselves)
        "depth_reached_at_budget": depth_histogram(r.depth for r in rows
                                                   if budget and r.cycles >= budget),
        **table_figures(probes, hits),          # (one-port engines only)
        # where a node's cycles go: the engine's state (IDLE: the sequencer's own work)
        **({"cycles_per_node_in": {name: round(n / max(nodes, 1), 2)
                                   for name, n in states.most_common() if n}}
           if profile else {}),
        "by_position": _by_position(positions, rows, each),
    }


def depth_histogram(depths):
    """How many of ``depths`` are each depth, in order of depth (JSON keys)."""
    counts = Counter(depths)
    return {str(d): counts[d] for d in sorted(counts)}


#: The engine's states of EVAL (docs/engine.md), whose share of a position's cycles
#: :func:`_by_position` reports.
EVAL_STATES = ("EVAL", "EVAL_ENDS", "EVAL_DRAIN")


def _by_position(positions, rows, each):
    """Each position's ply, iteration completed, nodes and cycles a node (a core's own
    cycles, as the totals), and with the profile ``each`` the cycles a node in `EVAL`:
    the budget is cycles, so a position whose nodes are dear holds few of the nodes a
    second's total."""
    out = []
    for k, (moves, r) in enumerate(zip(positions, rows)):
        row = {"ply": len(moves), "depth": r.depth, "nodes": r.nodes,
               "cycles_per_node": round(r.busy / max(r.nodes, 1), 1)}
        if each is not None:
            row["eval_cycles_per_node"] = round(
                sum(each[k][s] for s in EVAL_STATES) / max(r.nodes, 1), 1)
        out.append(row)
    return out
