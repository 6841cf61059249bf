"""The host client: drives a Trax device (a real board or the simulated one) in engine mode.

:class:`DeviceClient` speaks the ``:`` commands of ``docs/protocol.md`` over anything with
pyserial's ``Serial`` interface: a port opened with ``serial.serial_for_url`` (``/dev/ttyUSB1``,
``socket://127.0.0.1:7015``, ...) or :class:`~traxfpga.sim.device.SimSerial`.  It keeps its
own record of the game (the variant and the moves the device accepted) and never lets the
device's state silently differ from it: after a timeout, a line it cannot understand or a
transport error from the device (``busy``, ``framing``, ``overlong``), it resynchronises (ends
any partial line, drains what comes back, resets the device and replays the game, checking
every answer) and then repeats the command once.  A port that fails (an ``OSError``, such as
pyserial's ``SerialException`` when the board goes away) ends with :class:`DeviceError` at
once.

A device's ``syntax`` answer to a move the reference reads as well formed is also taken as
garbage (a garbage prefix makes any line malformed).

It is also an engine for ``trax-fpga replay`` (``play``, ``board_rows``, ``close``), listed in
:mod:`.engines` as ``sim`` (the simulated device, in process) and ``serial:PORT[@BAUD]``.
"""

from __future__ import annotations

import re

from ..firmware.text import COLOURS, LINE_MAX, REASONS, VARIANTS
from .reference.echo import shown
from .reference.trax import ILLEGAL_CODES, Illegal, Step, parse_move

__all__ = ["DeviceClient", "DeviceError", "open_client", "DEFAULT_BAUD", "DEFAULT_TIMEOUT"]

from .serial_url import DEFAULT_BAUD, parse_serial  # noqa: E402
#: Seconds to wait for each answer line from a real port.
DEFAULT_TIMEOUT = 3.0

# the device's words for variants and for Winner and Reason values, "-" for none (firmware/text.py)
_VARIANT = "(" + "|".join(map(re.escape, VARIANTS)) + ")"
_COLOUR = "(" + "|".join(map(re.escape, COLOURS)) + ")"
_REASON = "(" + "|".join(map(re.escape, REASONS)) + ")"
_RESULT = re.compile(r"= ok (\d+) (\d+) (\d+) (\d+) " + _COLOUR + " " + _REASON)
_MOVE_RESULT = re.compile(_RESULT.pattern + r" (\S+)")
_STATUS = re.compile("= " + _VARIANT + r" (\d+) (\d+) (\d+) " + _COLOUR + " " + _REASON
                     + " " + _COLOUR)
_BOARD_END = re.compile(r"= ok (\d+) (\d+)")
_ROW = re.compile(r"(?:\.|NE|NS|NW|ES|EW|SW)(?: (?:\.|NE|NS|NW|ES|EW|SW))*")
_ERROR = re.compile(r"! ([a-z-]+)")

#: Error codes a move can get from the device: the reference's illegal-move codes (any other
#: error, such as busy, framing or overlong, says the line was damaged or mistimed: the client
#: resynchronises).
MOVE_ERRORS = frozenset(ILLEGAL_CODES)


class DeviceError(Exception):
    """The device misbehaves: no answer, or answers that make no sense, even after
    resynchronising."""


class _Garbage(Exception):
    """An answer the client cannot make sense of (or none): resynchronise."""


def _said(data):
    """What the device sent, for a message: cut short and escaped (a broken device may send
    anything, at any length)."""
    if isinstance(data, bytes):
        data = data.decode("ascii", "backslashreplace")
    return shown(data, 40)


def _none(name):
    return None if name == "-" else name


class DeviceClient:
    """Engine-mode client of a Trax device.

    Parameters
    ----------
    port :
        An open pyserial-like port: ``write``, ``read_until``, ``reset_input_buffer``,
        ``close``; its ``timeout`` bounds each read.
    variant : str
        The game to start (the device is reset to it by :meth:`reset`, which the
        constructor calls).
    name : str
        How the engine is named in reports.
    retries : int
        Resynchronisations tried for one command before giving up with :class:`DeviceError`.
    """

    def __init__(self, port, variant="trax", *, name="device", retries=2):
        self.port = port
        self.name = name
        self.retries = retries
        self.variant = variant
        self.moves: list = []
        #: resynchronisations so far
        self.resyncs = 0
        #: commands sent so far
        self.commands = 0
        self.reset(variant)

    # -- lines ------------------------------------------------------------------------------
    def _io(self, method, *args):
        """Call a port method.  A port that fails (pyserial's SerialException is an OSError:
        a closed socket, a pulled USB cable, a closed pty) is gone for good, so no
        resynchronisation is tried: DeviceError at once."""
        try:
            return method(*args)
        except OSError as e:
            raise DeviceError(f"{self.name}: the connection was lost ({e})") from None

    def _send(self, line):
        if not all(0x20 <= ord(ch) < 0x7F for ch in line):
            raise ValueError(f"{line!r}: only printable ASCII can be sent on a line")
        self.commands += 1
        self._io(self.port.write, line.encode("ascii") + b"\n")

    def _read_line(self):
        raw = self._io(self.port.read_until, b"\n")
        if not raw.endswith(b"\n"):
            raise _Garbage(f"no answer (timeout){f' after {_said(raw)}' if raw else ''}")
        try:
            return raw[:-1].decode("ascii").rstrip("\r")
        except UnicodeDecodeError:
            raise _Garbage(f"garbage from the device: {_said(raw)}") from None

    def _exchange(self, line, pattern, rows=False):
        """Send a command; return (match of its status line, rows before it) or raise
        _Garbage.  An error line returns (None, code)."""
        self._send(line)
        got = []
        while True:
            text = self._read_line()
            error = _ERROR.fullmatch(text)
            if error:
                if got:
                    raise _Garbage(f"{line!r}: an error after rows: {_said(text)}")
                return None, error.group(1)
            if text.startswith("= "):
                match = pattern.fullmatch(text)
                if not match:
                    raise _Garbage(f"{line!r}: unexpected answer {_said(text)}")
                return match, got
            if rows and _ROW.fullmatch(text):
                got.append(text)
                continue
            raise _Garbage(f"{line!r}: unexpected line {_said(text)}")

    def _command(self, line, pattern, rows=False, errors=frozenset(), ply=None):
        """Run a command, resynchronising and repeating it when the answer is garbage, a
        transport error, or (``ply``: the ply the answer must report) out of step.
        Returns (match, rows) or (None, error code in ``errors``)."""
        for attempt in range(self.retries + 1):
            try:
                match, extra = self._exchange(line, pattern, rows)
                if match is None and extra not in errors:
                    raise _Garbage(f"{line!r}: error {extra!r}")
                if match is not None and ply is not None and int(match.group(4)) != ply:
                    raise _Garbage(f"{line!r}: the device counts {match.group(4)} moves, "
                                   f"the client {ply}")
                return match, extra
            except _Garbage as e:
                problem = e
                if attempt == self.retries:
                    break
                self._resync(problem)
        raise DeviceError(f"{self.name}: {problem} (after {self.retries} resynchronisations)")

    # -- resynchronising -------------------------------------------------------------------------
    def drain(self, quiet=0.3):
        """End any partial line and read until the device has been quiet for ``quiet``
        seconds; returns what it said."""
        old = getattr(self.port, "timeout", None)
        if old is not None:
            self.port.timeout = min(old, quiet)
        try:
            self._io(self.port.write, b"\n")
            lines = []
            while True:
                raw = self._io(self.port.read_until, b"\n")
                if not raw:
                    return lines
                lines.append(raw)
        finally:
            if old is not None:
                self.port.timeout = old

    def _resync(self, reason=None):
        """Bring the device to the client's game: reset it and replay every move."""
        self.resyncs += 1
        for attempt in range(self.retries + 1):
            try:
                self.drain()
                self._io(self.port.reset_input_buffer)
                self._replay()
                return
            except _Garbage as e:
                problem = e
        raise DeviceError(f"{self.name}: cannot resynchronise ({reason}; then {problem})")

    def _replay(self):
        match, _ = self._exchange(f":reset {self.variant}", re.compile(re.escape(
            f"= {self.variant}")))
        if match is None:
            raise _Garbage(f":reset {self.variant} refused")
        for i, move in enumerate(self.moves):
            match, _ = self._exchange(f":play {move}", _RESULT)
            if match is None or int(match.group(4)) != i + 1:
                raise _Garbage(f"replaying move {i + 1} ({move}) failed")
        status = self.status(resync=False)
        if status["ply"] != len(self.moves):
            raise _Garbage(f"after replaying {len(self.moves)} moves the device has "
                           f"ply {status['ply']}")

    # -- commands ------------------------------------------------------------------------------
    def reset(self, variant=None):
        """A new game (of ``variant``, default the current one)."""
        variant = variant or self.variant
        pattern = re.compile(re.escape(f"= {variant}"))
        self.variant, self.moves = variant, []
        self._command(f":reset {variant}", pattern)

    def play(self, move):
        """Play ``move`` (notation, sent as it is) for the side to move.

        Returns a :class:`~traxfpga.host.reference.trax.Step`; raises
        :class:`~traxfpga.host.reference.trax.Illegal` with the device's code when it
        refuses the move (the position is then unchanged).
        """
        if not move or not all(0x21 <= ord(ch) < 0x7F for ch in move):
            raise Illegal("syntax", f"{shown(move)} cannot be sent to the device (only "
                                    f"printable ASCII without spaces).", move)
        if len(":play ") + len(move) > LINE_MAX:
            raise Illegal("syntax", f"{shown(move)} is longer than the device's line "
                                    f"({LINE_MAX} characters).", move)
        # A garbage prefix also makes a line malformed: "syntax" for a well-formed move is
        # taken as a transport problem (resynchronise and repeat), not as the device's word.
        try:
            parse_move(move)
            errors = MOVE_ERRORS - {"syntax"}
        except Illegal:
            errors = MOVE_ERRORS
        match, error = self._command(f":play {move}", _RESULT, errors=errors,
                                     ply=len(self.moves) + 1)
        if match is None:
            raise Illegal(error, f"the device refused {move} ({error}).", move)
        return self._step(match, move)

    def _step(self, match, move):
        placed, width, height = (int(match.group(i)) for i in range(1, 4))
        self.moves.append(move)
        return Step(move, placed, (width, height), _none(match.group(5)), _none(match.group(6)))

    def sync(self, variant, moves):
        """Bring the device to the game ``moves`` of ``variant`` with as few commands as
        possible: undo back to the common prefix, then play the rest (Illegal if the device
        refuses one of them)."""
        if variant != self.variant:
            self.reset(variant)
        common = 0
        while common < min(len(moves), len(self.moves)) and moves[common] == self.moves[common]:
            common += 1
        while len(self.moves) > common:
            self.undo()
        for move in moves[common:]:
            self.play(move)

    def board_move(self):
        """Let the device choose and play a move for the side to move; its Step."""
        match, error = self._command(":move", _MOVE_RESULT, errors={"game-over", "nomove"},
                                     ply=len(self.moves) + 1)
        if match is None:
            raise DeviceError(f"{self.name}: no move ({error})")
        return self._step(match, match.group(7))

    def undo(self):
        """Take back the last move (IndexError when there is none)."""
        match, error = self._command(":undo", _RESULT, errors={"no-undo"},
                                     ply=max(len(self.moves) - 1, 0))
        if match is None:
            if self.moves:
                raise DeviceError(f"{self.name}: no undo after {len(self.moves)} moves")
            raise IndexError("no move to undo")
        self.moves.pop()
        return int(match.group(1))

    def board_rows(self):
        """The position in the canonical row format."""
        match, rows = self._command(":board", _BOARD_END, rows=True)
        width, height = int(match.group(1)), int(match.group(2))
        if len(rows) != height or any(len(r.split()) != width for r in rows):
            raise DeviceError(f"{self.name}: a {width}x{height} board came as {rows}")
        return rows

    def status(self, resync=True):
        """``{"variant", "width", "height", "ply", "winner", "reason", "role"}``."""
        if resync:
            match, _ = self._command(":status", _STATUS)
        else:
            match, _ = self._exchange(":status", _STATUS)
            if match is None:
                raise _Garbage(":status refused")
        return {"variant": match.group(1), "width": int(match.group(2)),
                "height": int(match.group(3)), "ply": int(match.group(4)),
                "winner": _none(match.group(5)), "reason": _none(match.group(6)),
                "role": _none(match.group(7))}

    def version(self):
        match, _ = self._command(":version", re.compile(r"= trax-fpga protocol (\d+) capacity (\d+)"))
        return {"protocol": int(match.group(1)), "capacity": int(match.group(2))}

    def close(self):
        self.port.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_client(spec, variant="trax", *, timeout=None, sim_args=None):
    """A client for ``spec``: ``"sim"`` (the simulated device, in this process) or a pyserial
    URL or device path, optionally ``PORT@BAUD``.  ``timeout`` (seconds per answer line)
    defaults to :data:`DEFAULT_TIMEOUT`, read at the call."""
    if spec == "sim":
        from ..sim.device import DeviceSim, SimSerial
        port = SimSerial(DeviceSim(**(sim_args or {})), owns_sim=True)
        return DeviceClient(port, variant, name="sim")
    import serial
    url, baudrate = parse_serial(spec)         # (a SerialSpecError is a ValueError)
    port = serial.serial_for_url(url, baudrate=baudrate,
                                 timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
    try:
        return DeviceClient(port, variant, name=url)
    except DeviceError as e:
        port.close()
        raise DeviceError(f"{e}; is a trax-fpga device on this port at {baudrate} baud?") \
            from None
    except Exception:
        port.close()
        raise
