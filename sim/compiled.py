"""The compiled simulators by backend name, and the fastest one this machine can build.

Both compiled backends give the same stepping interface (``get``, ``set``, ``tick``,
``until``, ``collect``, ``pump``; see :class:`~traxfpga.sim.cxxrtl.CompiledSim`), so the
engine's, the search core's and the device's simulations each take whichever is here.
"""

from . import cxxrtl, notices, verilator

__all__ = ["COMPILED", "default_backend"]

#: The compiled simulators, fastest first.
COMPILED = {"verilator": verilator.VerilatorSim, "cxxrtl": cxxrtl.CxxrtlSim}


def default_backend():
    """The fastest backend this machine can build: Verilator, then CXXRTL (both need a C++
    compiler), else Amaranth's simulator (said once on stderr: it is about 150 times
    slower)."""
    if verilator.available():
        return "verilator"
    if cxxrtl.available():
        return "cxxrtl"
    notices.slow_simulator()
    return "pysim"
