"""A long first run is not silent: the first compile of a design says what is compiled and
where it is cached (and a cached one says nothing); without a C++ compiler the slow simulator
is announced once."""

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from traxfpga.sim import cxxrtl, notices, verilator


class Counter(wiring.Component):
    count: Out(4)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.count.eq(self.count + 1)
        return m


class Stop(Exception):
    pass


@pytest.mark.parametrize("module, tool", [(cxxrtl, "CXXRTL"), (verilator, "Verilator")])
def test_the_first_compile_is_announced_and_a_cached_one_is_not(module, tool, tmp_path,
                                                                monkeypatch, capsys):
    monkeypatch.setenv("TRAX_FPGA_CACHE", str(tmp_path))

    def no_tools(*args, **kwargs):          # the notice comes before any tool runs
        raise Stop

    monkeypatch.setattr(module.subprocess, "run", no_tools)
    with pytest.raises(Stop):
        module.build(Counter(), name="counter")
    err = capsys.readouterr().err
    assert f"compiling the counter design with {tool}" in err
    assert str(tmp_path) in err and "cached" in err
    # Once the library is in the cache: silence.
    (work,) = [p for p in tmp_path.glob("*/*") if p.is_dir()]
    (work / "libcounter.so").write_bytes(b"")
    assert module.build(Counter(), name="counter") == work / "libcounter.so"
    assert capsys.readouterr().err == ""


def test_the_slow_simulator_is_announced_once(monkeypatch, capsys):
    from traxfpga.sim import core, device
    monkeypatch.setattr(notices, "_said_slow", [])
    monkeypatch.setattr(verilator, "available", lambda: False)
    monkeypatch.setattr(cxxrtl, "available", lambda: False)
    sim = core.CoreSim(log2n=3)             # the engine alone says it too
    try:
        assert sim.backend == "pysim"
    finally:
        sim.close()
    err = capsys.readouterr().err
    assert err.count("Amaranth's simulator") == 1, err
    assert "minute" not in err
    assert device.default_backend() == "pysim"      # and only once per process
    assert capsys.readouterr().err == ""
