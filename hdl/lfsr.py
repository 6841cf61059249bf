"""The noise generator of the board's search: a 16-bit Galois LFSR, one source for the
hardware (:mod:`.pvs`, and the device's free-running seed in
:mod:`traxfpga.firmware.top`) and the software twin (:mod:`traxfpga.host.reference.pvs`).
No Amaranth import, so that the reference runs on the standard library:
:func:`lfsr_step` works on whatever value it is given, an Amaranth one included."""

__all__ = ["LFSR_SEED", "LFSR_TAPS", "lfsr_next", "lfsr_step"]

LFSR_SEED = 0xACE1          # the default start (never 0: the LFSR would stay there)
LFSR_TAPS = 0xB400          # x^16 + x^14 + x^13 + x^11 + 1


def lfsr_next(v: int) -> int:
    """One step from the integer ``v``."""
    return (v >> 1) ^ (LFSR_TAPS if v & 1 else 0)


def lfsr_step(v):
    """One step from the 16-bit Amaranth value ``v``: the same as :func:`lfsr_next`, with
    the taps masked by the bit shifted out instead of a branch."""
    return (v >> 1) ^ (v[0].replicate(16) & LFSR_TAPS)
