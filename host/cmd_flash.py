"""``trax-fpga flash``: program a board with a built bitstream (iceprog or openFPGALoader)."""

from ..boards.platforms import BOARDS, DEFAULT_BOARD

PROGRAMMERS = ("auto", "openFPGALoader", "iceprog")


def add_arguments(parser):
    parser.add_argument("--board", choices=list(BOARDS), default=DEFAULT_BOARD,
                        help=f"board to program (default: {DEFAULT_BOARD})")
    parser.add_argument("--bitstream", default=None, metavar="FILE",
                        help="bitstream to write (default: build/<board>/top.bin, where "
                             "`trax-fpga build` puts it)")
    parser.add_argument("--programmer", choices=PROGRAMMERS, default="auto",
                        help="programmer to use (default: auto = openFPGALoader if installed, "
                             "else iceprog)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the exact command without running it")


def run(args):
    import sys

    from ..boards.flash import FlashError, flash

    try:
        return flash(args.board, bitstream=args.bitstream, programmer=args.programmer,
                     dry_run=args.dry_run, out=sys.stdout, err=sys.stderr)
    except FlashError as error:
        print(f"trax-fpga flash: error: {error}", file=sys.stderr)
        return 1
