"""``trax-fpga compare``: check a device, move by move, against the reference engine.

The device (the simulated one, or a board with ``--port``) plays recorded games
(``host/reference/data/commented.jsonl`` unless ``--corpus`` says otherwise) and seeded random games
through the host client, with illegal probes (random placements, out-of-range and malformed
moves) before moves and occasional undos; every answer, the final board and the final status
are compared with the reference.  Progress on standard error (a bar in a terminal, a line
every few seconds otherwise), then a summary table, or with ``--json`` one object::

    {"device": "sim", "games": 320, "recorded": 300, "moves": .., "probes": .., "undos": ..,
     "boards": .., "commands": .., "resyncs": .., "mismatches": 0, "seconds": ..,
     "cycles": .. (the simulated device only), "first_mismatch": null | {"game", "variant",
     "moves", "command", "expected", "got"}}

On the first mismatch a reproducer follows the table.  Exit status 1 on any mismatch, 2 when
the device cannot be used.
"""

import random
import time

#: Malformed moves to probe with (each must be refused with "syntax" by both).
MALFORMED = ("a1+", "A01+", "A1", "@0", "1A+", "A1++", "@@0/", "A0+/", "Z", "AA", "+", "@A1/",
             "A-1+", "A1*", "B2\\x", ":play", "-W")


def add_arguments(parser):
    parser.add_argument("--port", metavar="PORT", default=None,
                        help="the device's serial port or pyserial URL, optionally PORT@BAUD "
                             "(default: the simulated device in this process)")
    parser.add_argument("--games", type=int, default=20, metavar="N",
                        help="random games to play after the recorded ones (default 20)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--corpus", metavar="FILE", default=None,
                        help="recorded games (JSON lines; default: the corpus shipped in the package; 'none' "
                             "for none)")
    parser.add_argument("--sample", type=int, default=None, metavar="K",
                        help="play only K recorded games, chosen with the seed (default: all)")
    parser.add_argument("--probes", type=int, default=2, metavar="P",
                        help="illegal probes before each move (default 2)")
    parser.add_argument("--undo-rate", type=float, default=0.05, metavar="R",
                        help="chance of an undo (then the move again) after a move (default 0.05)")
    parser.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    parser.add_argument("--json", action="store_true",
                        help="print the figures as one JSON object (for programs)")


class Mismatch(Exception):
    pass


class Stats:
    def __init__(self):
        self.games = 0
        self.recorded = 0
        self.moves = 0
        self.probes = 0
        self.undos = 0
        self.boards = 0
        self.mismatches = 0
        self.first = None           # the first mismatch: dict for the reproducer

    def mismatch(self, **details):
        self.mismatches += 1
        if self.first is None:
            self.first = details


def _outcome(call):
    """("ok", step fields) or (code,) of a play on the reference or the client."""
    from .reference.trax import Illegal
    try:
        step = call()
    except Illegal as e:
        return (e.code,)
    return ("ok", step.placed, tuple(step.size), step.winner, step.reason)


def _probe(game, rng):
    from .reference.trax import Move, format_move
    kind = rng.random()
    if kind < 0.15:
        return rng.choice(MALFORMED)
    if kind < 0.25:                  # beyond the area (or far beyond: saturation)
        far = rng.choice([1, 2, 5, 30, 10 ** rng.randint(2, 12)])
        col, row = rng.choice([(game.width + far, 0), (0, game.height + far)])
        return format_move(Move(col, row, rng.choice("+/\\")))
    return format_move(Move(rng.randint(-1, game.width), rng.randint(-1, game.height),
                            rng.choice("+/\\")))


def play_game(client, variant, moves, rng, stats, *, probes=2, undo_rate=0.05, label=""):
    """Play ``moves`` (a list, or None for random legal moves) on the device and the
    reference in lockstep.  Returns False at the first mismatch (the game is abandoned)."""
    from .client import DeviceError
    from .reference.trax import Game, format_move

    game = Game(variant)
    history = []

    def check(command, expected, got):
        if expected != got:
            stats.mismatch(game=label, variant=variant, moves=list(history), command=command,
                           expected=expected, got=got)
            raise Mismatch(command)

    try:
        client.reset(variant)
        index = 0
        while True:
            if moves is not None:
                if index >= len(moves):
                    break
                move = moves[index]
            else:
                if game.over or game.ply >= 80:
                    break
                legal = game.legal_moves()
                if not legal:
                    break
                move = format_move(rng.choice(legal))
            index += 1
            for _ in range(probes if game.ply else 1):
                probe = _probe(game, rng)
                expected = _outcome(lambda: game.copy().play(probe))
                if expected[0] == "ok":
                    continue                      # a legal probe: not a probe
                stats.probes += 1
                check(f":play {probe}", expected, _outcome(lambda: client.play(probe)))
            expected = _outcome(lambda: game.play(move))
            check(f":play {move}", expected, _outcome(lambda: client.play(move)))
            if expected[0] != "ok":
                break                             # a recorded game's illegal move ends it
            history.append(move)
            stats.moves += 1
            if rng.random() < undo_rate:
                stats.undos += 1
                placed = expected[1]
                game.undo()
                check(":undo", placed, client.undo())
                game.play(move)
                check(f":play {move}", expected, _outcome(lambda: client.play(move)))
        if game.over:
            stats.probes += 1
            check(":play A1+", ("game-over",), _outcome(lambda: client.play("A1+")))
        stats.boards += 1
        check(":board", game.board_rows(), client.board_rows())
        status = client.status()
        check(":status", (variant, game.ply, game.winner, game.reason),
              (status["variant"], status["ply"], status["winner"], status["reason"]))
        return True
    except Mismatch:
        return False
    except DeviceError as e:
        stats.mismatch(game=label, variant=variant, moves=list(history), command="(any)",
                       expected="an answer", got=f"device error: {e}")
        return False
    finally:
        stats.games += 1


def reproducer(first):
    moves = " ".join(first["moves"])
    lines = [f"First mismatch, in {first['game']} ({first['variant']}):",
             f"  after the moves: {moves or '(none)'}",
             f"  command:  {first['command']}",
             f"  expected: {first['expected']}",
             f"  got:      {first['got']}",
             "  to reproduce on the device, send:",
             f"    :reset {first['variant']}"]
    lines += [f"    :play {m}" for m in first["moves"]]
    lines.append(f"    {first['command']}")
    return "\n".join(lines)


def run(args):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
        TimeElapsedColumn
    from rich.table import Table

    from .client import DeviceError, open_client
    from .reference.corpus import engine_variant, load_corpus
    from .progress import Counter

    console = Console()
    err = Console(stderr=True)
    rng = random.Random(args.seed)
    recorded = []
    if args.corpus != "none":
        try:
            recorded = load_corpus(args.corpus)
        except (OSError, ValueError) as e:
            err.print(f"trax-fpga compare: cannot read the corpus: {e}")
            return 2
        if args.sample is not None:
            recorded = rng.sample(recorded, min(args.sample, len(recorded)))
    if args.games < 0 or args.probes < 0:
        err.print("trax-fpga compare: --games and --probes must not be negative")
        return 2

    spec = args.port or "sim"
    try:
        client = open_client(spec)
    except (DeviceError, ValueError, OSError) as e:
        err.print(f"trax-fpga compare: cannot use the device {spec!r}: {e}")
        return 2
    sim = getattr(client.port, "sim", None)
    stats = Stats()
    started = time.monotonic()
    cycles0 = sim.cycles if sim else 0
    variants = ("trax",) * 6 + ("8x8", "looptrax")
    total = len(recorded) + args.games
    # Progress goes to stderr: a live bar in a terminal, else a plain line every few seconds
    # (a bar cannot be drawn in a pipe or a CI log).
    lines = Counter("trax-fpga compare", "games", total, every=5.0) \
        if not args.no_progress and not err.is_terminal else None
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err,
                      disable=args.no_progress or lines is not None) as progress:
            task = progress.add_task("comparing", total=total)

            def advance():
                progress.advance(task)
                if lines:
                    lines.advance(f"{stats.mismatches} mismatches")
            for g in recorded:
                stats.recorded += 1
                play_game(client, engine_variant(g), g["moves"], rng, stats,
                          probes=args.probes, undo_rate=args.undo_rate,
                          label=f"recorded game {g['id']}")
                advance()
            for i in range(args.games):
                play_game(client, rng.choice(variants), None, rng, stats, probes=args.probes,
                          undo_rate=args.undo_rate, label=f"random game {i + 1} (seed {args.seed})")
                advance()
    finally:
        client.close()
    seconds = time.monotonic() - started
    if args.json:
        import json
        out = {"device": spec, "games": stats.games, "recorded": stats.recorded,
               "moves": stats.moves, "probes": stats.probes, "undos": stats.undos,
               "boards": stats.boards, "commands": client.commands, "resyncs": client.resyncs,
               "mismatches": stats.mismatches, "seconds": round(seconds, 3)}
        if sim:
            out["cycles"] = sim.cycles - cycles0
        out["first_mismatch"] = stats.first
        print(json.dumps(out, default=str))
        return 1 if stats.first else 0

    table = Table(title=f"trax-fpga compare: {spec} against the reference engine")
    table.add_column("", style="bold")
    table.add_column("count", justify="right")
    rows = [("games (recorded + random)", f"{stats.games} ({stats.recorded} + "
                                          f"{stats.games - stats.recorded})"),
            ("moves", stats.moves), ("illegal probes", stats.probes), ("undos", stats.undos),
            ("boards compared", stats.boards), ("commands", client.commands),
            ("resynchronisations", client.resyncs),
            ("mismatches", f"[{'red' if stats.mismatches else 'green'}]{stats.mismatches}"),
            ("time", f"{seconds:.1f} s")]
    if sim:
        cycles = sim.cycles - cycles0
        rows.append(("simulated cycles", f"{cycles:,} ({cycles / sim.clk_freq:.2f} s at "
                                         f"{sim.clk_freq / 1e6:g} MHz)"))
        rows.append(("simulation speed", f"{cycles / max(seconds, 1e-9) / 1e6:.2f} M cycles/s, "
                                         f"{(sim.bytes_in + sim.bytes_out) / max(seconds, 1e-9):,.0f}"
                                         f" bytes/s on the line"))
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    if stats.first:
        console.print(reproducer(stats.first), markup=False, highlight=False)
        return 1
    return 0
