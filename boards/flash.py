"""Programming a board with the first of its programmers that is installed.

Each board lists the programmers that can write it (``Board.programmers``), in order of
preference.  Every one of them writes the board's configuration flash (it survives a power
cycle) and restarts the FPGA from it:

* iCE40 boards: iceprog, then openFPGALoader.  iceprog is icestorm's programmer, made for
  exactly these FTDI-based boards, and needs no board name; openFPGALoader does the same job
  through its generic ``ice40_generic`` board.  Both use the FTDI's first channel.
* ULX3S (ECP5): openFPGALoader (``-b ulx3s -f``), then fujprog (``-j flash``), the ULX3S's own
  programmer.  Both use the board's FT231X as a JTAG adapter.

``--programmer`` picks one explicitly; a programmer that cannot write the board is refused.

YoWASP (which the build uses) has no programmer: programming needs USB access, which its
WebAssembly tools do not have.
"""

import json
import os
import shlex
import shutil
import subprocess

from .platforms import Board, get_board

__all__ = ["FlashError", "PROGRAMMERS", "INSTALL", "install_hint", "default_bitstream",
           "find_programmer", "flash_command", "flash"]

#: how to get each programmer
INSTALL = {
    "iceprog": "on Debian/Ubuntu `sudo apt-get install fpga-icestorm` (iceprog)",
    "openFPGALoader": "on Debian/Ubuntu `sudo apt-get install openfpgaloader`",
    "fujprog": "fujprog from the ULX3S project's releases (github.com/kost/fujprog)",
}

#: every programmer some board can use
PROGRAMMERS = tuple(INSTALL)


def install_hint(names):
    """How to get any of ``names`` (the programmers of one board)."""
    return ("install a programmer: " + "; or ".join(INSTALL[name] for name in names)
            + "; they are also in the OSS CAD Suite and in most distributions (the YoWASP "
              "packages the build uses cannot program boards: no USB access)")


class FlashError(Exception):
    pass


def default_bitstream(board_name):
    """Where ``trax-fpga build`` writes the board's bitstream by default."""
    return os.path.join("build", board_name, get_board(board_name).bitstream_name)


def _board(board):
    try:
        return board if isinstance(board, Board) else get_board(board)
    except ValueError as error:
        raise FlashError(str(error)) from None


def _board_programmers(board):
    return [name for name, _args in board.programmers]


def find_programmer(board, preference="auto"):
    """The programmer to use for ``board``: ``(name, path)``, or ``(name, None)`` if it is not
    installed.

    ``preference`` is "auto" (the first of the board's programmers on PATH; if none is, the
    first of them, not installed) or a programmer's name, which must be one of the board's.
    """
    board = _board(board)
    known = _board_programmers(board)
    if preference != "auto" and preference not in known:
        raise FlashError(f"{preference} cannot program the {board.name} "
                         f"({board.family_info.title}); use {' or '.join(known)}")
    candidates = known if preference == "auto" else [preference]
    for name in candidates:
        path = shutil.which(name)
        if path:
            return name, path
    return candidates[0], None


def flash_command(board, programmer, bitstream):
    """The exact command line that writes ``bitstream`` to ``board`` with ``programmer``."""
    board = _board(board)
    for name, args in board.programmers:
        if name == programmer:
            return [name, *args, str(bitstream)]
    raise FlashError(f"{programmer} cannot program the {board.name} "
                     f"({board.family_info.title}); use "
                     f"{' or '.join(_board_programmers(board))}")


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

    board = _board(board)
    explicit_bitstream = bitstream is not None
    bitstream = default_bitstream(board.name) if bitstream is None else bitstream
    name, path = find_programmer(board, programmer)
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
            say(err, f"note: {name} is not installed (not on PATH); {install_hint([name])}")
        if problem:
            say(err, f"note: {problem}")
        return 0

    if problem:
        raise FlashError(problem)
    warning = _build_warning(bitstream)
    if warning:
        say(err, f"trax-fpga flash: warning: {warning}")
    if path is None:
        known = _board_programmers(board)
        wanted = f"no programmer found on PATH ({' or '.join(known)})" if programmer == "auto" \
            else f"{name} not found on PATH"
        raise FlashError(f"{wanted}; {install_hint(known if programmer == 'auto' else [name])}")

    say(err, f"trax-fpga flash: {board.title}: {board.flash_note}")
    say(err, f"trax-fpga flash: {shlex.join(command)}")
    result = run(command)
    if result.returncode != 0:
        raise FlashError(f"{name} failed (exit {result.returncode}); is the board plugged in, "
                         f"and may you use its USB device (see docs/hardware.md, permissions)?")
    say(err, f"trax-fpga flash: done; the board's serial port is usually {board.serial_port} "
             f"({board.serial_note}): trax-fpga play --port {board.serial_port}")
    return 0
