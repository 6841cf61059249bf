"""The compiled-simulation cache: a design is compiled once, even when several processes
(parallel test workers) ask for it at the same moment."""

import importlib
from pathlib import Path
import threading
import time

import pytest

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from traxfpga.sim import build_cache
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


class CountedBlink(Blink):
    elaborated = 0

    def elaborate(self, platform):
        CountedBlink.elaborated += 1
        return super().elaborate(platform)


def test_a_design_known_by_how_it_was_made_is_not_elaborated_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAX_FPGA_CACHE", str(tmp_path))
    monkeypatch.setattr(CountedBlink, "elaborated", 0)
    made = []

    def make(work):
        made.append(work)
        (work / "libblink.so.tmp").write_text("a library")

    def ask(made_as):
        return cached_build(CountedBlink(), name="blink", backend="fake", label="Fake",
                            recipe="1", make=make, made_as=made_as)

    lib = ask(("Blink", {"n": 1}))
    assert CountedBlink.elaborated == 1 and len(made) == 1
    assert ask(("Blink", {"n": 1})) == lib and CountedBlink.elaborated == 1
    # Other arguments: elaborated again (the same RTLIL here, so the same library).
    assert ask(("Blink", {"n": 2})) == lib and CountedBlink.elaborated == 2
    # A changed source file: elaborated again too.
    monkeypatch.setattr(build_cache, "sources_digest", lambda: "another source")
    assert ask(("Blink", {"n": 1})) == lib and CountedBlink.elaborated == 3
    # Without a description, every call elaborates; the library was compiled once.
    assert ask(None) == lib and CountedBlink.elaborated == 4 and len(made) == 1


def test_an_index_entry_whose_library_is_gone_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAX_FPGA_CACHE", str(tmp_path))
    made = []

    def make(work):
        made.append(work)
        (work / "libblink.so.tmp").write_text("a library")

    lib = cached_build(Blink(), name="blink", backend="fake", label="Fake", recipe="1",
                       make=make, made_as="blink")
    lib.unlink()
    assert cached_build(Blink(), name="blink", backend="fake", label="Fake", recipe="1",
                        make=make, made_as="blink") == lib
    assert lib.exists() and len(made) == 2


@pytest.mark.parametrize("package", ["amaranth", "traxfpga.hdl", "traxfpga.firmware",
                                     "traxfpga.sim"])
def test_the_sources_digest_changes_with_any_source_file(package, monkeypatch):
    """An edit to any file of a package the designs come from names other libraries."""
    root = Path(importlib.import_module(package).__file__).parent
    edited = root / "__init__.py"
    read_bytes = Path.read_bytes
    before = build_cache.sources_digest.__wrapped__()
    monkeypatch.setattr(Path, "read_bytes",
                        lambda p: read_bytes(p) + (b"# edited" if p == edited else b""))
    assert build_cache.sources_digest.__wrapped__() != before
