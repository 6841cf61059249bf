"""What the simulation backends share in plain Python: their names (for the command line's
choices; ``auto`` picks the fastest this machine can build, see docs/simulation.md), and
reading a signed port, which the compiled ones give unsigned."""

BACKENDS = ("auto", "verilator", "cxxrtl", "pysim")


def signed16(v):
    """A 16-bit signed port's value, read unsigned from a compiled simulation."""
    return v - (1 << 16) if v & 0x8000 else v
