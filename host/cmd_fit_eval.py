"""``trax-fpga fit-eval``: fit the engine's ``EVAL`` weights to the recorded games
(:mod:`traxfpga.host.reference.fit_eval`) and print them beside the current ones, with how
well each foretells the winners of the games held out.  ``--records`` adds games of strong
play (``referee --record`` files: the board against a contest program, self-play at long
budgets), fitted and judged the same way, their held-out games' figure apart.  ``--write``
puts the fitted weights into ``hdl/eval_weights.py``, the one file the hardware and its
twin read (rebuild and rerun the tests after it).  ``--features`` tries features the engine
does not have, beside its own, and prints how many more winners they foretell."""


def add_arguments(parser):
    parser.add_argument("--steps", type=int, default=400, metavar="N",
                        help="gradient descent steps (default 400)")
    parser.add_argument("--write", action="store_true",
                        help="write the fitted weights into hdl/eval_weights.py")
    parser.add_argument("--records", nargs="+", metavar="PATH",
                        help="also fit games of strong play: referee --record files, or "
                             "folders of them (*.txt, subfolders too); a drawn game is left out")
    parser.add_argument("--features", metavar="NAMES",
                        help="also try features the engine does not have, beside its own "
                             "(comma-separated: threats, the placements that would complete "
                             "a loop or a line, by kind; ends, the open path ends; reach, how "
                             "near the longest path comes to a line; or all), fitted as real "
                             "numbers and judged the same way")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def feature_names(text):
    """The names of ``--features`` (``all``: every one), in EXTRA_FEATURES's order.
    Raises ValueError with one sentence for a name it does not know."""
    from .reference.fit_eval import EXTRA_FEATURES
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(EXTRA_FEATURES)
    unknown = [n for n in names if n not in EXTRA_FEATURES]
    if unknown or not names:
        raise ValueError(f"--features: unknown feature {unknown[0] if unknown else repr(text)} "
                         f"(known: {', '.join(EXTRA_FEATURES)}, or all)")
    return [n for n in EXTRA_FEATURES if n in names]


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
    if args.features and args.write:
        print("trax-fpga fit-eval: --write takes the engine's own features: leave out "
              "--features", file=sys.stderr)
        return 1
    strong, extra = [], []
    try:
        if args.features is not None:
            extra = feature_names(args.features)
        if args.records:
            strong = strong_games(args.records)
    except ValueError as e:
        print(f"trax-fpga fit-eval: {e}", file=sys.stderr)
        return 1
    print("fitting the EVAL weights to the recorded games"
          + (f" and {len(strong)} of strong play" if args.records else "") + " ...",
          file=sys.stderr, flush=True)
    figures = fit_corpus(load_corpus(), strong, extra, steps=args.steps)
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
        if extra:
            print_study(figures["study"])
    if args.write:
        f = figures["fitted"]
        try:
            write_weights(eval_weights.__file__, f["EVAL_WEIGHTS"], f["EVAL_LINE"])
        except (OSError, ValueError) as e:
            print(f"trax-fpga fit-eval: cannot write the weights: {e}", file=sys.stderr)
            return 1
        print(f"written to {eval_weights.__file__}", file=sys.stderr)
    return 0


def print_study(study):
    """The extra features' figures: real-valued weights fitted with and without them."""
    def told(f):
        text = f"winners foretold: {100 * f['accuracy']:.1f}%"
        if f.get("accuracy_strong") is not None:
            text += f" (of strong play: {100 * f['accuracy_strong']:.1f}%)"
        return text
    print("real-valued weights, the engine's features alone: " + told(study["engine"]))
    print(f"  with {', '.join(study['features'])}: " + told(study["extended"])
          + f"; weights {study['extended']['weights']}")
