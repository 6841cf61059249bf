"""What the simulations tell the user on standard error, so a long first run is not silent.

A compiled simulation (Verilator or CXXRTL) is built the first time a design is used, which
takes from a few seconds to several minutes, and is cached afterwards.  Without a C++
compiler the simulations fall back to Amaranth's simulator, which is much slower: that is
said once per process.
"""

import sys

__all__ = ["compiling", "slow_simulator"]

_said_slow = []


def compiling(name, tool, cache):
    """One line: the ``name`` design is being compiled with ``tool``, cached in ``cache``."""
    print(f"trax-fpga: compiling the {name} design with {tool} (first use only: seconds to "
          f"a few minutes; cached in {cache} afterwards) ...", file=sys.stderr, flush=True)


def slow_simulator():
    """Once per process: no C++ compiler, so Amaranth's simulator is used."""
    if _said_slow:
        return
    _said_slow.append(True)
    print("trax-fpga: no C++ compiler found: simulating with Amaranth's simulator, about 150 "
          "times slower than the compiled backends (install g++, or set CXX)",
          file=sys.stderr, flush=True)
