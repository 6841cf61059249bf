"""``trax-fpga fit-eval``: fit the engine's ``EVAL`` weights to the recorded games
(:mod:`traxfpga.host.reference.fit_eval`) and print them beside the current ones, with how well each
foretells the winners of the games held out.  ``--write`` puts the fitted weights into
``hdl/eval_weights.py``, the one file the hardware and its twin read (rebuild and rerun
the tests after it)."""


def add_arguments(parser):
    parser.add_argument("--steps", type=int, default=400, metavar="N",
                        help="gradient descent steps (default 400)")
    parser.add_argument("--write", action="store_true",
                        help="write the fitted weights into hdl/eval_weights.py")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args):
    import json
    import sys

    from ..hdl import eval_weights
    from .reference.corpus import load_corpus
    from .reference.fit_eval import fit_corpus, write_weights

    if args.steps < 1:
        print("trax-fpga fit-eval: --steps must be at least 1", file=sys.stderr)
        return 1
    print("fitting the EVAL weights to the recorded games ...", file=sys.stderr, flush=True)
    figures = fit_corpus(load_corpus(), steps=args.steps)
    if args.json:
        print(json.dumps(figures))
    else:
        pos = figures["positions"]
        print(f"positions: {pos['fit']} fitted, {pos['judge']} judged")
        for name in ("current", "fitted"):
            f = figures[name]
            print(f"{name:>8}: EVAL_WEIGHTS = {f['EVAL_WEIGHTS']}, EVAL_LINE = "
                  f"{tuple(f['EVAL_LINE'])}; winners foretold: {100 * f['accuracy']:.1f}%")
    if args.write:
        f = figures["fitted"]
        try:
            write_weights(eval_weights.__file__, f["EVAL_WEIGHTS"], f["EVAL_LINE"])
        except (OSError, ValueError) as e:
            print(f"trax-fpga fit-eval: cannot write the weights: {e}", file=sys.stderr)
            return 1
        print(f"written to {eval_weights.__file__}", file=sys.stderr)
    return 0
