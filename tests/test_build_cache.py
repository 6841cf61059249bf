"""The compiled-simulation cache: a design is compiled once, even when several processes
(parallel test workers) ask for it at the same moment."""

import threading
import time

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from traxfpga.sim.build_cache import cached_build


class Blink(wiring.Component):
    led: Out(1)

    def elaborate(self, platform):
        m = Module()
        v = Signal()
        m.d.sync += v.eq(~v)
        m.d.comb += self.led.eq(v)
        return m


def test_a_design_asked_for_at_once_is_compiled_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAX_FPGA_CACHE", str(tmp_path))
    made = []

    def make(work):
        made.append(work)
        time.sleep(0.5)                 # long enough for the other asker to arrive
        (work / "libblink.so.tmp").write_text("a library")

    libs = []

    def ask():
        libs.append(cached_build(Blink(), name="blink", backend="fake", label="Fake",
                                 recipe="1", make=make))

    askers = [threading.Thread(target=ask) for _ in range(3)]
    for t in askers:
        t.start()
    for t in askers:
        t.join()
    assert len(made) == 1 and len(set(libs)) == 1
    assert libs[0].read_text() == "a library"
    assert not made[0].exists()         # the work folder is gone
    # ... and later askers find it at once
    assert cached_build(Blink(), name="blink", backend="fake", label="Fake", recipe="1",
                        make=make) == libs[0] and len(made) == 1
