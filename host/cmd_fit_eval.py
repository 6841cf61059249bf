"""``trax-fpga fit-eval``: fit the engine's ``EVAL`` weights to the recorded games
(:mod:`traxfpga.host.reference.fit_eval`) and print them beside the current ones, with how
well each foretells the winners of the games held out.  ``--records`` adds games of strong
play (``referee --record`` files: the board against a contest program, self-play at long
budgets), fitted and judged the same way, their held-out games' figure apart.  ``--write``
puts the fitted weights into ``hdl/eval_weights.py``, the one file the hardware and its
twin read (rebuild and rerun the tests after it)."""


def add_arguments(parser):
    parser.add_argument("--steps", type=int, default=400, metavar="N",
                        help="gradient descent steps (default 400)")
    parser.add_argument("--write", action="store_true",
                        help="write the fitted weights into hdl/eval_weights.py")
    parser.add_argument("--records", nargs="+", metavar="PATH",
                        help="also fit games of strong play: referee --record files, or "
                             "folders of them (*.txt, subfolders too); a drawn game is left out")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def strong_games(paths):
    """The games of ``referee --record`` files (or folders of ``*.txt``, subfolders too)
    with a winner, as the corpus's records (``moves``, ``expect.winner``).  Raises
    ValueError with one sentence for a path that holds no record, or a file that is not
    one."""
    from .positions import WINNERS, recorded_games
    games = []
    for f, rec in recorded_games(paths):
        if rec.note:
            raise ValueError(f"{f}: {rec.note}")
        code = rec.result.split()[0] if rec.result else ""
        if not code:
            raise ValueError(f"{f}: no '# result:' line (not a record of referee --record)")
        if code in WINNERS:
            games.append({"id": f.name, "variant": "trax", "moves": rec.moves,
                          "expect": {"winner": WINNERS[code]}})
    return games


def run(args):
    import json
    import sys

    from ..hdl import eval_weights
    from .reference.corpus import load_corpus
    from .reference.fit_eval import fit_corpus, write_weights

    if args.steps < 1:
        print("trax-fpga fit-eval: --steps must be at least 1", file=sys.stderr)
        return 1
    strong = []
    if args.records:
        try:
            strong = strong_games(args.records)
        except ValueError as e:
            print(f"trax-fpga fit-eval: {e}", file=sys.stderr)
            return 1
    print("fitting the EVAL weights to the recorded games"
          + (f" and {len(strong)} of strong play" if args.records else "") + " ...",
          file=sys.stderr, flush=True)
    figures = fit_corpus(load_corpus(), strong, steps=args.steps)
    if args.json:
        print(json.dumps(figures))
    else:
        pos = figures["positions"]
        print(f"positions: {pos['fit']} fitted, {pos['judge']} judged"
              + (f", {pos['judge_strong']} of strong play judged" if strong else ""))
        for name in ("current", "fitted"):
            f = figures[name]
            told = f"winners foretold: {100 * f['accuracy']:.1f}%"
            if f.get("accuracy_strong") is not None:
                told += f" (of strong play: {100 * f['accuracy_strong']:.1f}%)"
            print(f"{name:>8}: EVAL_WEIGHTS = {f['EVAL_WEIGHTS']}, EVAL_LINE = "
                  f"{tuple(f['EVAL_LINE'])}; {told}")
    if args.write:
        f = figures["fitted"]
        try:
            write_weights(eval_weights.__file__, f["EVAL_WEIGHTS"], f["EVAL_LINE"])
        except (OSError, ValueError) as e:
            print(f"trax-fpga fit-eval: cannot write the weights: {e}", file=sys.stderr)
            return 1
        print(f"written to {eval_weights.__file__}", file=sys.stderr)
    return 0
