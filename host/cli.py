"""The ``trax-fpga`` command line.

Each subcommand lives in its own module, which provides ``add_arguments(parser)``
and ``run(args) -> int`` (the exit code).  Command modules keep heavy imports
(Amaranth, pyserial, rich) inside ``run``, so building the parser stays fast.
"""

import argparse
import importlib
import sys

# name: (module, one-line help)
COMMANDS = {
    "replay":    ("traxfpga.host.cmd_replay",  "apply a game's moves on an engine and report the outcome"),
    "perft":     ("traxfpga.host.cmd_perft",   "count move sequences from the start position"),
    "show":      ("traxfpga.host.cmd_show",    "render a position as ASCII or SVG"),
    "play":      ("traxfpga.host.cmd_play",    "play Trax in the terminal"),
    "bench":     ("traxfpga.host.cmd_bench",   "benchmarks that print figures"),
    "demo":      ("traxfpga.host.cmd_demo",    "the main job: replay a recorded game and show the board"),
    "serve-sim": ("traxfpga.host.cmd_serve_sim", "serve the simulated device on a TCP socket or a pseudo-terminal"),
    "compare":   ("traxfpga.host.cmd_compare", "check a device (simulated or on a port) against the reference engine"),
    "referee":   ("traxfpga.host.cmd_referee", "contest games between two players, every move checked"),
    "fit-eval":  ("traxfpga.host.cmd_fit_eval", "fit the player's evaluation weights to the recorded games"),
    "book":      ("traxfpga.host.cmd_book", "make the board's opening book from its recorded games"),
    "build":     ("traxfpga.host.cmd_build", "synthesize, place and route the device for a board (YoWASP)"),
    "flash":     ("traxfpga.host.cmd_flash", "program a board with a built bitstream"),
    "web":       ("traxfpga.host.cmd_web", "play, watch and replay Trax in a browser"),
}


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("trax-fpga")
    except PackageNotFoundError:
        return "(not installed)"


class _HelpFormatter(argparse.HelpFormatter):
    """Help lines are not broken at hyphens, so that a spec (``cmd,per-game,cwd=DIR``) or
    an option named in a help text stays whole."""

    def _split_lines(self, text, width):
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="trax-fpga",
        description="Trax played by an FPGA: reference engine, hardware engine, device and host tools.")
    parser.add_argument("--version", action="version", version=f"trax-fpga {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text,
                           formatter_class=_HelpFormatter)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return importlib.import_module(args._module).run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
