"""``trax-fpga referee``: play contest games between two players and check every move.

Contract::

    trax-fpga referee --white SPEC --black SPEC [--games N] [--time 1.0]
                      [--time-white S] [--time-black S] [--seed S] [--max-moves 400]
                      [--jobs N | --cluster ADDRESS] [--json] [--record DIR]
                      [--web [HOST:]PORT]

SPEC: ``ref``, ``random``, ``sim``, ``serial:PORT[@BAUD]`` or ``cmd:COMMAND`` (see
:mod:`traxfpga.host.players`).  ``--white`` plays White in games 1, 3, ..., ``--black`` in
games 2, 4, ...  ``--time-white``/``--time-black`` give the player of ``--white``/``--black``
a time limit of its own (default ``--time``), kept when the colours swap.  With ``--json`` one object is printed::

    {"games": N,
     "players": {"<spec>": {"wins": .., "losses": .., "illegal": .., "timeouts": ..,
                            "draws": .., "games": .., "as_white": .., "moves": ..,
                            "mean_time": .., "max_time": .., "time_limit": ..,
                            "id": "..", "clock": ".."},
                 "<other spec>": {...}},
     "results": [{"white", "black", "white_id", "black_id", "winner", "reason", "moves",
                  "times", "size", "fault", "time_limits"}, ...]}

(``losses`` include ``illegal`` and ``timeouts``; when both specs are the same string
the keys are ``SPEC#1`` for ``--white`` and ``SPEC#2`` for ``--black``.)  ``--record DIR``
writes ``game-001.txt``, ... in notation with a header of comments.  ``--web`` shows the
match live on a web page (docs/web.md) served there while it is played.  Exit status 0 when the
games were played (whatever their results), 1 for unusable arguments or a player that cannot
be started.
"""


def add_arguments(parser):
    parser.add_argument("--white", required=True, metavar="SPEC",
                        help="the player White in the first game: ref, random, model (the "
                             "board's player in software), sim, serial:PORT[@BAUD], "
                             "cmd:COMMAND or cmd,per-game,cwd=DIR:COMMAND (docs/referee.md)")
    parser.add_argument("--black", required=True, metavar="SPEC",
                        help="the player Black in the first game (colours swap each game)")
    parser.add_argument("--games", type=int, default=1, metavar="N",
                        help="number of games, colours swapped between games (default: 1)")
    parser.add_argument("--time", type=float, default=1.0, metavar="SECONDS",
                        help="time limit per answer; simulated time for 'sim' (default: 1.0)")
    parser.add_argument("--time-white", type=float, default=None, metavar="SECONDS",
                        help="the --white player's own time limit, in both colours (default: "
                             "--time)")
    parser.add_argument("--time-black", type=float, default=None, metavar="SECONDS",
                        help="the --black player's own time limit, in both colours (default: "
                             "--time)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed for the in-process players (default: 0)")
    parser.add_argument("--max-moves", type=int, default=400, metavar="N",
                        help="a game still going after N moves is a draw (default: 400)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="play N games at once in worker processes, each game between "
                             "players opened for it alone (the results do not depend on N; "
                             "without --jobs the players are opened once for the match)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the games on a Dask cluster, each between players opened "
                             "for it alone: 'local' or 'local:N' (N worker processes on this "
                             "machine) or a scheduler's address such as tcp://HOST:8786 "
                             "(docs/referee.md)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the contract)")
    parser.add_argument("--record", metavar="DIR",
                        help="write each game to DIR/game-NNN.txt in notation")
    parser.add_argument("--web", metavar="HOST:PORT",
                        help="show the match live in a browser, served on this address (or "
                             "on 127.0.0.1 for a bare PORT) while it is played (docs/web.md)")


def _usage_problem(args):
    import math
    if args.games < 1:
        return "--games must be at least 1"
    for option in ("time", "time_white", "time_black"):
        value = getattr(args, option)
        if value is not None and not (value > 0 and math.isfinite(value)):
            return f"--{option.replace('_', '-')} must be a positive number of seconds"
    if args.max_moves < 1:
        return "--max-moves must be at least 1"
    if args.jobs is not None and args.jobs < 1:
        return "--jobs must be at least 1"
    if args.jobs is not None and args.cluster is not None:
        return "give --jobs or --cluster, not both"
    if args.web is not None and (args.jobs is not None or args.cluster is not None):
        return "--web shows one game at a time: leave out --jobs and --cluster"
    if args.cluster is not None:
        from .cluster import parse_address
        try:
            parse_address(args.cluster)
        except ValueError as e:
            return str(e)
    if args.web is not None:
        from .cmd_web import parse_listen
        try:
            parse_listen(args.web, "--web")
        except ValueError as e:
            return str(e)
    return None


def _limits(args):
    """The time limits of the --white and --black players."""
    return (args.time if args.time_white is None else args.time_white,
            args.time if args.time_black is None else args.time_black)


def run(args):
    import json
    import sys

    from rich import box
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from .cluster import ClusterError
    from .players import PlayerError, SpecError
    from .progress import note
    from .referee import record_folder, run_match, save_record

    err = Console(stderr=True)
    # No emoji codes (a spec like cmd:cat is not :cat:), and room for the whole table when
    # the output is not a terminal.
    out = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 120)

    def fail(message):
        print(f"trax-fpga referee: {message}", file=sys.stderr)
        return 1

    problem = _usage_problem(args)
    if problem:
        return fail(problem)
    record_dir = None
    if args.record:
        try:
            record_dir = record_folder(args.record)
        except ValueError as e:
            return fail(str(e))

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    task = progress.add_task("opening players", total=args.games)
    written = []
    # Without a terminal for the bar, a plain line a game on stderr, at once: a match takes
    # minutes, and standard output may be a pipe that shows nothing until the end.
    plain = not err.is_terminal
    if plain:
        note("trax-fpga referee", f"{args.games} game{'s' * (args.games != 1)} of "
                                  f"{args.white} against {args.black}: opening the players ...")

    def on_start(i, white, black):
        progress.update(task, description=f"game {i + 1}: {white} (White) v {black} (Black)")

    def on_game(i, rec):
        progress.advance(task)
        if record_dir is not None:
            written.append(save_record(record_dir, i, args.games, rec))
        if plain:
            note("trax-fpga referee", f"game {i + 1}/{args.games}: {rec.summary()}")
        if not args.json:
            out.print(f"game {i + 1:>3}: {rec.result_code:<7} {rec.summary()}",
                      markup=False, soft_wrap=True)
            out.file.flush()

    live, hooks = None, {"on_game": on_game, "on_start": on_start}
    if args.web is not None:    # the page's hooks call these, and open the players
        from .web.live import start_live
        live, hooks, problem = start_live(args, on_start, on_game)
        if problem:
            return fail(problem)
    try:
        with progress:
            match = run_match(args.white, args.black, games=args.games, seed=args.seed,
                              time_limit=_limits(args), max_moves=args.max_moves,
                              jobs=args.jobs, cluster=args.cluster, **hooks)
    except (SpecError, ClusterError) as e:
        return fail(str(e))
    except PlayerError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"{type(e).__name__}: {e}")
    finally:
        if live is not None:
            live.close()

    data = match.to_dict()
    if args.json:
        print(json.dumps(data))
        return 0

    white, black = _limits(args)
    per = f"{white:g} s" if white == black else f"{white:g} s (--white) / {black:g} s (--black)"
    table = Table(title=f"{args.games} game{'s' if args.games != 1 else ''}, "
                        f"{per} per answer, seed {args.seed}", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    for col in ("player", "won", "lost", "drawn", "illegal", "timeout", "answers",
                "mean ms", "max ms"):
        table.add_column(col, justify="left" if col == "player" else "right", no_wrap=True)
    notes = []
    for label, s in data["players"].items():
        short = label if len(label) <= 24 else label[:21] + "..."
        table.add_row(short, str(s["wins"]), str(s["losses"]), str(s["draws"]),
                      str(s["illegal"]), str(s["timeouts"]), str(s["moves"]),
                      f"{1000 * s['mean_time']:.1f}", f"{1000 * s['max_time']:.1f}")
        notes.append(f"  {label}: {s['id'] or '?'} ({s['clock']} clock)")
    out.print(table)
    for line in notes:
        out.print(line, markup=False, highlight=False)
    if written:
        out.print(f"{len(written)} game{'s' if len(written) != 1 else ''} written to "
                  f"{record_dir}/", markup=False)
    return 0
