"""The names of the simulation backends (plain Python, for the command line's choices):
``auto`` picks the fastest this machine can build (see docs/simulation.md)."""

BACKENDS = ("auto", "verilator", "cxxrtl", "pysim")
