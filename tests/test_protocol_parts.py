"""The protocol's building blocks in Amaranth's simulator: number printer, line buffer, register
stage."""

import random

from amaranth.sim import Simulator

from traxfpga.hdl.linebuf import LineBuffer, LineError
from traxfpga.hdl.notation import NumberText
from traxfpga.host.reference.trax import column_name

SEED = 4015


def run(dut, bench, *, deadline=None):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


# -- number printer -----------------------------------------------------------------------

def _print_all(dut, cases, max_cycles=None):
    """The text ``dut`` (a NumberText) prints for each ``(value, column)`` of ``cases``, its
    output always ready; with ``max_cycles``, each must be done within that many cycles."""
    got = []

    async def bench(ctx):
        ctx.set(dut.out.ready, 1)
        for value, column in cases:
            ctx.set(dut.value, value)
            ctx.set(dut.column, column)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            text = bytearray()
            cycles = 0
            while True:
                _, _, busy, valid, payload = await ctx.tick().sample(
                    dut.busy, dut.out.valid, dut.out.payload)
                cycles += 1
                if valid:
                    text.append(payload)
                if not busy:
                    break
                assert max_cycles is None or cycles < max_cycles
            got.append(text.decode())

    run(dut, bench)
    return got


def test_number_text_decimal_and_columns():
    dut = NumberText()
    rng = random.Random(SEED)
    cases = [(v, False) for v in (0, 1, 9, 10, 99, 100, 1000, 10000, 65535, 40000, 10001)]
    cases += [(rng.randrange(65536), False) for _ in range(40)]
    cases += [(v & 0xFFFF, True) for v in (-1, 0, 1, 25, 26, 51, 52, 701)] + \
             [(rng.randint(-1, 701) & 0xFFFF, True) for _ in range(40)]
    got = _print_all(dut, cases, max_cycles=200)
    for (value, column), text in zip(cases, got):
        expected = column_name(value - 0x10000 if value >> 15 else value) if column else str(value)
        assert text == expected, (value, column)


def test_number_text_forty_bits():
    """The perft count's printer: 13 digits, the same one subtraction a cycle; a column,
    sign-extended to the width, still prints as its letters."""
    dut = NumberText(40)
    rng = random.Random(SEED)
    mask = (1 << 40) - 1
    cases = [(v, False) for v in (0, 7, 10, 65536, 7_209_480, 10 ** 12, mask)]
    cases += [(rng.randrange(1 << rng.randrange(1, 41)), False) for _ in range(20)]
    cases += [(v & mask, True) for v in (-1, 0, 25, 26, 701)]
    got = _print_all(dut, cases)
    expected = [column_name(v - (1 << 40) if v >> 39 else v) if column else str(v)
                for v, column in cases]
    assert got == expected


def test_number_text_waits_for_the_consumer():
    dut = NumberText()

    async def bench(ctx):
        ctx.set(dut.value, 4071)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        text = bytearray()
        for i in range(400):
            ctx.set(dut.out.ready, i % 7 == 0)
            _, _, valid, ready, payload = await ctx.tick().sample(
                dut.out.valid, dut.out.ready, dut.out.payload)
            if valid and ready:
                text.append(payload)
        assert text == b"4071"
        assert not ctx.get(dut.busy)

    run(dut, bench)


# -- line buffer --------------------------------------------------------------------------

class LineBench:
    """Feed bytes into a LineBuffer and collect the lines it offers."""

    def __init__(self, depth=16):
        self.dut = LineBuffer(depth)

    def run(self, script):
        """``script`` is a list of (byte or None for an idle cycle, framing_error, hold):
        ``hold`` keeps the consumer from taking lines.  Returns the lines as
        (error name, text) in the order they were taken."""
        dut = self.dut
        taken = []

        async def bench(ctx):
            hold = False
            reading = None          # the line being read: [addr, bytes, length]
            for byte, framing, hold in script + [(None, 0, False)] * 200:
                # the consumer: read the whole line, then take it (unless holding)
                valid, info = ctx.get(dut.line.valid), ctx.get(dut.line.payload)
                ctx.set(dut.line.ready, 0)
                if valid and not hold:
                    if reading is None:
                        reading = [0, bytearray(), info.length]
                    if reading[0] > 0:
                        reading[1].append(ctx.get(dut.rd_data))
                    if reading[0] < reading[2]:
                        ctx.set(dut.rd_addr, reading[0])
                        reading[0] += 1
                    else:
                        err = LineError(info.error)
                        taken.append((err.name, bytes(reading[1]) if err == LineError.NONE
                                      else b""))
                        ctx.set(dut.line.ready, 1)
                        reading = None
                if byte is not None:
                    ctx.set(dut.rx.payload.data, byte)
                    ctx.set(dut.rx.payload.framing_error, framing)
                    ctx.set(dut.rx.valid, 1)
                else:
                    ctx.set(dut.rx.valid, 0)
                await ctx.tick()

        run(dut, bench)
        return taken


def feed(data, *, framing_at=(), hold=False, gap=8):
    script = []
    for i, b in enumerate(data):
        script.append((b, int(i in framing_at), hold))
        script += [(None, 0, hold)] * gap
    return script


def test_linebuf_lines_cr_and_empty():
    """LF, CR LF and CR alone (a terminal that sends CR for Enter) each end one line; an empty
    line is offered as one (the protocol ignores it)."""
    bench = LineBench(depth=16)
    taken = bench.run(feed(b"-T\r\n\nA1+\nB2\\\r\r\n:board\rC3/\r\r\r\n\n"))
    assert taken == [("NONE", b"-T"), ("NONE", b""), ("NONE", b"A1+"), ("NONE", b"B2\\"),
                     ("NONE", b""), ("NONE", b":board"), ("NONE", b"C3/"), ("NONE", b""),
                     ("NONE", b""), ("NONE", b"")]


def test_linebuf_cr_lf_while_the_line_is_handled():
    """The LF of a CR LF arrives while the line the CR ended is being handled: it is no busy
    line of its own.  Nor does a CR LF count twice for a busy line or an overlong one."""
    bench = LineBench(depth=16)
    script = feed(b"A1+") + feed(b"\r\nB2+\r\n", hold=True) + [(None, 0, False)] * 40 + \
        feed(b"x" * 20 + b"\r\n" + b"C3+\r\n", gap=20)
    taken = bench.run(script)
    assert taken == [("NONE", b"A1+"), ("BUSY", b""), ("OVERLONG", b""), ("NONE", b"C3+")]


def test_linebuf_framing_error_on_cr():
    """A CR with a framing error ends nothing: its line is a framing line, ended by the LF."""
    taken = LineBench(depth=16).run(feed(b"A1+\rB2+\r\n", framing_at=(3,)))
    assert taken == [("FRAMING", b"")]


def test_linebuf_overlong_and_exact_fit():
    bench = LineBench(depth=16)
    fits = b"x" * 15
    taken = bench.run(feed(fits + b"\r\n" + fits + b"\n" + b"y" * 16 + b"\n" +
                           b"z" * 40 + b"\r\n" + b"ok\n", gap=20))
    assert taken == [("NONE", fits), ("NONE", fits), ("OVERLONG", b""), ("OVERLONG", b""),
                     ("NONE", b"ok")]


def test_linebuf_framing_error_spoils_one_line():
    bench = LineBench(depth=16)
    taken = bench.run(feed(b"A1+\nB2+\nC3+\n", framing_at=(5, 7)))   # "2" and the LF of B2+
    # The LF with a framing error does not end the line: "B?+?C3+" is one framing line.
    assert taken == [("NONE", b"A1+"), ("FRAMING", b"")]
    taken = LineBench(depth=16).run(feed(b"A1+\nB2+\nC3+\n", framing_at=(5,)))
    assert taken == [("NONE", b"A1+"), ("FRAMING", b""), ("NONE", b"C3+")]


def test_linebuf_busy_lines_each_get_one_error():
    bench = LineBench(depth=16)
    # While the first line is held (being handled), two whole lines and a partial one arrive;
    # the partial one ends after the first line has been taken.
    script = feed(b"A1+") + feed(b"\nB2+\nC3+\nD4", hold=True) + feed(b"+\n") + \
        [(None, 0, False)] * 40 + feed(b"E5+\n")
    taken = bench.run(script)
    assert taken == [("NONE", b"A1+"), ("BUSY", b""), ("BUSY", b""), ("BUSY", b""),
                     ("NONE", b"E5+")]


# -- register stage ---------------------------------------------------------------------------

def test_stage_passes_every_transfer_in_order():
    """Random offers and random readiness: what comes out is what went in, in order."""
    from traxfpga.hdl.stage import Stage
    dut = Stage(16)
    rng = random.Random(SEED + 1)
    sent = [rng.randrange(1 << 16) for _ in range(200)]
    got = []

    async def bench(ctx):
        i = 0
        for _ in range(2000):
            if i < len(sent):
                ctx.set(dut.i.valid, rng.random() < 0.7)
                ctx.set(dut.i.payload, sent[i])
            else:
                ctx.set(dut.i.valid, 0)
            ctx.set(dut.o.ready, rng.random() < 0.6)
            _, _, i_ready, i_valid, o_valid, o_ready, o_payload = await ctx.tick().sample(
                dut.i.ready, dut.i.valid, dut.o.valid, dut.o.ready, dut.o.payload)
            if i_valid and i_ready:
                i += 1
            if o_valid and o_ready:
                got.append(o_payload)
        assert i == len(sent)

    run(dut, bench)
    assert got == sent
