"""``trax-fpga bench TARGET [--json]``: benchmarks that print figures.

Targets live in :data:`TARGETS` (name -> ``(function(args) -> dict, help)``): ``ref`` (the
reference engine: perft(4) and perft(5), replay throughput over the recorded games),
``engine``, ``sim``, ``perft`` (the device's ``:perft``) and ``player``; other parts of the
project add targets with :func:`register_target`.  The figures are printed as tables
(:mod:`~traxfpga.host.bench_report`), or with ``--json`` as one object; the long targets
report their progress on standard error as they go.
"""

import argparse
import random
import time
from pathlib import Path

from .progress import note

#: name -> (bench function(args) -> dict of figures, one-line help)
TARGETS = {}


def register_target(name, function, help_text=""):
    """Add a ``bench`` target: ``function(args)`` returns a dict of figures."""
    TARGETS[name] = (function, help_text)


def _time(fn, *a):
    t = time.perf_counter()
    r = fn(*a)
    return r, time.perf_counter() - t


def bench_ref(args):
    """Figures of the reference engine."""
    from .reference.corpus import engine_variant, load_corpus
    from .reference.trax import Game, Illegal

    figures = {"target": "ref"}
    for depth in (4, 5):
        n, dt = _time(Game().perft, depth)
        figures[f"perft{depth}"] = {"count": n, "seconds": round(dt, 4)}
    games = load_corpus()
    best = None
    moves = 0
    for _ in range(max(1, args.rounds)):
        t = time.perf_counter()
        moves = 0
        for g in games:
            game = Game(engine_variant(g))
            for mv in g["moves"]:
                try:
                    game.play(mv)
                except Illegal:
                    break
                moves += 1
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    figures["replay"] = {"games": len(games), "moves": moves, "seconds": round(best, 4),
                         "moves_per_second": round(moves / best)}
    return figures


register_target("ref", bench_ref, "the software reference engine")


def bench_engine(args):
    """Figures of the hardware move engine: cycles in simulation (see
    :mod:`traxfpga.sim.bench`) on the schedule of ``--board``'s store, then size and Fmax
    on the iCE40UP5K (:mod:`traxfpga.boards.engine_synth`) unless ``--no-synth``."""
    from ..sim.bench import bench_engine as run_bench

    def progress(text):
        note("trax-fpga bench engine", text)

    board = _board(args, "engine")
    args.dual = not (args.one_port or board.store_in_spram(1 << args.log2n))
    args.quad = args.dual and board.store_reads_four(1 << args.log2n) and not args.two_reads
    if args.dual and not args.no_synth:
        raise SystemExit("trax-fpga bench engine: the engine alone is synthesized for the "
                         "iCE40UP5K's one-port store: add --no-synth for the dual-port "
                         "schedule's cycles")
    figures = run_bench(args, progress=progress)
    figures["board"] = board.name
    if not args.no_synth:
        progress("synthesis, place and route for the iCE40UP5K (Yosys, nextpnr; a few "
                 "minutes) ...")
        from ..boards.engine_synth import synth_engine
        synth = synth_engine(log2n=args.log2n, progress=progress)
        figures.update({k: synth[k] for k in ("logic_cells", "logic_cells_total", "bram",
                                              "spram", "fmax_mhz", "harness_cells")})
        figures["logic_cells_pct"] = round(100 * synth["logic_cells"] / synth["logic_cells_total"], 1)
    return figures


register_target("engine", bench_engine,
                "the hardware move engine: cycles per move in simulation, size and Fmax on the UP5K")


def bench_sim(args):
    """Simulated cycles per second of every simulation backend (see :mod:`traxfpga.sim.bench`)."""
    from ..sim.bench import bench_sim as run_bench
    return run_bench(args, progress=lambda text: note("trax-fpga bench sim", text))


register_target("sim", bench_sim,
                "simulated cycles per second of the whole device, compiled and Amaranth's simulator")


def bench_perft(args):
    """The device's ``:perft`` from the start position in simulation, checked against the
    reference (see :mod:`traxfpga.sim.bench`), with its leaves per second projected to the
    ULX3S's clock."""
    from ..boards.platforms import BOARDS
    from ..hdl.perft import MAX_PERFT_DEPTH
    from ..sim.bench import bench_perft as run_bench

    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        raise SystemExit(f"trax-fpga bench perft: --depth must be 0 .. {MAX_PERFT_DEPTH}")
    args.cores = _cores(args, "perft")
    board = _board(args, "perft")
    args.clock_mhz, args.capacity = board.clock_mhz, board.capacity
    args.dual = not (args.one_port or board.store_in_spram())
    args.quad = args.dual and board.store_reads_four() and not args.two_reads
    figures = run_bench(args, progress=lambda text: note("trax-fpga bench perft", text))
    figures["board"] = board.name
    ulx3s = round(BOARDS["ulx3s-85f"].clock_mhz, 3)
    figures["ulx3s_clock_mhz"] = ulx3s
    figures["leaves_per_second_at_ulx3s_clock"] = round(
        figures["leaves_per_second"] * ulx3s / figures["clock_mhz"])
    if not figures["matches_reference"]:
        note("trax-fpga bench perft", f"error: the device answered {figures['answer']!r}, the "
                                      f"reference counts {figures['reference']:,}")
    return figures


register_target("perft", bench_perft,
                "the device's :perft from the start against the reference: cycles per leaf, "
                "leaves per second")


def _board(args, target):
    """The board of ``--board``, whose device is simulated."""
    from ..boards.platforms import BOARDS
    board = BOARDS.get(args.board)
    if board is None or board.device_unfit:
        fits = [name for name, b in BOARDS.items() if not b.device_unfit]
        raise SystemExit(f"trax-fpga bench {target}: no board {args.board!r} "
                         f"(expected one of: {', '.join(fits)})")
    return board


def _cores(args, target, default=1):
    """``--cores``, checked, or ``default`` where it is not given (perft and pvs: one core;
    reach: the board's)."""
    from ..hdl.pvs_isa import MAX_CORES
    cores = getattr(args, "cores", None)
    cores = default if cores is None else cores
    if not 1 <= cores <= MAX_CORES:
        raise SystemExit(f"trax-fpga bench {target}: --cores must be 1 .. {MAX_CORES}")
    return cores


def _check_think_time(args, target):
    """``--think-time`` (the devices' budget by default) at the board's clock."""
    from ..firmware.top import THINK_TIME, check_think_time
    if getattr(args, "think_time", None) is None:
        args.think_time = THINK_TIME
    try:
        check_think_time(args.think_time, args.clock_mhz * 1e6)
    except ValueError as e:
        raise SystemExit(f"trax-fpga bench {target}: --think-time: {e}") from None


def bench_pvs(args):
    """The board's player, the search sequencer: node rate on seeded mid-game positions
    (see :mod:`traxfpga.sim.bench`), then its size and Fmax alone on the iCE40UP5K, unless
    ``--no-synth``."""
    from ..hdl.tt_spec import INDEX_BITS
    from ..sim.bench import bench_pvs as run_bench

    def progress(text):
        note("trax-fpga bench pvs", text)

    from ..hdl.pvs_isa import MAX_CAPACITY
    from ..hdl.pvs_program import MAX_ITER
    if args.positions < 1:
        raise SystemExit("trax-fpga bench pvs: --positions must be at least 1")
    args.cores = _cores(args, "pvs")
    to_iteration = getattr(args, "to_iteration", None)
    if to_iteration is not None and not 1 <= to_iteration <= MAX_ITER:
        raise SystemExit(f"trax-fpga bench pvs: --to-iteration must be 1 .. {MAX_ITER}")
    if getattr(args, "profile", False) and args.cores != 1:
        raise SystemExit("trax-fpga bench pvs: --profile counts one core's engine: "
                         "leave out --cores")
    if not 3 <= args.log2n or 1 << args.log2n > MAX_CAPACITY:
        raise SystemExit(f"trax-fpga bench pvs: --log2n must be 3 .. "
                         f"{MAX_CAPACITY.bit_length() - 1} (the sequencer's capacity is at "
                         f"most {MAX_CAPACITY})")
    board = _board(args, "pvs")
    args.clock_mhz = board.clock_mhz
    _check_think_time(args, "pvs")
    # The engines' schedule is the board's: dual-port where the store is block RAM.
    args.dual = not (args.one_port or board.store_in_spram(1 << args.log2n))
    args.quad = args.dual and board.store_reads_four(1 << args.log2n) and not args.two_reads
    args.tt = _table(args, board)
    args.tt_bits = _table_index_bits(args, args.tt, board, "pvs", most=INDEX_BITS)
    figures = run_bench(args, progress=progress)
    figures["board"] = board.name
    if not args.no_synth:
        from ..boards.engine_synth import synth_part
        from ..hdl.pvs import PVSCore
        progress("the sequencer alone: synthesis, place and route for the iCE40UP5K "
                 "(a few minutes) ...")
        # the iCEBreaker's: with its transposition table, in an SPRAM
        part = synth_part(lambda: PVSCore(tt=True, spram=True), progress=progress)
        figures["sequencer_size"] = {k: part[k] for k in ("logic_cells", "bram", "fmax_mhz")}
    return figures


register_target("pvs", bench_pvs,
                "the board's player (PVS with iterative deepening and threats): nodes per "
                "second and cycles a node on mid-game positions, and its size")


def bench_work(args):
    """The search's work, apart from the hardware's speed: the software twin's legal
    placements and instructions to complete iteration ``--depth`` on the positions of
    ``bench pvs`` (``--positions``, ``--seed``), with the program of ``--board`` (with the
    transposition table where the board has it, or as ``--table`` says; ``--scoped``: with
    scoped scans)."""
    from ..hdl.pvs_program import MAX_ITER, program
    from ..sim.bench import search_positions, table_figures
    from .reference.pvs import run
    from .reference.trax import Game, format_move
    from .reference.ttable import Table

    if args.positions < 1:
        raise SystemExit("trax-fpga bench work: --positions must be at least 1")
    if not 1 <= args.depth <= MAX_ITER:
        raise SystemExit(f"trax-fpga bench work: --depth (the iteration) must be 1 .. {MAX_ITER}")
    board = _board(args, "work")
    tt = _table(args, board)
    index_bits = _table_index_bits(args, tt, board, "work", most=MAX_TABLE_BITS)
    asm = program(args.depth, tt=tt, scoped=args.scoped)
    code = asm.words()
    census = _ScopeCensus() if args.scope else None
    # The AND node's scan for a reply that ends the game starts at the SCAN0 before
    # `and_see`, the attacker's move the last; the OR node's scan for a win at `or_scan`'s,
    # the defender's reply (or at the root, the last move) the last.
    observe = ({asm.labels["and_see"] - 1: census.scan("and"),
                asm.labels["or_scan"]: census.scan("or")} if census else None)
    sites = {} if args.sites else None
    rows = []
    for k, moves in enumerate(search_positions(args.positions, args.seed)):
        game = Game.after(moves)
        table = Table(args.log2n, index_bits=index_bits) if tt else None
        # A fixed noise seed, so that a program's count is reproducible.
        got = run(game, seed=1, code=code, tt=tt, log2n=args.log2n, table=table,
                  observe=observe, sites=sites)
        rows.append(got)
        answer = format_move(got.move) if got.move else "-"
        note("trax-fpga bench work", f"position {k + 1}/{args.positions} (ply {len(moves)}): "
             f"{answer}, iteration {got.depth}, {got.nodes:,} nodes, {got.insns:,} instructions")
    return {"target": "work", "board": board.name, "table": tt,
            "table_entries": 1 << index_bits if tt else 0, "iteration": args.depth,
            "scoped": args.scoped,
            "positions": len(rows), "seed": args.seed,
            "program_words": len(code),
            "nodes": sum(r.nodes for r in rows), "instructions": sum(r.insns for r in rows),
            "nodes_each": [r.nodes for r in rows],
            **table_figures(sum(r.tt_probes for r in rows), sum(r.tt_hits for r in rows)),
            **({"scope": census.figures()} if census else {}),
            **({"sites": _by_label(sites, asm.labels)} if sites is not None else {})}


def _by_label(sites, labels):
    """``bench work --sites``: the placements of each part of the program, named by the
    label its instructions follow, most first."""
    starts = sorted((at, name) for name, at in labels.items())
    parts = {}
    for pc, nodes in sites.items():
        name = max((s for s in starts if s[0] <= pc), default=(0, "start"))[1]
        parts[name] = parts.get(name, 0) + nodes
    return dict(sorted(((k, v) for k, v in parts.items() if v), key=lambda kv: -kv[1]))


class _ScopeCensus:
    """``bench work --scope``: the threat search's scans for a move that ends the game (the
    AND nodes' and the OR nodes'), counted with the scope of the move before them
    (:mod:`~traxfpga.host.reference.scope`)."""

    def __init__(self):
        self.counts = {kind: dict.fromkeys(("scans", "replies", "kept", "kept_by_extents",
                                            "kept_by_boxes", "ending"), 0)
                       for kind in ("and", "or")}

    def scan(self, kind):
        """The observer of one kind of scan: counts its position's scope."""
        from .reference.scope import scope

        counts = self.counts[kind]

        def count(game):
            got = scope(game)
            counts["scans"] += 1
            counts["replies"] += len(got.replies)
            counts["kept"] += len(got.kept)
            counts["kept_by_extents"] += len(got.kept_by_extents)
            counts["kept_by_boxes"] += len(got.kept_by_boxes)
            counts["ending"] += len(got.ending)
        return count

    def figures(self):
        return {kind: {**c, "kept_pct": round(100 * c["kept"] / max(c["replies"], 1), 1),
                       "kept_by_extents_pct": round(100 * c["kept_by_extents"]
                                                    / max(c["replies"], 1), 1),
                       "kept_by_boxes_pct": round(100 * c["kept_by_boxes"]
                                                  / max(c["replies"], 1), 1)}
                for kind, c in self.counts.items()}


register_target("work", bench_work,
                "the search's work: the twin's placements and instructions to complete an "
                "iteration (--depth) on the pvs positions")


#: ``bench work --tt-entries``' range: the slot's two low bits are the side to move and the
#: node's kind; 2**22 entries are more than any search here stores.
MIN_TABLE_BITS, MAX_TABLE_BITS = 4, 22


def _table(args, board):
    """Whether the benched program and cores have the threat search's table: ``--table`` or
    ``--no-table``, else the board's choice at ``--log2n``."""
    table = getattr(args, "table", None)
    return board.has_table(1 << args.log2n) if table is None else table


def _table_index_bits(args, tt, board, target, most):
    """The index bits of the benched table: the board's, or ``--tt-entries``' (a power of
    two, at most ``2**most``: the hardware's tables keep the key's bits above the index in
    an entry of the iCEBreaker's), to show what a table of another size would do."""
    entries = getattr(args, "tt_entries", None)
    if entries is None:
        return board.table_bits
    if not tt:
        raise SystemExit(f"trax-fpga bench {target}: --tt-entries needs the table (a board "
                         f"whose device has it, or --table)")
    if entries < 1 << MIN_TABLE_BITS or entries > 1 << most or entries & entries - 1:
        raise SystemExit(f"trax-fpga bench {target}: --tt-entries must be a power of two, "
                         f"{1 << MIN_TABLE_BITS} .. {1 << most}")
    return entries.bit_length() - 1


def bench_reach(args):
    """How far the board's budget falls short of iteration ``--depth`` on its budget-cut
    answers in ``--records`` (see :mod:`traxfpga.sim.bench_reach`)."""
    from ..firmware.top import THINK_TIME
    from ..hdl.pvs_program import MAX_ITER
    from ..hdl.tt_spec import INDEX_BITS
    from ..sim.bench_reach import bench_reach as run_bench
    from .positions import sample_long_answers

    if not args.records:
        raise SystemExit("trax-fpga bench reach: --records names the games (files or folders "
                         "of referee --record or bench player --record games)")
    if args.positions < 1:
        raise SystemExit("trax-fpga bench reach: --positions must be at least 1")
    if not 2 <= args.depth <= MAX_ITER:
        raise SystemExit(f"trax-fpga bench reach: --depth (the iteration) must be 2 .. {MAX_ITER}")
    board = _board(args, "reach")
    args.twin = not getattr(args, "no_twin", False)
    # the board's device as built, unless --cores, --table or --tt-entries say otherwise
    args.cores = _cores(args, "reach", default=board.cores)
    args.table = _table(args, board)
    args.tt_bits = _table_index_bits(args, args.table, board, "reach", most=INDEX_BITS)
    if args.twin and (not args.table or args.cores != 1):
        raise SystemExit("trax-fpga bench reach: the twin's count is of one core with the "
                         f"table, not of {args.cores} core(s) "
                         f"{'with' if args.table else 'without'} it (--board {board.name}; "
                         "--no-twin measures the device alone)")
    args.clock_mhz = board.clock_mhz
    args.dual = not board.store_in_spram(1 << args.log2n)
    args.quad = board.store_reads_four(1 << args.log2n)
    _check_think_time(args, "reach")
    # the answers that took the devices' budget: the records are of the devices' games
    picked, answers = sample_long_answers(args.records, args.positions, args.seed,
                                          THINK_TIME)
    note("trax-fpga bench reach", f"{len(picked)} positions drawn from {answers} answers "
                                  f"that took the device's whole budget")
    figures = run_bench(args, picked, progress=lambda text: note("trax-fpga bench reach", text))
    return {**figures, "budget_cut_answers": answers}


register_target("reach", bench_reach,
                "how far the budget falls short of an iteration (--depth) on the board's "
                "budget-cut answers in game records (--records, --positions): the twin's "
                "placements to complete it, as a multiple of the device's")


def bench_player(args):
    """Strength of the board's player: seeded matches against ``random`` and ``ref`` through
    the contest referee, with the simulated board's cycles per answer and the depth each
    search completed."""
    from pathlib import Path

    from .players import split_specs
    from .referee import record_folder, run_match, save_record
    from ..sim.bench import depth_histogram, table_figures

    from ..hdl.pvs_program import MAX_DEFENCE, MAX_ITER, schedule
    figures = {"target": "player", "player": args.player, "seed": args.seed,
               # iterations while the budget lasts, each a PVS with the threat search
               # (schedule())
               "search_depth": {"pvs_iterations_max": MAX_ITER,
                                "pvs_plies_max": schedule(MAX_ITER)[0],
                                "threat_search_moves_max": MAX_DEFENCE}}
    clk = None
    if args.player.startswith("sim"):
        from ..sim.device import DEFAULT_CLK
        clk = DEFAULT_CLK
        figures["clock_mhz"] = clk / 1e6
    opponent_time = args.time if args.opponent_time is None else args.opponent_time
    specs = split_specs(args.opponents)
    folders = {}
    if args.record:                 # a folder an opponent, its games kept in notation
        for k, opponent in enumerate(specs):
            path = (Path(args.record) if len(specs) == 1
                    else Path(args.record) / f"vs-{k + 1}")
            try:
                folders[opponent] = record_folder(path)
            except ValueError as e:
                raise SystemExit(f"trax-fpga bench player: {e}") from None
    for opponent in specs:
        depths, cut_depths, nodes, probes, hits = [], [], [], 0, 0
        done = []

        def on_game(i, rec, opponent=opponent, done=done):
            # every game on stderr (a match against ref takes many minutes), on stdout too
            # with --verbose
            done.append(i)
            if opponent in folders:
                save_record(folders[opponent], i, args.games, rec,
                            f"trax-fpga bench player: {args.player} vs {opponent}")
            note("trax-fpga bench player", f"{args.player} vs {opponent}: game {len(done)}/"
                                           f"{args.games}: {rec.summary()}")
            if args.verbose:
                print(f"  {args.player} vs {opponent}: game {i + 1}: {rec.summary()}",
                      flush=True)
        note("trax-fpga bench player", f"{args.games} games of {args.player} against "
                                       f"{opponent} ...")
        match = run_match(args.player, opponent, games=args.games, seed=args.seed,
                          time_limit=(args.time, opponent_time), jobs=args.jobs,
                          on_game=on_game)
        st = match.stats(match.labels[0])
        fig = {"games": st["games"], "wins": st["wins"], "losses": st["losses"],
               "draws": st["draws"], "illegal": st["illegal"], "timeouts": st["timeouts"],
               "win_rate": round(st["wins"] / st["games"], 3), "answers": st["moves"],
               # games that differ in a move at least: two players that answer a position
               # the same way every time play a few games over and over
               "different_games": len({tuple(rec.moves) for rec in match.records}),
               "time_limits": {"player": args.time, "opponent": opponent_time},
               # wins because the opponent answered late (a wall-clock opponent on a busy
               # machine), not on the board
               "wins_on_time": sum(rec.reason == "timeout" and rec.winner is not None
                                   and rec.name(rec.winner) == match.labels[0]
                                   for rec in match.records)}
        mine = [(t, s) for rec in match.records for i, (t, s) in
                enumerate(zip(rec.times, rec.searches))
                if (rec.white if i % 2 == 0 else rec.black) == match.labels[0]]
        for _, s in mine:
            if s is not None:       # the searches of the simulated board (or the model)
                depths.append(s["depth"])
                if s.get("budget_cut"):
                    cut_depths.append(s["depth"])
                if s.get("nodes") is not None:
                    nodes.append(s["nodes"])
                probes += s.get("tt_probes", 0)
                hits += s.get("tt_hits", 0)
        times = sorted(t for t, _ in mine)
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
        if clk:
            fig["cycles_per_answer"] = {"mean": round(st["mean_time"] * clk),
                                        "p99": round(p99 * clk),
                                        "max": round(st["max_time"] * clk)}
        else:
            fig["seconds_per_answer"] = {"mean": st["mean_time"], "p99": round(p99, 6),
                                         "max": st["max_time"]}
        if nodes and times:
            # positions visited (legal placements) per second of thinking
            fig["nodes_per_second"] = round(sum(nodes) / sum(times))
        fig.update(table_figures(probes, hits))
        if depths:
            # the last iteration completed (schedule()); 0 the opening
            fig["depth_reached"] = depth_histogram(depths)
            # The answers the budget cut short: the positions where the search needed more
            # time (the others ended by themselves, a game decided or the last iteration),
            # and how many of them tested the opponent's wins by force to 5 moves or more:
            # where the depth of a mid-game answer is judged.
            fig["depth_reached_at_budget"] = depth_histogram(cut_depths)
            fig["threats_5_at_budget"] = (
                f"{sum(schedule(d)[1] >= 5 for d in cut_depths)} of {len(cut_depths)}")
        figures[f"vs_{opponent}"] = fig
    return figures


register_target("player", bench_player,
                "the board's player: wins against random and ref, cycles per answer and the "
                "depth reached")


def bench_held_back(args):
    """Lost games as positions (:mod:`traxfpga.host.positions`): each record's losing move,
    and whether ``--player`` now avoids it; ``--save FILE`` keeps them as a suite."""
    from .players import open_player
    from .positions import avoids, cases_in, holding_moves, sampled, save_suite, to_dict
    from .reference.movetext import UnusableInput

    def progress(text):
        note("trax-fpga bench held-back", text)
    if args.samples < 1:
        raise UnusableInput("--samples must be at least 1")
    if args.suite:
        return _held_back_suite(args, progress)
    if not args.records:
        raise UnusableInput("give --records DIR (games written by referee --record, such as "
                            "the held-back program's) or --suite FILE")
    if args.save and args.no_holds:
        raise UnusableInput("--save keeps the moves that hold in each case: leave out "
                            "--no-holds")
    if args.save and not Path(args.save).resolve().parent.is_dir():
        raise UnusableInput(f"cannot save the suite as {args.save}: no such folder")
    cases = cases_in(args.records, args.force_depth, progress)
    rows, suite = [], []
    rng = random.Random(args.seed)
    with open_player(args.player, seed=args.seed) as player:
        for case in cases:
            results = sampled(player, args.samples, rng,
                              lambda: avoids(case, player, limit=args.time))
            # Listing every move that holds tests each legal move: in some positions that
            # took the reference more than 25 minutes at depth 4 (docs/referee.md).
            holds = None if args.no_holds else holding_moves(case)
            row = to_dict(case, results) | {"savable": None if holds is None else bool(holds)}
            progress(_answered(args.player, row)
                     + ("" if holds is None else f" ({len(holds)} moves hold)"))
            rows.append(row)
            suite.append((case, holds, row["answer"]))
    if args.save:
        save_suite(args.save, suite, args.player)
    figures = {"target": "held-back", "player": args.player, "force_depth": args.force_depth,
               "losing_moves": len(rows)}
    if not args.no_holds:
        figures["savable"] = sum(r["savable"] for r in rows)
    return figures | _avoided(rows, args.samples)


def _answered(player, row):
    """A case's progress line."""
    if "answers" not in row:
        return (f"{row['source']}: {player} answers {row['answer']} instead of "
                f"{row['played']}: {'avoided' if row['avoided'] else 'still lost'}")
    answers = row["answers"]
    given = ", ".join(f"{a} x{answers.count(a)}" for a in dict.fromkeys(answers))
    return (f"{row['source']}: {player} answers {given} instead of {row['played']}: "
            f"avoided in {row['avoided_in']} of {len(answers)}")


def _avoided(rows, samples):
    """The figures of the cases' ``rows``: the cases avoided (by most of their answers), and
    with ``samples`` past one the answers that held of all given."""
    figures = {"avoided": sum(r["avoided"] for r in rows)}
    if samples > 1:
        figures |= {"samples": samples,
                    "answers_avoiding": f"{sum(r['avoided_in'] for r in rows)} of "
                                        f"{samples * len(rows)}"}
    return figures | {"cases": rows}


def _held_back_suite(args, progress):
    """``bench held-back --suite FILE``: the suite's cases, each answered by ``--player``
    and judged by the moves the suite lists as holding (no search of the reference's)."""
    from .players import open_player
    from .positions import load_suite, sampled, to_dict
    from .reference.movetext import UnusableInput

    if args.records or args.save or args.no_holds:
        raise UnusableInput("--suite brings its cases and the moves that hold in each: leave "
                            "out --records, --save and --no-holds")
    entries = load_suite(args.suite)
    rows = []
    rng = random.Random(args.seed)
    with open_player(args.player, seed=args.seed) as player:
        for case, holds, _ in entries:
            def once():
                answer = player.answer_position(case.moves, limit=args.time)
                return answer, answer in holds, player.last_time
            row = to_dict(case, sampled(player, args.samples, rng, once)) \
                | {"savable": bool(holds)}
            progress(_answered(args.player, row))
            rows.append(row)
    return {"target": "held-back", "player": args.player, "suite": args.suite,
            "losing_moves": len(rows), "savable": sum(r["savable"] for r in rows)} \
        | _avoided(rows, args.samples)


register_target("held-back", bench_held_back,
                "lost games as positions: how many of the loser's losing moves --player now "
                "avoids (--records DIR, --force-depth)")


def bench_web(args):
    """The web page's server: a click's answer beyond the opponent's thinking (see
    :mod:`traxfpga.host.web.bench`)."""
    from .web.bench import bench_web as run_bench
    return run_bench(args, progress=lambda text: note("trax-fpga bench web", text))


register_target("web", bench_web,
                "the web page's server: milliseconds from a click to its answer, beyond the "
                "opponent's thinking (--player the opponent, --games)")


def add_arguments(parser):
    parser.add_argument("target", choices=sorted(TARGETS), metavar="TARGET",
                        help="what to measure: " + "; ".join(
                            f"{k}: {h}" for k, (_, h) in sorted(TARGETS.items())))
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--no-synth", action="store_true",
                        help="engine, pvs: skip synthesis, place and route (cycles only)")
    parser.add_argument("--log2n", type=int, default=7,
                        help="engine, pvs: board store of 2**LOG2N squares a side (default 7: 128)")
    parser.add_argument("--games", type=int, default=50,
                        help="player: games against each opponent (default 50)")
    parser.add_argument("--opponents", default="random,ref",
                        help="player: comma-separated opponent specs (default random,ref); a spec's own "
                             "options stay with it, e.g. random,cmd,per-game,cwd=DIR:./trax")
    parser.add_argument("--player", default="sim",
                        help="player: the spec measured (default sim, the simulated board; "
                             "model is the player's software twin)")
    parser.add_argument("--seed", type=int, default=1, help="player: match seed; pvs, work, reach: positions' seed (default 1)")
    parser.add_argument("--time", type=float, default=1.0,
                        help="player: seconds per answer (default 1.0, the contest's; the "
                             "twin 'model' is timed by the wall clock, so give it more)")
    parser.add_argument("--opponent-time", type=float, default=None, metavar="SECONDS",
                        help="player: the opponents' seconds per answer (default --time): a "
                             "contest program told to think longer gets the time it asks for, "
                             "while the board keeps --time")
    parser.add_argument("--verbose", action="store_true", help="player: print every game")
    parser.add_argument("--record", metavar="DIR",
                        help="player: write each game to DIR/game-NNN.txt in notation, as "
                             "the referee's --record (DIR/vs-K/ for the K-th of several "
                             "opponents), for bench held-back --records")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="player: games at once in worker processes (see referee --jobs)")
    parser.add_argument("--no-pysim", action="store_true",
                        help="sim: leave out Amaranth's simulator (minutes on the workload)")
    parser.add_argument("--cores", type=int, default=None, metavar="N",
                        help="perft, pvs, reach: search cores (perft: each counts below its "
                             "share of the first moves; pvs, reach: the root's moves dealt "
                             "round them; default 1, reach: the board's)")
    parser.add_argument("--board", default="icebreaker",
                        help="engine, perft, pvs, reach: the board whose device is "
                             "simulated: its store's schedule, (perft, pvs, reach) its clock "
                             "(the search's budget), (perft) its capacity and (reach) its "
                             "cores and table; work: its program (default icebreaker)")
    parser.add_argument("--one-port", action="store_true",
                        help="engine, perft, pvs: the engines' one-port schedule (the "
                             "iCEBreaker's SPRAM store's) even on a block-RAM board")
    parser.add_argument("--two-reads", action="store_true",
                        help="engine, perft, pvs: the dual-port schedule's two reads a cycle "
                             "(the HX8K's and the 85F's) even on a board whose engines read "
                             "four (the 25F)")
    parser.add_argument("--profile", action="store_true",
                        help="pvs: also the cycles a node in each of the engine's states "
                             "(one core)")
    parser.add_argument("--think-time", type=float, default=None, metavar="SECONDS",
                        help="pvs, reach: the player's budget, in seconds of the board's clock "
                             "(default 0.8, the devices'; reach draws its positions from the "
                             "answers that took 0.8 s or more all the same); player: give it "
                             "as --player sim,think=SECONDS")
    parser.add_argument("--positions", type=int, default=20, metavar="N",
                        help="pvs, work: mid-game positions searched; reach: budget-cut "
                             "answers drawn from the records (default 20)")
    parser.add_argument("--depth", type=int, default=5,
                        help="perft: the depth counted from the start (default 5; 6 takes "
                             "minutes); work: the iteration completed; reach: the iteration "
                             "measured (default 5)")
    parser.add_argument("--tt-entries", type=int, default=None, metavar="N",
                        help="pvs, work, reach: each core's transposition table of N entries "
                             "(a power of two; pvs, reach: at most 8192) instead of the board's, to "
                             "show what a table of another size would do")
    parser.add_argument("--sites", action="store_true",
                        help="work: also count the placements of each part of the program "
                             "(by the label its instructions follow)")
    parser.add_argument("--to-iteration", type=int, default=None, metavar="N",
                        help="pvs: search each position to iteration N without a budget (the "
                             "cycles it takes to complete it; minutes a position from 6 on)")
    parser.add_argument("--table", action=argparse.BooleanOptionalAction, default=None,
                        help="pvs, work, reach: the threat search's transposition table and "
                             "the engines' key (default: the board's)")
    parser.add_argument("--scoped", action="store_true",
                        help="pvs, work, reach: the program with scoped scans (the AND nodes' "
                             "scans for a reply that ends the game place only the replies in "
                             "the scope of the attacker's move; docs/player.md)")
    parser.add_argument("--scope", action="store_true",
                        help="work: also count, in the threat search's scans for a move "
                             "that ends the game (the AND nodes' and the OR nodes'), the moves "
                             "in the scope of the move before (those a scan that knew each "
                             "placement's tiles before that move would place; minutes)")
    parser.add_argument("--no-twin", action="store_true",
                        help="reach: the board's device alone, without the twin's count of "
                             "the nodes the short positions need (any board, its cores and "
                             "table as built)")
    parser.add_argument("--records", nargs="+", metavar="PATH",
                        help="held-back, reach: game records (files or folders of referee "
                             "--record or bench player --record games)")
    parser.add_argument("--force-depth", type=int, default=3, metavar="D",
                        help="held-back: a losing move lets the winner win by force within D "
                             "of its moves (default 3)")
    parser.add_argument("--no-holds", action="store_true",
                        help="held-back: do not list the moves that hold in each case (the "
                             "slow part, deep or late in a game); whether a move holds is "
                             "then not reported")
    parser.add_argument("--save", metavar="FILE",
                        help="held-back: write the cases, the moves that hold in each and "
                             "--player's answers to FILE as a suite (JSON lines), such as "
                             "tests/data/lost_positions.jsonl")
    parser.add_argument("--samples", type=int, default=1, metavar="K",
                        help="held-back: answer each case K times, the player seeded from "
                             "--seed before each (its noise moved on, as before a game); a "
                             "case counts as avoided when more than half its answers hold "
                             "(default 1: one answer, no seeding)")
    parser.add_argument("--suite", metavar="FILE",
                        help="held-back: the cases of a suite --save wrote (such as "
                             "tests/data/lost_positions.jsonl) instead of --records, judged "
                             "by the moves it lists as holding")
    parser.add_argument("--rounds", type=int, default=3,
                        help="replay the corpus this many times and keep the best (default 3)")


def run(args):
    import json

    import sys

    from .players import PlayerError
    from .reference.movetext import UnusableInput

    fn, _ = TARGETS[args.target]
    try:
        figures = fn(args)
    except (UnusableInput, PlayerError) as e:
        print(f"trax-fpga bench {args.target}: {e}", file=sys.stderr)
        return 1
    status = 1 if figures.get("matches_reference") is False else 0
    if args.json:
        print(json.dumps(figures))
        return status
    from .bench_report import report
    print(report(figures))
    return status
