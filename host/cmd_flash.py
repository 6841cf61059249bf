"""``trax-fpga flash``: program a board with a built bitstream (iceprog, openFPGALoader or
fujprog, as the board allows)."""

from ..boards.flash import PROGRAMMERS
from ..boards.platforms import BOARDS, DEFAULT_BOARD


def add_arguments(parser):
    parser.add_argument("--board", choices=list(BOARDS), default=DEFAULT_BOARD,
                        help=f"board to program (default: {DEFAULT_BOARD})")
    parser.add_argument("--bitstream", default=None, metavar="FILE",
                        help="bitstream to write (default: build/<board>/top.bin on iCE40, "
                             "top.bit on ECP5, where `trax-fpga build` puts it)")
    parser.add_argument("--programmer", choices=("auto", *PROGRAMMERS), default="auto",
                        help="programmer to use (default: auto = the first installed of the "
                             "board's: iceprog, then openFPGALoader on iCE40 boards; "
                             "openFPGALoader, then fujprog on the ULX3S)")
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
