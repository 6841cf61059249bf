"""``trax-fpga build``: synthesize, place and route a design for a board with the YoWASP tools."""

import argparse

from ..boards.build import DESIGNS
from ..boards.platforms import BOARDS, DEFAULT_BOARD


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def add_arguments(parser):
    parser.add_argument("--board", choices=list(BOARDS), default=DEFAULT_BOARD,
                        help=f"board to build for (default: {DEFAULT_BOARD})")
    parser.add_argument("--design", choices=DESIGNS, default="device",
                        help="what to build: the Trax device (default) or the board self-test "
                             "(serial echo and LED heartbeat, for checking a board's wiring)")
    parser.add_argument("--capacity", type=_positive_int, default=None, metavar="N",
                        help="board capacity N (N x N cells; default: the board's default)")
    parser.add_argument("--baud", type=_positive_int, default=115200, metavar="B",
                        help="UART baud rate (default: 115200)")
    parser.add_argument("--clock", type=_positive_float, default=None, metavar="MHZ",
                        help="PLL output clock in MHz (default: the board's default)")
    parser.add_argument("--perft", action=argparse.BooleanOptionalAction, default=None,
                        help="device: include the perft unit for :perft (default: where the "
                             "board's part has room for it, all but the iCEBreaker)")
    parser.add_argument("--cores", type=_positive_int, default=None, metavar="N",
                        help="device: search cores, each an engine and its search sequencer "
                             "(and perft unit) sharing every answer (default: the board's, as "
                             "many as fit: " + ", ".join(
                                 f"{board.cores} on the {name}" for name, board in BOARDS.items()
                                 if board.cores > 1) + ", else 1)")
    parser.add_argument("--think-time", type=_positive_float, default=None, metavar="SECONDS",
                        help="device: the player's budget an answer, in seconds of the clock "
                             "(default 0.8: the contest's second, the serial line included)")
    parser.add_argument("--table", action=argparse.BooleanOptionalAction, default=None,
                        help="device: each search core has the threat search's transposition "
                             "table, in SPRAM or block RAM, and the opening book (default: "
                             "the board's)")
    parser.add_argument("--scoped", action="store_true",
                        help="device: the player's threat search scans in scope (a core's "
                             "lists take block RAM: docs/player.md, \"Scoped scans\"; no "
                             "board's default)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="build directory (default: build/<board>)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as one JSON object")


def run(args):
    import json
    import sys

    from ..boards.build import BuildError, TimingError, build, format_report

    try:
        report = build(args.board, design=args.design, capacity=args.capacity, baud=args.baud,
                       clock_mhz=args.clock, out_dir=args.out, log=sys.stderr,
                       perft=args.perft, cores=args.cores, think_time=args.think_time,
                       scoped=args.scoped, table=args.table)
    except TimingError as error:
        if args.json:
            print(json.dumps(error.report, indent=2))
        else:
            print(format_report(error.report))
        print(f"trax-fpga build: error: {error}", file=sys.stderr)
        return 1
    except BuildError as error:
        print(f"trax-fpga build: error: {error}", file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report))
    return 0
