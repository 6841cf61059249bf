"""The whole device in simulation, with a bit-level serial line.

:class:`DeviceHarness` is a simulation-only design: the :class:`~traxfpga.firmware.top.Device`
and, wired to its pins, a host-side UART transmitter and receiver, so the serial line itself
(start bits, data bits, stop bits, one bit per ``divisor`` cycles) is simulated inside the
design; Python only exchanges bytes with the harness's streams.

:class:`DeviceSim` runs it on the compiled CXXRTL backend (:mod:`traxfpga.sim.cxxrtl`) when a
C++ compiler is present, else in Amaranth's simulator (also when a VCD file is wanted).

:class:`SimSerial` is just enough of a pyserial ``Serial`` over a :class:`DeviceSim` for the
host client: reads run the simulation until the device answers or falls quiet (waiting for
input with nothing left to send), so a "timeout" is decided in simulated time and never
depends on the host machine's speed.
"""


from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..firmware.top import LED_READY, THINK_TIME, Device
from ..hdl.cores import table_of
from ..hdl.perft import COUNT_BITS
from ..hdl.pvs_isa import MAX_NODE_LIMIT, NODE_BITS
from ..hdl.pvs_program import TEST_CAP
from ..hdl.request import SearchReport
from ..hdl.tt_spec import INDEX_BITS
from ..hdl.uart import RxByte, UARTRx, UARTTx
from .compiled import COMPILED, default_backend
from .backends import BACKENDS, signed16
from .threaded import ThreadedSimulator

__all__ = ["DEFAULT_CLK", "DEFAULT_BAUD", "BACKENDS", "DeviceHarness", "DeviceSim", "SimSerial",
           "SimTimeout"]

#: The simulated device's clock (1 MHz: a cycle is a microsecond of simulated time) and
#: line speed (8 cycles per bit).
# The iCEBreaker's clock, so the player has the board's cycle budget and the simulated
# time of an answer is the board's; the line runs at clk/8 so that bytes cost few cycles.
DEFAULT_CLK = 24_000_000
DEFAULT_BAUD = 3_000_000


class SimTimeout(Exception):
    """The simulated device did not fall quiet within the cycle limit."""


class DeviceHarness(wiring.Component):
    """The device with the host's end of the serial line.

    Attributes
    ----------
    send : In(stream.Signature(8))
        Bytes the host sends (each takes 10 bit times on the line).
    recv : Out(stream.Signature(RxByte))
        Bytes the device sent, as the host's receiver saw them.
    brk : In(1)
        Hold the line to the device low (a break: the device sees a framing error).
    quiet : Out(1)
        Nothing is happening: the device waits for input with nothing left to send, and
        neither UART of the host is busy.
    leds : Out(3)
        The device's LEDs.
    report : In(SearchReport)
        The device's report of its last search.
    """

    send:  In(stream.Signature(8))
    recv:  Out(stream.Signature(RxByte))
    brk:   In(1)
    quiet: Out(1)
    leds:  Out(3)
    report: In(SearchReport)
    node_limit: In(NODE_BITS)
    perft_count: Out(COUNT_BITS)

    def __init__(self, device):
        self.device = device
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.device = dev = self.device
        m.submodules.host_tx = host_tx = UARTTx(dev.divisor)
        m.submodules.host_rx = host_rx = UARTRx(dev.divisor)
        wiring.connect(m, wiring.flipped(self.send), host_tx.stream)
        wiring.connect(m, host_rx.stream, wiring.flipped(self.recv))
        wiring.connect(m, wiring.flipped(self.report), dev.report)
        m.d.comb += dev.node_limit.eq(self.node_limit)
        m.d.comb += [
            dev.rx.eq(host_tx.tx & ~self.brk),
            host_rx.rx.eq(dev.tx),
            self.leds.eq(dev.leds),
            self.perft_count.eq(dev.perft_count if dev.perft else 0),
            self.quiet.eq(dev.leds[LED_READY] & ~host_tx.busy & ~host_rx.busy &
                          ~host_rx.stream.valid & ~self.brk),
        ]
        return m


def _port(harness, name):
    """The harness's port of a compiled simulation's name (``report__depth``: the member
    ``depth`` of the interface ``report``)."""
    value = harness
    for part in name.split("__"):
        value = getattr(value, part)
    return value


class _Pysim:
    """Amaranth's simulator in a thread, serving the same requests as CxxrtlSim."""

    def __init__(self, harness, vcd):
        self.harness = harness
        self.cycles = 0
        self._sim = ThreadedSimulator(harness, self._serve, vcd=vcd)

    async def _serve(self, ctx, request):
        h = self.harness
        ctx.set(h.recv.ready, 1)            # the host side always takes what comes
        kind, args = request
        if kind == "set":
            ctx.set(_port(h, args[0]), args[1])
            return None
        if kind == "get":
            return ctx.get(_port(h, args[0]))
        if kind == "tick":
            await ctx.tick().repeat(args[0])
            return None
        assert kind == "pump", kind
        data, limit, stop, quiet_edges, max_out = args
        pos, out, n, quiet_run = 0, [], 0, 0
        while n < limit:
            feeding = pos < len(data)
            ctx.set(h.send.valid, feeding)
            if feeding:
                ctx.set(h.send.payload, data[pos])
            in_fire = feeding and ctx.get(h.send.ready)
            out_fire = ctx.get(h.recv.valid)
            if out_fire:
                payload = ctx.get(h.recv.payload)
                value = payload.data | payload.framing_error << 8
            is_quiet = not feeding and ctx.get(h.quiet)
            await ctx.tick()
            n += 1
            pos += in_fire
            if out_fire:
                out.append(value)
                if value == stop or len(out) >= max_out:
                    break
            quiet_run = quiet_run + 1 if is_quiet else 0
            if quiet_edges and quiet_run >= quiet_edges:
                break
        ctx.set(h.send.valid, 0)
        return pos, out, n

    def _call(self, kind, *args):
        return self._sim.call((kind, args))

    def set(self, name, value):
        self._call("set", name, value)

    def get(self, name):
        return self._call("get", name)

    def tick(self, n=1):
        self._call("tick", n)
        self.cycles += n

    def pump(self, source, sink, data=(), *, limit, stop=None, quiet=None, quiet_edges=1,
             max_out=65536):
        consumed, out, n = self._call("pump", list(data), limit, stop,
                                      quiet_edges if quiet else 0, max_out)
        self.cycles += n
        return consumed, out, n

    def close(self):
        self._sim.close()


class DeviceSim:
    """The device on a simulated serial line.

    Parameters
    ----------
    capacity : int
        Board size N of the device.
    clk_freq, baud : int
        The simulated clock and line speed (their ratio, the UART divisor, sets how many
        cycles a byte takes: 10 bits of ``clk_freq / baud`` cycles).
    backend : str
        ``"verilator"``, ``"cxxrtl"``, ``"pysim"`` or ``"auto"`` (:func:`default_backend`, the
        fastest present, unless a VCD file is wanted;
        no VCD is asked for).
    vcd : str or None
        Write a waveform of the whole run (``pysim`` only).
    player_id : str
        The device's answer to ``-T``.
    think_time : float
        The player's budget in seconds of ``clk_freq`` (see :class:`Device`).
    node_limit : int
        The player's budget in legal placements (0: none; :meth:`set_node_limit`).
    perft : bool
        Include the perft unit (see :class:`Device`).
    cores, dual, quad :
        Search cores, and the engines' schedule on a dual-port store, reading four squares
        a cycle with ``quad`` (see :class:`Device`: a block-RAM board's device, not the
        iCEBreaker's).
    cap : int
        The player's cap on a root move's threat test, in AND nodes (see :class:`Device`).
    tt : bool or None
        The search cores' transposition table (see :class:`Device`; None: with a one-port
        store).
    tt_bits : int
        Each table's entries: ``2**tt_bits`` (see :class:`Device`).
    """

    def __init__(self, *, capacity=128, clk_freq=DEFAULT_CLK, baud=DEFAULT_BAUD, backend="auto",
                 vcd=None, player_id="trax-fpga", think_time=THINK_TIME, perft=True, cores=1,
                 dual=False, quad=False, node_limit=0, cap=TEST_CAP, tt=None,
                 tt_bits=INDEX_BITS):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}")
        if backend == "auto":
            backend = default_backend() if vcd is None else "pysim"
        if backend != "pysim" and vcd is not None:
            raise ValueError("a VCD file needs the pysim backend")
        self.backend = backend
        args = dict(clk_freq=clk_freq, baud=baud, capacity=capacity, player_id=player_id,
                    think_time=think_time, perft=perft, cores=cores, dual=dual)
        if quad:
            args["quad"] = True
        if cap != TEST_CAP:             # (the default device's cache entry unchanged)
            args["cap"] = cap
        if table_of(tt, dual) != table_of(None, dual):  # (the default's cache entry unchanged)
            args["tt"] = tt
        if tt_bits != INDEX_BITS:
            args["tt_bits"] = tt_bits
        self.device = Device(**args)
        self.harness = DeviceHarness(self.device)
        self.capacity = capacity
        self.clk_freq = clk_freq
        self.divisor = self.device.divisor
        #: bytes sent and received so far
        self.bytes_in = 0
        self.bytes_out = 0
        #: frames the host received with a bad stop bit (never expected)
        self.framing_errors = 0
        if backend in COMPILED:
            self._sim = COMPILED[backend](self.harness, name="device",
                                          made_as=(DeviceHarness, Device, args))
            self._sim.set("recv__ready", 1)
        else:
            self._sim = _Pysim(self.harness, vcd)
        self.set_node_limit(node_limit)

    def set_node_limit(self, nodes):
        """The player's budget in legal placements from the next search on (0: none)."""
        if not 0 <= nodes <= MAX_NODE_LIMIT:
            raise ValueError(f"the node limit must be 0 .. {MAX_NODE_LIMIT:,}, not {nodes}")
        self._sim.set("node_limit", nodes)
        self.node_limit = nodes

    @property
    def cycles(self):
        """Simulated clock cycles so far."""
        return self._sim.cycles

    def run(self, data=b"", *, limit=None, stop=None, quiet=True):
        """Send ``data`` and collect what the device sends back.

        Runs until everything is sent and the line has been quiet (see
        :attr:`DeviceHarness.quiet`) for two byte times, or, with ``stop``, until that byte
        is received.  Raises :class:`SimTimeout` after ``limit`` cycles (default: enough for
        the data plus a generous allowance).
        """
        data = bytes(data)
        byte_time = 10 * self.divisor
        if limit is None:
            limit = (len(data) + 4) * byte_time + 20_000_000
        received = bytearray()
        pos = 0
        max_out = 65536
        while True:
            consumed, values, edges = self._sim.pump(
                "send", "recv", data[pos:], limit=limit, stop=stop,
                quiet="quiet" if quiet else None, quiet_edges=2 * byte_time, max_out=max_out)
            pos += consumed
            limit -= edges
            for v in values:
                if v >> 8:
                    self.framing_errors += 1
                received.append(v & 0xFF)
            if stop is not None and values and values[-1] == stop:
                break
            if len(values) >= max_out and limit > 0:
                continue
            if limit <= 0 and (quiet or stop is not None):
                raise SimTimeout(f"the device did not fall quiet: sent {pos} of {len(data)} "
                                 f"bytes, received {bytes(received[-200:])!r}")
            break
        self.bytes_in += pos
        self.bytes_out += len(received)
        return bytes(received)

    def step(self, data=b"", *, cycles):
        """Run at most ``cycles`` cycles, sending what of ``data`` the line takes in that
        time (byte after byte at the line's rate); returns ``(consumed, received, quiet)``:
        the bytes of ``data`` sent, the bytes the device sent back, and whether the device
        fell quiet (:attr:`DeviceHarness.quiet` for two byte times after the last byte).

        Where :meth:`run` waits for the device to finish, this lets a server feed bytes
        into the simulated line as they arrive, while the board thinks, as on a cable."""
        data = bytes(data)
        max_out = 65536
        consumed, values, edges = self._sim.pump(
            "send", "recv", data, limit=cycles, quiet="quiet",
            quiet_edges=20 * self.divisor, max_out=max_out)
        received = bytearray()
        for v in values:
            if v >> 8:
                self.framing_errors += 1
            received.append(v & 0xFF)
        self.bytes_in += consumed
        self.bytes_out += len(received)
        quiet = consumed == len(data) and edges < cycles and len(values) < max_out
        return consumed, bytes(received), quiet

    @property
    def leds(self):
        """The device's LEDs now (bit 0 ready, 1 thinking, 2 error)."""
        return self._sim.get("leds")

    @property
    def search_depth(self):
        """The deepest iteration the device's last search completed (0: the opening, not
        searched; :func:`~traxfpga.hdl.pvs_program.schedule` gives its plies and moves)."""
        return self._sim.get("report__depth")

    @property
    def search_seed(self):
        """The noise generator's value when the device's last search started (the twin's
        ``seed`` for the same choice)."""
        return self._sim.get("report__seed_used")

    @property
    def search_nodes(self):
        """Positions the device's last search visited (legal engine placements, over all
        its cores)."""
        return self._sim.get("report__nodes")

    @property
    def search_tt(self):
        """The transposition table's probes in the device's last search, and how many of
        them it answered: ``(probes, hits)`` (``(0, 0)`` on a device without a table)."""
        return self._sim.get("report__tt_probes"), self._sim.get("report__tt_hits")

    @property
    def search_value(self):
        """The value of the device's last answer for the side that moved (signed)."""
        return signed16(self._sim.get("report__value"))

    @property
    def search_insns(self):
        """Instructions the device's last search ran, over all its cores."""
        return self._sim.get("report__insns")

    @property
    def perft_count(self):
        """The perft unit's count: the last ``:perft`` answer's, or so far while it runs."""
        return self._sim.get("perft_count")

    def idle(self, cycles):
        """Let ``cycles`` cycles pass with the line idle."""
        self._sim.tick(cycles)

    def break_line(self, cycles):
        """Hold the line to the device low for ``cycles`` cycles (a break), then release it
        and let the line idle for two byte times."""
        self._sim.set("brk", 1)
        self._sim.tick(cycles)
        self._sim.set("brk", 0)
        self._sim.tick(20 * self.divisor)

    def exchange(self, line, **kwargs):
        """Send one line (LF added if missing) and return the answer lines as strings."""
        if isinstance(line, str):
            line = line.encode("latin-1")
        if not line.endswith(b"\n"):
            line += b"\n"
        return self.run(line, **kwargs).decode("latin-1").splitlines()

    def close(self):
        self._sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SimSerial:
    """A pyserial-like port over a :class:`DeviceSim`: ``write`` queues bytes, reads run the
    simulation.  A read that cannot be satisfied returns what there is once the device is
    quiet (a timeout, in simulated time).  With ``owns_sim``, closing the port closes the
    simulation too."""

    def __init__(self, sim, *, timeout=None, owns_sim=False):
        self.sim = sim
        self.owns_sim = owns_sim
        self.timeout = timeout
        self.port = "sim"
        self.is_open = True
        self._pending = bytearray()
        self._rx = bytearray()

    def write(self, data):
        self._pending += data
        return len(data)

    def flush(self):
        self._step()

    def _step(self):
        """Send what is pending and run until quiet; True if anything came back."""
        data = bytes(self._pending)
        self._pending.clear()
        got = self.sim.run(data)
        self._rx += got
        return bool(got)

    @property
    def in_waiting(self):
        return len(self._rx)

    def read(self, size=1):
        while len(self._rx) < size:
            if not self._step():
                break
        out = bytes(self._rx[:size])
        del self._rx[:size]
        return out

    def read_until(self, expected=b"\n", size=None):
        while True:
            i = self._rx.find(expected)
            if i >= 0:
                end = i + len(expected)
                break
            if size is not None and len(self._rx) >= size:
                end = size
                break
            if not self._step():
                end = len(self._rx)
                break
        if size is not None:
            end = min(end, size)
        out = bytes(self._rx[:end])
        del self._rx[:end]
        return out

    def reset_input_buffer(self):
        self._rx.clear()

    def reset_output_buffer(self):
        self._pending.clear()

    def close(self):
        if self.is_open and self.owns_sim:
            self.sim.close()
        self.is_open = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
