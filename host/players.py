"""Contest players for the referee, behind one interface.

A player is opened from a *spec* string (:func:`open_player`):

``ref``
    the reference AI (:func:`traxfpga.host.reference.ai.choose_move`), seeded;
``random``
    a uniformly random legal move, seeded;
``model`` (``model,nodes=N``, ``model,cores=N``)
    the board's player in software: the search sequencer's twin
    (:func:`traxfpga.host.reference.pvs.run_cores`, the same program on the reference
    engine), its budget ``nodes`` legal placements (default :data:`MODEL_NODES`; the
    iCEBreaker's board searches about 225,000 in its 0.8 s) instead of cycles, on ``cores``
    search cores (default 1), for quick studies;
``sim`` (``sim:cxxrtl``, ``sim:pysim``; ``sim,board=NAME``, ``sim,cores=N``,
``sim,nodes=N``, ``sim,cap=N``, ``sim,think=S``)
    the simulated board (:class:`~traxfpga.sim.device.DeviceSim`) over its simulated serial
    line; its answers are timed in *simulated* time (clock cycles / clock frequency);
    ``board=NAME`` simulates that board's device (e.g. ``sim,board=ulx3s-25f``: 50 MHz,
    the perft units and three search cores) instead of the iCEBreaker's (24 MHz, one
    core); ``cores=N`` sets the number of search cores; ``nodes=N`` stops each search
    after N legal placements too (a quicker, weaker board: the twin ``model,nodes=N``
    plays the same moves); ``cap=N`` cuts a root move's threat test short after N AND
    nodes (the devices have no cap: 0), to match the device against itself; ``think=S``
    gives its player S seconds of its clock an answer instead of the devices' 0.8
    (``THINK_TIME``), for self-play at long budgets or a board given the time its opponent
    has (the referee's time limit must allow it: ``--time-white``, ``--time-black``);
``serial:PORT`` (``serial:PORT@BAUD``)
    a real board over pyserial: any pyserial URL (``/dev/ttyUSB1``,
    ``socket://127.0.0.1:7000``), 115200 baud unless ``@BAUD`` is given;
``cmd:COMMAND`` (``cmd,OPTION,...:COMMAND``)
    any program speaking the contest protocol on its stdin and stdout (split like a shell
    command line, run without a shell), e.g. another team's contest client.  Options:
    ``per-game`` starts a fresh process for every game (for programs that play one game
    per run); the new process is started, and its ``-T`` answered, before the game's clock
    starts, so its start-up is never charged to an answer; ``cwd=DIR`` runs the program in
    ``DIR`` (a relative program path is found there too), for programs that read their
    files by a relative path.  Example:
    ``cmd,per-game,cwd=/opt/trax:./trax --client``.

Every player has:

``start(colour, *, limit=None) -> str | None``
    begin a new game in which the player is ``colour`` (``"white"`` or ``"black"``); as
    White it returns its first move, as Black ``None``;
``reply(move, *, limit=None) -> str``
    the opponent's move (already checked by the referee); returns the player's answer line
    exactly as it came (the referee checks it);
``last_time``
    seconds the last answer took: wall clock, or simulated time for ``sim``;
``clock``
    ``"wall"`` or ``"simulated"``;
``name``, ``ident``
    the spec, and what the player calls itself (its answer to ``-T``);
``seed(n)``
    reseed (players without randomness ignore it);
``close()``
    release the program, port or simulator (also a context manager).

``limit`` is the time limit in seconds: a protocol player waits that long (in its own
clock) for the answer and raises :class:`Fault` with kind ``"timeout"`` when none came.
:class:`Fault` is raised for every protocol failure that is the player's doing: no answer,
a closed program or port, a line sent when no answer was due.

The three protocol-speaking players (``sim``, ``serial``, ``cmd``) are one
:class:`ProtocolPlayer` over a line transport (:class:`SimTransport`,
:class:`SerialTransport`, :class:`ProcessTransport`).  The contest protocol: ``-T`` is
answered with a player ID line (sent once when the player is opened, and again after a
restart); ``-W`` starts a game as White and is answered with the first move; ``-B`` starts a
game as Black and is answered with nothing; every opponent move line is answered with the
player's move line.  A line starting with ``!`` is an error line.
"""

from __future__ import annotations

import collections
import math
import os
import queue
import random
import shlex
import subprocess
import threading
import time

__all__ = ["PLAYER_KINDS", "MODEL_NODES", "open_player", "split_specs", "Player",
           "ProtocolPlayer", "EnginePlayer", "Fault", "PlayerError", "SpecError", "OpenError",
           "LineTransport", "SimTransport", "SerialTransport", "ProcessTransport"]

#: Spec names, for messages and ``--help``.
PLAYER_KINDS = ("ref", "random", "model[,nodes=N][,cores=N]",
                "sim[,board=NAME][,cores=N][,nodes=N][,cap=N][,think=S]",
                "serial:PORT[@BAUD]",
                "cmd[,per-game][,cwd=DIR]:COMMAND")
#: Options of ``cmd``.
CMD_OPTIONS = ("per-game", "cwd=DIR")
#: The players reached through a transport (:func:`open_player`); the in-process ones are
#: :attr:`EnginePlayer.IDENTS`.
TRANSPORT_KINDS = ("sim", "serial", "cmd")


#: The twin's default budget in legal placements: about a second of this machine's Python
#: for a mid-game answer (the twin searches some 15,000 a second).
MODEL_NODES = 10_000


def split_specs(text):
    """The player specs of a comma-separated list, e.g. ``random,cmd,per-game,cwd=DIR:./trax``
    is ``["random", "cmd,per-game,cwd=DIR:./trax"]``: a part begins a new spec only when it
    begins with a player's name (:data:`TRANSPORT_KINDS` or :attr:`EnginePlayer.IDENTS`);
    the others (a spec's options, commas in a command) belong to the spec before."""
    specs = []
    for part in text.split(","):
        name = part.split(":", 1)[0]
        if name in TRANSPORT_KINDS or name in EnginePlayer.IDENTS or not specs:
            specs.append(part)
        else:
            specs[-1] += "," + part
    return specs

#: Wait this long (in the player's clock) for the answer to ``-T`` when opening a player.
STARTUP_TIMEOUT = 10.0
#: Wait this long for an answer when no limit is given.
DEFAULT_WAIT = 10.0
#: Wait this long (in the player's clock) for a board's answer to ``:status``.
STATUS_WAIT = 2.0
from ..hdl.pvs_isa import MAX_CORES, MAX_NODE_LIMIT  # noqa: E402
from ..hdl.pvs_program import MAX_TEST_CAP  # noqa: E402
from .reference.echo import shown  # noqa: E402
from .serial_url import DEFAULT_BAUD, SerialSpecError, parse_serial  # noqa: E402
#: Longest answer line kept (anything longer is cut; it cannot be a sane move anyway).
MAX_LINE = 4096
#: Seconds a serial board may take to come back to a known state before a game (a
#: simulated board behind ``serve-sim`` may first finish a late answer: tens of seconds).
BOARD_READY = 120.0


class PlayerError(Exception):
    """Base class of the player errors."""


class SpecError(PlayerError, ValueError):
    """A spec that names no player, or a malformed one."""


class OpenError(PlayerError):
    """The player could not be started: no program, no port, no answer to ``-T``."""


class Fault(PlayerError):
    """A protocol failure that loses the game for the player.

    Attributes
    ----------
    kind : str
        ``"timeout"`` (no answer in time, the program or port closed) or ``"illegal"`` (a
        line sent when no answer was due).
    detail : str
        What happened, in a sentence.
    """

    def __init__(self, kind, detail):
        assert kind in ("timeout", "illegal"), kind
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _decode(raw):
    return raw.decode("utf-8", errors="replace")


# ---------------------------------------------------------------- transports

class LineTransport:
    """Lines to and from a protocol-speaking player, with the time each answer took.

    Subclasses implement:

    ``send_line(text)``
        send one line (LF added) and start the answer clock;
    ``read_line(timeout) -> (text, seconds)``
        the next line received since the last send (without its line end) and the time from
        that send to its arrival; waits until ``timeout`` seconds after the send; raises
        :class:`Fault` (``"timeout"``) when there is none by then or the other end closed;
    ``settle()``
        after a line that expects no answer: let the other end act on it (the simulation
        runs until the device falls quiet; real lines need nothing);
    ``pending() -> list[str]``
        lines that arrived and were not read (non-blocking);
    ``resync() -> bool``
        bring the other end back to a clean state after a failure; True when it was
        restarted from scratch (so its ``-T`` must be asked again);
    ``new_game(ident)``
        before every game: bring the other end to a known state if the transport knows
        how (a trax-fpga board on a serial line: see :meth:`SerialTransport.new_game`);
    ``close()``.
    """

    clock = "wall"
    description = ""

    def seed(self, n):
        """Before a game: what the other end may take as its seed (nothing, mostly)."""

    def settle(self):
        pass

    def new_game(self, ident):
        pass

    def close(self):
        pass


class SimTransport(LineTransport):
    """The simulated board: :class:`~traxfpga.sim.device.DeviceSim` on its simulated serial
    line.  Times are simulated: clock cycles from the first bit of the line sent to the
    last bit of the answer's LF, divided by the clock frequency.  The simulation only runs
    as far as the deadline, so a device that never answers costs at most ``timeout``
    seconds of simulated time."""

    clock = "simulated"

    def __init__(self, backend="auto", **sim_args):
        from ..sim.device import DeviceSim
        self._factory = lambda: DeviceSim(backend=backend, **sim_args)
        self.sim = self._factory()
        self.clk_freq = self.sim.clk_freq
        self.description = f"simulated board ({self.sim.backend}, {self.clk_freq / 1e6:g} MHz)"
        self._tx = b""
        self._rx = bytearray()
        self._lines = collections.deque()     # (text, arrival cycle)
        self._start = self.sim.cycles
        self._answered_in = 0         # cycles from the last line sent to its answer

    def _run(self, *, stop, limit):
        """Send what is queued and run; complete lines go to ``_lines``.  Returns True when
        the device fell quiet (rather than stopping at ``stop`` or the limit)."""
        from ..sim.device import SimTimeout
        data, self._tx = self._tx, b""
        try:
            got = self.sim.run(data, stop=stop, limit=max(1, limit))
        except SimTimeout:
            return False
        self._rx += got
        while b"\n" in self._rx:
            i = self._rx.index(b"\n")
            raw = bytes(self._rx[:i]).rstrip(b"\r")
            del self._rx[:i + 1]
            self._lines.append((_decode(raw[:MAX_LINE]), self.sim.cycles))
        return not (stop is not None and got.endswith(bytes([stop])))

    def seed(self, n):
        """Let ``n`` mod 65536 cycles pass on an idle line: the board's noise generator runs
        on, so its next game varies with the seed as a real board's does with the host's
        timing (and is reproducible from it)."""
        self.sim.idle(n & 0xFFFF)

    def send_line(self, text):
        self._tx += text.encode("latin-1", errors="replace") + b"\n"
        self._start = self.sim.cycles

    def read_line(self, timeout):
        deadline = self._start + max(1, math.ceil(timeout * self.clk_freq))
        while not self._lines:
            remaining = deadline - self.sim.cycles
            if remaining <= 0:
                raise Fault("timeout", f"no answer within {timeout:g} s of simulated time")
            quiet = self._run(stop=ord("\n"), limit=remaining)
            if quiet and not self._lines:
                if self._rx:
                    part = _decode(bytes(self._rx[:80]))
                    raise Fault("timeout", f"no answer: the device sent {shown(part, 40)} without a "
                                           f"line end and fell quiet")
                if self.sim.cycles < deadline:
                    raise Fault("timeout", "no answer: the device fell quiet")
        text, at = self._lines.popleft()
        self._answered_in = at - self._start
        if not self._lines:
            # Let the device finish (it should be quiet right after its answer); anything
            # more it says is kept for pending().
            self._run(stop=None, limit=self.clk_freq)
        return text, (at - self._start) / self.clk_freq

    def settle(self):
        self._run(stop=None, limit=self.clk_freq)

    def pending(self):
        if self._tx:
            self.settle()
        out = [text for text, _ in self._lines]
        self._lines.clear()
        return out

    def resync(self):
        """End any partial line, let the device answer it and fall quiet; a device that
        does not fall quiet within a simulated second is simulated afresh."""
        self._tx = b"\n"
        quiet = self._run(stop=None, limit=self.clk_freq)
        self._lines.clear()
        self._rx.clear()
        if not quiet:
            self.sim.close()
            self.sim = self._factory()
            return True
        return False

    @property
    def cycles(self):
        return self.sim.cycles

    def last_search(self):
        """The simulated board's last search: ``{"depth", "nodes", "tt_probes", "tt_hits",
        "budget_cut"}``; ``budget_cut``: the player's budget was spent, its cycles (the
        answer came that long after the line was sent) or its node limit: the search did
        not end by itself (a decided game, or its last iteration)."""
        s = self.sim
        probes, hits = s.search_tt
        cut = (self._answered_in >= s.device.budget
               or 0 < s.node_limit <= s.search_nodes)
        return {"depth": s.search_depth, "nodes": s.search_nodes, "tt_probes": probes,
                "tt_hits": hits, "budget_cut": cut}

    def close(self):
        self.sim.close()


class SerialTransport(LineTransport):
    """A real board (or anything else) behind a pyserial URL; wall-clock times."""

    def __init__(self, url, baud=DEFAULT_BAUD):
        import serial
        try:
            self.ser = serial.serial_for_url(url, baudrate=baud, timeout=0.05, write_timeout=2.0)
        except (serial.SerialException, ValueError, OSError) as e:
            raise OpenError(f"cannot open serial port {url!r}: {e}") from None
        self.description = f"serial port {url} at {baud} baud"
        self._buf = bytearray()
        self._lines = collections.deque()     # (text, arrival time)
        self._start = time.monotonic()
        self.resync()       # end a partial line another program may have left

    def _split(self, now):
        while b"\n" in self._buf:
            i = self._buf.index(b"\n")
            raw = bytes(self._buf[:i]).rstrip(b"\r")
            del self._buf[:i + 1]
            self._lines.append((_decode(raw[:MAX_LINE]), now))
        if len(self._buf) > MAX_LINE:         # a line without end: keep it bounded
            self._lines.append((_decode(bytes(self._buf[:MAX_LINE])), now))
            self._buf.clear()

    def _read(self, timeout):
        """Read what arrives within ``timeout`` seconds; Fault when the port fails."""
        import serial
        try:
            self.ser.timeout = max(0.0, timeout)
            data = self.ser.read(max(1, self.ser.in_waiting))
        except (serial.SerialException, OSError) as e:
            raise Fault("timeout", f"no answer: the port failed ({e})") from None
        if data:
            self._buf += data
            self._split(time.monotonic())
        return data

    def send_line(self, text):
        import serial
        self._start = time.monotonic()
        try:
            self.ser.write(text.encode("latin-1", errors="replace") + b"\n")
            self.ser.flush()
        except (serial.SerialException, OSError) as e:
            raise Fault("timeout", f"the port failed while sending {text!r} ({e})") from None

    def read_line(self, timeout):
        deadline = self._start + timeout
        while not self._lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fault("timeout", f"no answer within {timeout:g} s")
            self._read(min(remaining, 0.25))
        text, at = self._lines.popleft()
        return text, at - self._start

    def pending(self):
        while self._read(0):
            pass
        out = [text for text, _ in self._lines]
        self._lines.clear()
        return out

    def resync(self, quiet=0.2, limit=3.0):
        """Send a LF (ending any partial line) and discard what comes back until the line
        has been quiet for ``quiet`` seconds (at most ``limit`` seconds in all)."""
        try:
            self.send_line("")
            self._until_quiet(quiet, time.monotonic() + limit)
        except Fault:
            pass
        self._lines.clear()
        self._buf.clear()
        return False

    def _until_quiet(self, quiet, end):
        """Read until nothing has arrived for ``quiet`` seconds, or until ``end``."""
        last = time.monotonic()
        while time.monotonic() < end and time.monotonic() - last < quiet:
            if self._read(0.05):
                last = time.monotonic()

    def new_game(self, ident, limit=BOARD_READY):
        """Before every game, a trax-fpga board (its ``-T`` answer is ``trax-fpga``) is put
        into a known state: standard Trax, no partial line, no late lines.  The line is
        ended, ``:reset trax`` is sent (again after each ``! busy``: the board was still
        thinking, e.g. over an answer that came too late in the previous game), and every
        line before its answer ``= trax``, and any that follow within 0.3 s, is discarded.
        A board that does not get there within ``limit`` seconds is a :class:`Fault`.
        Other programs on a serial line are left as they are.  Returns the discarded
        lines."""
        if not ident.startswith("trax-fpga"):
            return []
        end = time.monotonic() + limit
        discarded = []
        self.send_line("")
        self.send_line(":reset trax")
        while True:
            while not self._lines:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    raise Fault("timeout", f"the board did not answer :reset trax within "
                                           f"{limit:g} s (discarded {len(discarded)} lines)")
                self._read(min(remaining, 0.25))
            text, _ = self._lines.popleft()
            if text == "= trax":
                break
            discarded.append(text)
            if text == "! busy":
                self.send_line(":reset trax")
        self._until_quiet(0.3, end)
        discarded += [text for text, _ in self._lines]
        self._lines.clear()
        return discarded

    def close(self):
        try:
            self.ser.close()
        except Exception:       # noqa: BLE001 - closing a failed port must not fail
            pass


class ProcessTransport(LineTransport):
    """A program on stdin/stdout, in its own process group (so a shell script's children
    go too); wall-clock times.  Its standard error is kept (the last lines) for messages."""

    def __init__(self, argv, cwd=None):
        self.argv = list(argv)
        self.cwd = cwd
        self.description = f"program {shlex.join(self.argv)}" + (f" in {cwd}" if cwd else "")
        self.proc = None
        self._spawn()

    def _spawn(self):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, start_new_session=True, env=env,
                cwd=self.cwd)
        except OSError as e:
            where = f" in {self.cwd}" if self.cwd else ""
            raise OpenError(f"cannot run {shlex.join(self.argv)}{where}: {e}") from None
        self._queue = queue.Queue()           # (arrival time, text or None at EOF)
        self._stderr = collections.deque(maxlen=20)
        self._eof = False
        self._start = time.monotonic()
        proc, q, err = self.proc, self._queue, self._stderr

        def pump_out():
            try:
                while True:
                    raw = proc.stdout.readline(MAX_LINE)
                    if not raw:
                        break
                    q.put((time.monotonic(), _decode(raw.rstrip(b"\n").rstrip(b"\r"))))
            except (OSError, ValueError):
                pass
            q.put((time.monotonic(), None))

        def pump_err():
            try:
                for raw in iter(lambda: proc.stderr.readline(MAX_LINE), b""):
                    err.append(_decode(raw.rstrip()))
            except (OSError, ValueError):
                pass

        self._threads = [threading.Thread(target=pump_out, daemon=True),
                         threading.Thread(target=pump_err, daemon=True)]
        for t in self._threads:
            t.start()

    def _closed_detail(self):
        try:
            code = self.proc.wait(timeout=1.0)
            how = (f"was killed by signal {-code}" if code < 0 else f"exited with status {code}")
        except subprocess.TimeoutExpired:
            how = "closed its output"
        for t in self._threads[1:]:
            t.join(timeout=0.5)
        tail = [line for line in self._stderr if line.strip()][-3:]
        return f"the program {how}" + (f" (stderr: {' | '.join(tail)})" if tail else "")

    def send_line(self, text):
        self._start = time.monotonic()
        try:
            self.proc.stdin.write(text.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._eof = True

    def read_line(self, timeout):
        deadline = self._start + timeout
        while True:
            if self._eof:
                raise Fault("timeout", f"no answer: {self._closed_detail()}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fault("timeout", f"no answer within {timeout:g} s")
            try:
                at, text = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if text is None:
                self._eof = True
                continue
            return text, at - self._start

    def pending(self):
        out = []
        while True:
            try:
                _, text = self._queue.get_nowait()
            except queue.Empty:
                return out
            if text is None:
                self._eof = True
            else:
                out.append(text)

    def resync(self):
        """Restart the program (the only way to be sure it is not still thinking)."""
        self._stop()
        self._spawn()
        return True

    def _stop(self):
        proc = self.proc
        if proc is None:
            return
        for stream in (proc.stdin,):
            try:
                stream.close()
            except OSError:
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, 15)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, 9)
                except (ProcessLookupError, PermissionError):
                    pass
                proc.wait()
        else:
            try:    # the program is gone; take any children it left in its group with it
                os.killpg(proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
        for t in self._threads:
            t.join(timeout=1.0)
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self.proc = None

    def close(self):
        self._stop()


# ---------------------------------------------------------------- players

class Player:
    """The interface (see the module docstring)."""

    name = ""
    ident = ""
    clock = "wall"
    last_time = 0.0
    #: The last search of the simulated board or the model (``{"depth", "nodes",
    #: "tt_probes", "tt_hits"}``), None for other players.
    last_search = None

    def start(self, colour, *, limit=None):
        raise NotImplementedError

    def reply(self, move, *, limit=None):
        raise NotImplementedError

    def answer_position(self, moves, *, limit=None):
        """The player's move in the game of ``moves`` (notation, from the start), timed in
        ``last_time``: for players that can be put in a position, the in-process ones and
        the boards (engine mode's ``:play`` and ``:move``)."""
        raise SpecError(f"{self.name}: plays whole games over the contest protocol only, so "
                        f"it cannot be put in a position (model, ref, random, sim and "
                        f"serial players can)")

    def seed(self, n):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


class EnginePlayer(Player):
    """An in-process player on its own reference game: the reference AI (``ref``), a
    uniformly random legal move (``random``) or the board's player in software (``model``:
    the sequencer's twin with a budget of ``nodes`` on ``cores``, its noise seeded from the
    player's seed).  Timed by the wall clock."""

    IDENTS = {"ref": "reference AI", "random": "random legal moves",
              "model": "trax-fpga search sequencer (software twin)"}

    def __init__(self, kind, seed=0, *, nodes=MODEL_NODES, cores=1):
        if kind not in self.IDENTS:
            raise SpecError(f"no in-process player {kind!r}")
        self.name = kind
        self.ident = self.IDENTS[kind]
        self.kind = kind
        self.nodes, self.cores = nodes, cores
        self.rng = random.Random(seed)
        self.game = None

    def seed(self, n):
        self.rng.seed(n)

    def _model_move(self):
        from .reference.pvs import run_cores
        # a fresh noise seed each answer, as the board's free-running generator gives
        choice = run_cores(self.game, self.cores, self.nodes,
                           seed=self.rng.randrange(1, 1 << 16))
        # as the simulated board reports its searches
        self.last_search = {"depth": choice.depth, "nodes": choice.nodes,
                            "tt_probes": choice.tt_probes, "tt_hits": choice.tt_hits,
                            "budget_cut": bool(self.nodes) and choice.nodes >= self.nodes}
        return choice.move

    def _move(self):
        from .reference.ai import choose_move
        from .reference.trax import format_move
        t0 = time.perf_counter()
        if self.kind == "ref":
            mv = choose_move(self.game, self.rng)
        elif self.kind == "model":
            mv = self._model_move()
        else:
            mv = self.rng.choice(self.game.legal_moves())
        text = format_move(mv)
        self.game.play(text)
        self.last_time = time.perf_counter() - t0
        return text

    def start(self, colour, *, limit=None):
        from .reference.trax import Game
        if colour not in ("white", "black"):
            raise ValueError(f"colour must be 'white' or 'black', not {colour!r}")
        self.game = Game()
        self.last_time = 0.0
        return self._move() if colour == "white" else None

    def reply(self, move, *, limit=None):
        if self.game is None:
            raise RuntimeError("reply() before start()")
        self.game.play(move)        # checked by the referee: an Illegal here is a bug
        return self._move()

    def answer_position(self, moves, *, limit=None):
        from .reference.trax import Game
        self.game = Game.after(moves)
        return self._move()


class ProtocolPlayer(Player):
    """A player speaking the contest protocol over a :class:`LineTransport`."""

    def __init__(self, name, transport, *, startup=STARTUP_TIMEOUT, per_game=False):
        self.name = name
        self.transport = transport
        self.clock = transport.clock
        self.startup = startup
        self.per_game = per_game
        self._dirty = False
        self._used = False          # a game was started on this process (per_game)
        self.ident = self._hello()

    def _hello(self):
        t = self.transport
        t.pending()
        t.send_line("-T")
        end = time.monotonic() + self.startup
        while True:
            try:
                text, _ = self._read(max(0.0, end - time.monotonic()))
            except Fault as e:
                raise OpenError(f"{self.name}: no answer to -T ({e.detail})") from None
            if text == "! busy":            # a board still thinking: ask again
                t.send_line("-T")
            elif text.startswith("= "):     # a board's late answer to an engine command
                continue
            elif text.startswith("!"):
                raise OpenError(f"{self.name}: answered -T with the error line "
                                f"{shown(text, 40)}")
            else:
                return text

    def _read(self, timeout):
        """The next non-blank line and its time (blank lines are skipped)."""
        while True:
            text, seconds = self.transport.read_line(timeout)
            if text.strip():
                return text.strip(), seconds

    def _answer(self, limit):
        try:
            text, seconds = self._read(DEFAULT_WAIT if limit is None else limit)
        except Fault:
            self._dirty = True
            raise
        if seconds < 0:
            self._dirty = True
            raise Fault("illegal", f"sent {shown(text, 40)} when no answer was due")
        self.last_time = seconds
        search = getattr(self.transport, "last_search", None)
        self.last_search = search() if search else None
        return text

    def _clean(self):
        """Before a game: restart or drain after a failure (or, ``per_game``, after every
        game), drop stale lines."""
        if self.per_game and self._used:
            self._dirty = True
        self._used = True
        if self._dirty:
            if self.transport.resync():
                try:
                    self.ident = self._hello()
                except OpenError as e:      # still dirty: the next game tries again
                    raise Fault("timeout", f"restarted after a failure, but {e}") from None
            self._dirty = False
        self.transport.pending()
        self.transport.new_game(self.ident)

    def start(self, colour, *, limit=None):
        if colour not in ("white", "black"):
            raise ValueError(f"colour must be 'white' or 'black', not {colour!r}")
        self._clean()
        self.last_time = 0.0
        if colour == "white":
            self.transport.send_line("-W")
            return self._answer(limit)
        self.transport.send_line("-B")
        self.transport.settle()
        return None

    def seed(self, n):
        self.transport.seed(n)

    def reply(self, move, *, limit=None):
        stale = [s for s in self.transport.pending() if s.strip()]
        if stale:
            self._dirty = True
            raise Fault("illegal", f"sent {shown(stale[0], 40)} when no answer was due")
        self.transport.send_line(move)
        return self._answer(limit)

    def answer_position(self, moves, *, limit=None):
        if not isinstance(self.transport, (SimTransport, SerialTransport)):
            return super().answer_position(moves, limit=limit)
        self._clean()
        self._engine(":reset trax", "= trax", STATUS_WAIT)
        for mv in moves:
            self._engine(f":play {mv}", "= ok ", STATUS_WAIT)
        text = self._engine(":move", "= ok ", DEFAULT_WAIT if limit is None else limit)
        search = getattr(self.transport, "last_search", None)
        self.last_search = search() if search else None
        return text.split()[-1]

    def _engine(self, line, expect, limit):
        """Send an engine-mode line; its answer, which must start with ``expect`` (else, or
        with no answer, the board is brought back to a clean state before its next use)."""
        self.transport.send_line(line)
        try:
            text, self.last_time = self._read(limit)
        except Fault:
            self._dirty = True
            raise
        if not text.startswith(expect):
            self._dirty = True
            raise Fault("illegal", f"answered {line!r} with {shown(text, 40)}")
        return text

    def device_status(self, limit=STATUS_WAIT):
        """A trax-fpga board's answer to ``:status`` between moves (``= VARIANT W H PLY
        WINNER REASON ROLE``: engine mode's view of the game, which the command leaves as
        it was), or None: for a program that is not a board (only ``sim`` and ``serial``
        players are asked), or when no such line came (the next game starts clean)."""
        if not isinstance(self.transport, (SimTransport, SerialTransport)):
            return None
        if any(s.strip() for s in self.transport.pending()):
            self._dirty = True
            return None
        self.transport.send_line(":status")
        try:
            text, _ = self._read(limit)
        except Fault:
            self._dirty = True
            return None
        if not text.startswith("= "):
            self._dirty = True
            return None
        return text

    def close(self):
        self.transport.close()


# ---------------------------------------------------------------- specs

def _parse_serial(arg):
    try:
        return parse_serial(arg)
    except SerialSpecError as e:
        raise SpecError(f"serial:{arg}: {e}") from None


def open_player(spec, *, seed=0, startup=STARTUP_TIMEOUT):
    """Open the player described by ``spec`` (see the module docstring).

    Raises
    ------
    SpecError
        The spec names no player or is malformed.
    OpenError
        The player could not be started (program or port missing, no answer to ``-T``).
    """
    if not isinstance(spec, str) or not spec:
        raise SpecError(f"empty player spec; expected one of: {', '.join(PLAYER_KINDS)}")
    kind, sep, arg = spec.partition(":")
    if kind in EnginePlayer.IDENTS:
        if sep:
            raise SpecError(f"player {kind!r} takes no argument (got {spec!r})")
        return EnginePlayer(kind, seed)
    if kind.startswith("model,"):
        if sep:
            raise SpecError(f"player 'model' takes no argument (got {spec!r})")
        return EnginePlayer("model", seed, **_parse_model_options(spec, kind.split(",")[1:]))
    if kind == "sim" or kind.startswith("sim,"):
        backend = arg or "auto"
        from ..sim.device import BACKENDS
        if backend not in BACKENDS:
            raise SpecError(f"unknown simulation backend in {spec!r} "
                            f"(expected sim, sim:{', sim:'.join(BACKENDS)})")
        sim_args = _parse_sim_options(spec, kind.split(",")[1:])
        try:
            transport = SimTransport(backend, **sim_args)
        except Exception as e:      # noqa: BLE001 - a compiler or simulator failure
            raise OpenError(f"cannot start the simulated board: {type(e).__name__}: {e}") \
                from None
        return _protocol(spec, transport, startup)
    if kind == "serial":
        url, baud = _parse_serial(arg)
        return _protocol(spec, SerialTransport(url, baud), startup)
    if kind == "cmd" or kind.startswith("cmd,"):
        per_game, cwd = _parse_cmd_options(spec, kind.split(",")[1:])
        if not sep:
            raise SpecError(f"cmd needs a command after ':' (got {spec!r}), e.g. "
                            "'cmd:python3 client.py'")
        try:
            argv = shlex.split(arg)
        except ValueError as e:
            raise SpecError(f"cannot split the command in {spec!r}: {e}") from None
        if not argv:
            raise SpecError("cmd needs a command: cmd:COMMAND, e.g. 'cmd:python3 client.py'")
        return _protocol(spec, ProcessTransport(argv, cwd=cwd), startup, per_game=per_game)
    raise SpecError(f"unknown player {spec!r}; expected one of: {', '.join(PLAYER_KINDS)}")


def _number_option(spec, name, value, low, high, what):
    if not value.isdigit() or not low <= int(value) <= high:
        raise SpecError(f"{name}= needs {what}, {low:,} .. {high:,}, in {spec!r}")
    return int(value)


def _parse_model_options(spec, options):
    """The :class:`EnginePlayer` arguments of a ``model,...`` spec: ``nodes=N`` (its budget
    in legal placements) and ``cores=N``."""
    args = {}
    for option in options:
        name, eq, value = option.partition("=")
        if name not in ("nodes", "cores") or not eq or name in args:
            raise SpecError(f"unknown or repeated model option {option!r} in {spec!r} "
                            f"(expected nodes=N, cores=N)")
        args[name] = (_number_option(spec, name, value, 1, MAX_NODE_LIMIT, "a budget in nodes")
                      if name == "nodes" else
                      _number_option(spec, name, value, 1, MAX_CORES, "a number of cores"))
    return args


def _parse_sim_options(spec, options):
    """The :class:`~traxfpga.sim.device.DeviceSim` arguments of a ``sim,...`` spec: the
    option ``board=NAME`` simulates that board's device (its clock, capacity, perft unit,
    search cores and store schedule) instead of the default (the iCEBreaker's); ``cores=N``
    sets the search cores (after ``board=``, it overrides the board's); ``nodes=N`` the
    player's budget in legal placements; ``cap=N`` the AND nodes after which a root move's
    threat test is cut short (0: never; the one-port devices' program only); ``think=S`` the
    player's seconds an answer."""
    from ..boards.platforms import BOARDS
    from ..firmware.top import check_think_time
    from ..sim.device import DEFAULT_CLK
    sim_args = {}
    seen = set()
    for option in options:
        name, eq, value = option.partition("=")
        if name not in ("board", "cores", "nodes", "cap", "think") or not eq or name in seen:
            raise SpecError(f"unknown or repeated sim option {option!r} in {spec!r} "
                            f"(expected board=NAME, cores=N, nodes=N, cap=N, think=S)")
        seen.add(name)
        if name == "nodes":
            sim_args["node_limit"] = _number_option(spec, name, value, 1, MAX_NODE_LIMIT,
                                                    "a budget in nodes")
            continue
        if name == "cores":
            sim_args["cores"] = _number_option(spec, name, value, 1, MAX_CORES,
                                               "a number of search cores")
            continue
        if name == "cap":
            sim_args["cap"] = _number_option(spec, name, value, 0, MAX_TEST_CAP,
                                             "a number of AND nodes")
            continue
        if name == "think":
            try:
                sim_args["think_time"] = float(value)
            except ValueError:
                raise SpecError(f"think= needs seconds, such as 0.9, in {spec!r}") from None
            continue
        board = BOARDS.get(value)
        if board is None or board.device_unfit:
            fits = [n for n, b in BOARDS.items() if not b.device_unfit]
            raise SpecError(f"no board {value!r} for the simulated device in {spec!r} "
                            f"(expected one of: {', '.join(fits)})")
        sim_args.update(clk_freq=round(board.clock_mhz * 1e6), capacity=board.capacity,
                        dual=not board.store_in_spram(), quad=board.store_reads_four(),
                        tt=board.has_table(), tt_bits=board.table_bits, perft=board.perft)
        sim_args.setdefault("cores", board.cores)
    if "think_time" in sim_args:
        try:
            check_think_time(sim_args["think_time"], sim_args.get("clk_freq", DEFAULT_CLK))
        except ValueError as e:
            raise SpecError(f"think=: {e}, in {spec!r}") from None
    return sim_args


def _parse_cmd_options(spec, options):
    """``(per_game, cwd)`` from the options of a ``cmd,...`` spec."""
    per_game, cwd = False, None
    for option in options:
        name, eq, value = option.partition("=")
        if option == "per-game" and not (per_game or eq):
            per_game = True
        elif name == "cwd" and eq and cwd is None:
            if not value:
                raise SpecError(f"cwd= needs a directory in {spec!r}")
            if not os.path.isdir(value):
                raise OpenError(f"{spec}: no directory {value!r} to run the program in")
            cwd = value
        else:
            raise SpecError(f"unknown or repeated cmd option {option!r} in {spec!r}; "
                            f"options: {', '.join(CMD_OPTIONS)}")
    return per_game, cwd


def _protocol(spec, transport, startup, per_game=False):
    try:
        return ProtocolPlayer(spec, transport, startup=startup, per_game=per_game)
    except BaseException:
        transport.close()
        raise
