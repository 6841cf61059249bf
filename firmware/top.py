"""The device: a Trax board that speaks the serial protocol.

UART receiver -> line buffer -> protocol sequencer (microcode: parser, engine commands,
player, printer) -> UART transmitter, with three status LEDs; the search cores
(:mod:`~traxfpga.hdl.cores`: engines, each shared by the protocol sequencer, its search
sequencer and, unless left out, its perft unit) look to the protocol like one engine and one
player.  Everything runs in the
``sync`` domain; nothing here is platform specific unless ``spram`` asks for the
iCE40UP5K's SPRAM blocks.
"""

from amaranth.hdl import Module, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..hdl.cores import Cores, check_capacity, check_cores, table_of
from ..hdl.lfsr import LFSR_SEED, lfsr_step
from ..hdl.linebuf import LineBuffer
from ..hdl.perft import COUNT_BITS
from ..hdl.pvs_isa import NODE_BITS
from ..hdl.pvs_program import TEST_CAP
from ..hdl.request import SearchLimits, SearchReport
from ..hdl.tt_spec import INDEX_BITS
from ..hdl.uart import UARTRx, UARTTx, divisor_for
from .leds import LED_ERROR, LED_READY, LED_THINKING
from .protocol import Protocol
from .text import LINE_MAX

__all__ = ["Device", "THINK_TIME", "MIN_THINK_TIME", "MAX_THINK_TIME", "budget_cycles",
           "check_think_time", "LED_READY", "LED_THINKING", "LED_ERROR"]

#: The player's budget, in seconds of the clock: the contest allows one second an answer,
#: the serial line included, so the answer is always in time.
THINK_TIME = 0.8
#: The budgets a device takes: the shortest is many cycles on any clock (a budget of 0 cycles
#: would be none), the longest (self-play at long budgets, a board against a program given
#: more time) fits the budget counter's 32 bits at the fastest board's clock.
MIN_THINK_TIME, MAX_THINK_TIME = 0.01, 60.0


def budget_cycles(seconds, clk_freq):
    """A budget of ``seconds`` in cycles of a ``clk_freq`` Hz clock."""
    return int(clk_freq * seconds)


def check_think_time(seconds, clk_freq):
    """``seconds`` as a budget at ``clk_freq`` Hz, or ``ValueError`` saying why it cannot
    be one."""
    if not MIN_THINK_TIME <= seconds <= MAX_THINK_TIME:
        raise ValueError(f"a think time must be {MIN_THINK_TIME:g} to {MAX_THINK_TIME:g} "
                         f"seconds, not {seconds:g}")
    counter = Shape.cast(SearchLimits.members["budget_cycles"].shape).width
    if budget_cycles(seconds, clk_freq) >= 1 << counter:
        raise ValueError(f"a think time of {seconds:g} s is more cycles at "
                         f"{clk_freq / 1e6:g} MHz than the budget counter holds")
    return seconds


class Device(wiring.Component):
    """The whole device.

    Parameters
    ----------
    clk_freq : int or float
        Clock frequency in Hz.
    baud : int
        Serial line speed (8N1); the divisor is ``clk_freq / baud`` rounded.
    capacity : int
        Board size N, a power of two from 8 to 128: the engine stores N x N squares and the
        area in play may grow to N - 2 columns and rows.
    spram : bool
        Keep the engine's board store in iCE40UP5K SPRAM (needed for N = 128 on that part).
    dual : bool
        The engines' dual-port schedule on banked block-RAM stores (not with
        ``spram``; :class:`~traxfpga.hdl.engine.Engine`).
    quad : bool
        With ``dual``, on true dual-port block RAM: the engines read four squares a cycle
        (ECP5's ``DP16KD``; :class:`~traxfpga.hdl.engine.Engine`).
    player_id : str
        The answer to ``-T``.
    think_time : float
        Seconds the player may take for one move (its cycle budget is this many seconds of
        the clock); the contest allows one second per move, serial transfer included.
    perft : bool
        Include the perft unit (:class:`~traxfpga.hdl.perft.Perft`) for ``:perft``; without
        it ``:perft`` answers ``! no-perft`` (the iCEBreaker's UP5K has no room for it).
    cores : int
        Search cores (:class:`~traxfpga.hdl.cores.Cores`): each an engine, a search
        sequencer and (with ``perft``) a perft unit, sharing the work of every answer and
        count.
    cap : int
        With the threat search's table: a root move's test is cut short after this many AND
        nodes (:func:`~traxfpga.hdl.pvs_program.program`; 0: never).
    tt : bool or None
        Each search core has the threat search's transposition table (in SPRAM with
        ``spram``, else block RAM), its engine the position's key, and its program the
        opening book (None: with a one-port store, as the iCEBreaker's).
    tt_bits : int
        Each table's entries: ``2**tt_bits`` (:class:`~traxfpga.hdl.ttable.TTable`).

    Attributes
    ----------
    rx : In(1), init 1
        Serial input (raw pin level; synchronised inside).
    tx : Out(1), init 1
        Serial output.
    leds : Out(3)
        Bit 0 ready (waiting for a line, nothing left to send), bit 1 thinking (the player
        chooses its move), bit 2 error (the last line was answered with an error; cleared when
        the next line is read).
    report : In(SearchReport)
        How the player's last search went (depth, seed, nodes, core, ...), for simulations
        and benchmarks; no pins.
    node_limit : In(32)
        The player's searches also stop after this many legal placements (0, on a board:
        none): where its twin, which cannot count cycles, stops too, so that tests predict
        every answer; no pins.
    perft_count : Out(COUNT_BITS)
        The perft unit's count, counting up while it runs, for the benchmark's progress; no
        pin (only with ``perft``).
    """

    def __init__(self, *, clk_freq, baud=115200, capacity=128, spram=False, dual=False,
                 quad=False, player_id="trax-fpga", think_time=THINK_TIME, perft=True, cores=1,
                 cap=TEST_CAP, scoped=False, tt=None, tt_bits=INDEX_BITS):
        if spram and dual:
            raise ValueError("an SPRAM store has one port: spram and dual exclude each other")
        if capacity & (capacity - 1) or not 8 <= capacity:
            raise ValueError(f"capacity must be a power of two from 8 up, not {capacity}")
        check_capacity(capacity)
        check_think_time(think_time, clk_freq)
        self.clk_freq = clk_freq
        self.baud = baud
        self.capacity = capacity
        self.log2n = capacity.bit_length() - 1
        self.spram = spram
        self.dual = dual
        self.quad = quad
        self.player_id = player_id
        self.think_time = think_time
        self.perft = perft
        check_cores(cores)              # here: the cores are made later
        self.cores = cores
        self.cap = cap
        self.scoped = scoped
        self.tt, self.tt_bits = table_of(tt, dual), tt_bits
        self.budget = budget_cycles(think_time, clk_freq)
        self.divisor = divisor_for(clk_freq, baud)
        self.line_depth = LINE_MAX + 1
        super().__init__({
            "rx":             In(1, init=1),
            "tx":             Out(1, init=1),
            "leds":           Out(3),
            "report":         In(SearchReport),
            "node_limit":     In(NODE_BITS),
            **({"perft_count": Out(COUNT_BITS)} if perft else {}),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = rx = UARTRx(self.divisor)
        m.submodules.uart_tx = tx = UARTTx(self.divisor)
        m.submodules.linebuf = linebuf = LineBuffer(self.line_depth)
        m.submodules.cores = cores = Cores(n=self.cores, log2n=self.log2n, perft=self.perft,
                                           clear_on_start=self.spram, spram=self.spram,
                                           dual=self.dual, quad=self.quad, tt=self.tt,
                                           tt_bits=self.tt_bits,
                                           cap=self.cap, scoped=self.scoped)
        m.submodules.protocol = proto = Protocol(capacity=self.capacity,
                                                 player_id=self.player_id,
                                                 line_depth=self.line_depth,
                                                 perft=self.perft)

        m.d.comb += [rx.rx.eq(self.rx), self.tx.eq(tx.tx)]
        wiring.connect(m, rx.stream, linebuf.rx)
        wiring.connect(m, linebuf.line, proto.line)
        m.d.comb += [linebuf.rd_addr.eq(proto.line_addr), proto.line_data.eq(linebuf.rd_data)]
        wiring.connect(m, proto.tx, tx.stream)
        if self.perft:
            wiring.connect(m, proto.perft, cores.perft)
            m.d.comb += self.perft_count.eq(cores.perft.count)
        wiring.connect(m, proto.engine_cmd, cores.cmd)
        wiring.connect(m, cores.res, proto.engine_res)
        # A generator that runs on every cycle seeds each search's noise: the moment the
        # opponent's move arrives picks among equal moves, so games vary.
        noise = Signal(16, init=LFSR_SEED)
        m.d.sync += noise.eq(lfsr_step(noise))
        wiring.connect(m, proto.search, cores.ctl)
        wiring.connect(m, wiring.flipped(self.report), cores.report)
        wiring.connect(m, cores.cells, proto.engine_cells)

        m.d.comb += [
            self.leds[LED_READY].eq(proto.idle & ~tx.busy),
            self.leds[LED_THINKING].eq(proto.thinking),
            self.leds[LED_ERROR].eq(proto.error),
            cores.limits.seed.eq(noise),
            cores.limits.budget_cycles.eq(self.budget),
            cores.limits.node_limit.eq(self.node_limit),
        ]
        return m
