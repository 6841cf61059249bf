"""Programming a board: iceprog or openFPGALoader, whichever is installed.

Both write the bitstream to the board's SPI flash through the FTDI's first channel (the
configuration survives a power cycle) and restart the FPGA from it.

Choice when both are installed: iceprog.  It is icestorm's programmer, made for exactly these
FTDI-based iCE40 boards, and needs no board name; openFPGALoader does the same job for them
through its generic ``ice40_generic`` board.  ``--programmer`` picks one explicitly.

YoWASP (which the build uses) has no programmer: programming needs USB access, which its
WebAssembly tools do not have.
"""

import json
import os
import shlex
import shutil
import subprocess

from .platforms import Board, get_board

__all__ = ["FlashError", "PROGRAMMERS", "INSTALL_HINT", "default_bitstream", "find_programmer",
           "flash_command", "flash"]

#: in order of preference when several are installed
PROGRAMMERS = ("iceprog", "openFPGALoader")

INSTALL_HINT = (
    "install a programmer: on Debian/Ubuntu `sudo apt-get install fpga-icestorm` (iceprog) or "
    "`sudo apt-get install openfpgaloader`; both are also in the OSS CAD Suite and in most "
    "distributions (the YoWASP packages the build uses cannot program boards: no USB access)")


class FlashError(Exception):
    pass


def default_bitstream(board_name):
    """Where ``trax-fpga build`` writes the board's bitstream by default."""
    return os.path.join("build", board_name, "top.bin")


def find_programmer(preference="auto"):
    """The programmer to use: ``(name, path)``, or ``(name, None)`` if it is not installed.

    ``preference`` is "auto" (the first of ``PROGRAMMERS`` on PATH; if none is, the first of
    them, not installed) or a programmer's name.
    """
    if preference not in ("auto", *PROGRAMMERS):
        raise FlashError(f"unknown programmer {preference!r}; known: {', '.join(PROGRAMMERS)}")
    candidates = PROGRAMMERS if preference == "auto" else (preference,)
    for name in candidates:
        path = shutil.which(name)
        if path:
            return name, path
    return candidates[0], None


def flash_command(board, programmer, bitstream):
    """The exact command line that writes ``bitstream`` to ``board`` with ``programmer``."""
    board = board if isinstance(board, Board) else get_board(board)
    if programmer == "iceprog":
        return ["iceprog", *board.iceprog_args, str(bitstream)]
    if programmer == "openFPGALoader":
        return ["openFPGALoader", *board.openfpgaloader_args, str(bitstream)]
    raise FlashError(f"unknown programmer {programmer!r}; known: {', '.join(PROGRAMMERS)}")


def _build_warning(bitstream):
    """A warning if the build report next to ``bitstream`` says the design missed timing."""
    summary = os.path.join(os.path.dirname(bitstream), "trax-build.json")
    try:
        with open(summary) as file:
            report = json.load(file)
    except (OSError, ValueError):
        return None
    if report.get("timing_met") is False:
        return (f"this bitstream missed timing (fmax {report.get('fmax_mhz')} MHz < "
                f"{report.get('clock_mhz')} MHz, see {summary}); it may misbehave")
    return None


def flash(board, *, bitstream=None, programmer="auto", dry_run=False, out=None, err=None,
          run=subprocess.run):
    """Program ``board`` (or with ``dry_run`` only print the command).  Returns an exit code.

    Raises ``FlashError`` for what the user must fix (no bitstream, no programmer).
    """
    def say(stream, text):
        if stream is not None:
            print(text, file=stream, flush=True)

    try:
        board = board if isinstance(board, Board) else get_board(board)
    except ValueError as error:
        raise FlashError(str(error)) from None
    explicit_bitstream = bitstream is not None
    bitstream = default_bitstream(board.name) if bitstream is None else bitstream
    name, path = find_programmer(programmer)
    command = flash_command(board, name, bitstream)

    if not os.path.isfile(bitstream):
        problem = f"bitstream {bitstream} not found"
    elif os.path.getsize(bitstream) == 0:
        problem = f"bitstream {bitstream} is empty"
    else:
        problem = None
    if problem and not explicit_bitstream:
        problem += f"; build it first with `trax-fpga build --board {board.name}`"

    if dry_run:
        say(out, shlex.join(command))
        if path is None:
            say(err, f"note: {name} is not installed (not on PATH); {INSTALL_HINT}")
        if problem:
            say(err, f"note: {problem}")
        return 0

    if problem:
        raise FlashError(problem)
    warning = _build_warning(bitstream)
    if warning:
        say(err, f"trax-fpga flash: warning: {warning}")
    if path is None:
        wanted = "no programmer found on PATH (iceprog or openFPGALoader)" if programmer == "auto" \
            else f"{name} not found on PATH"
        raise FlashError(f"{wanted}; {INSTALL_HINT}")

    say(err, f"trax-fpga flash: {board.title}: {board.flash_note}")
    say(err, f"trax-fpga flash: {shlex.join(command)}")
    result = run(command)
    if result.returncode != 0:
        raise FlashError(f"{name} failed (exit {result.returncode}); is the board plugged in, "
                         f"and may you use its USB device (see docs/hardware.md, permissions)?")
    say(err, f"trax-fpga flash: done; the board's serial port is usually {board.serial_port} "
             f"({board.serial_note}): trax-fpga play --port {board.serial_port}")
    return 0
