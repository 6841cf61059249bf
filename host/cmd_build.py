"""``trax-fpga build``: synthesize, place and route a design for a board with the YoWASP tools."""

import argparse

from ..boards.build import DESIGNS
from ..boards.platforms import BOARDS, DEFAULT_BOARD
from ..hdl.players import PLAYERS
from ..hdl.search_params import MAX_DEFENCE, MAX_DEPTH


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
    parser.add_argument("--max-depth", type=int, choices=range(2, 8), default=None, metavar="D",
                        help="device, --player search: the searcher's deepest search for a "
                             "win by force, in its "
                             f"moves, 2 .. 7 (default {MAX_DEPTH}: {2 * MAX_DEPTH - 1} plies; 2 turns the deepening "
                             "off; deeper passes run only while the time budget lasts)")
    parser.add_argument("--max-defence", type=int, choices=range(1, 16), default=None,
                        metavar="D",
                        help="device, --player search: the searcher's deepest test of its "
                             "answer against the "
                             "opponent's win by force, in the opponent's moves, 1 .. 15 "
                             f"(default {MAX_DEFENCE}; 1 turns the tests off; deeper tests run only while "
                             "the time budget lasts)")
    parser.add_argument("--perft", action=argparse.BooleanOptionalAction, default=None,
                        help="device: include the perft unit for :perft (default: where the "
                             "board's part has room for it, all but the iCEBreaker)")
    parser.add_argument("--cores", type=_positive_int, default=None, metavar="N",
                        help="device: search cores, each an engine and its searcher (and "
                             "perft unit) sharing every answer (default: the board's, as many "
                             "as fit: 1 on the iCE40 boards)")
    parser.add_argument("--player", choices=PLAYERS, default=None,
                        help="device: the player: pvs, the search sequencer running "
                             "principal variation search with iterative deepening and a "
                             "threat search (default; on the board's cores, 12 on the 85F), "
                             "or search, the hand-wired searcher")
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
                       max_depth=args.max_depth, max_defence=args.max_defence,
                       perft=args.perft, cores=args.cores, player=args.player)
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
