"""The protocol's microcode: instruction encoding, the assembler's checks, the program's shape."""

import random

import pytest

from traxfpga.firmware.isa import PC_BITS, Asm, Cond, Op, decode, encode
from traxfpga.firmware.program import IDLE, program
from traxfpga.firmware.text import COLOURS, ERRORS, LINE_MAX, REASONS
from traxfpga.hdl.tiles import STATUS_CODES, Status


def test_encode_decode_round_trip():
    rng = random.Random(5)
    for _ in range(200):
        fields = {"target": rng.randrange(1 << PC_BITS), "imm": rng.randrange(256),
                  "op": rng.randrange(32), "cond": rng.randrange(32), "neg": rng.randrange(2),
                  "inc": rng.randrange(2), "inc_else": rng.randrange(2), "think": rng.randrange(2)}
        assert decode(encode(**fields)) == fields
    with pytest.raises(AssertionError):
        encode(imm=256)


def test_engine_and_release_must_be_unconditional():
    a = Asm()
    a.i(Op.ENGINE, imm=0)
    a.i(Op.RELEASE)
    with pytest.raises(AssertionError):
        a.i(Op.ENGINE, cond=Cond.RES)
    with pytest.raises(AssertionError):
        a.i(Op.RELEASE, cond=Cond.ALWAYS, neg=True)


@pytest.mark.parametrize("capacity,player_id", [(128, "trax-fpga"), (8, "T"), (512, "x" * 60)])
def test_program_assembles(capacity, player_id):
    asm = program(player_id=player_id, capacity=capacity)
    words = asm.assemble(1 << PC_BITS)
    assert asm.labels[IDLE] == 0                       # where the sequencer starts, and waits
    fields = [decode(w) for w in words[:len(asm.code)]]
    # every target lies inside the program (a RET's is unused)
    assert all(f["target"] < len(asm.code) for f in fields if f["op"] != Op.RET)
    # jump tables are aligned: a table's base has no bit in common with its indices
    for name, size in (("error_names", 32), ("colour_names", 4), ("role_names", 4),
                       ("reason_names", 4), ("variant_names", 4), ("line_errors", 4)):
        assert asm.labels[name] % size == 0, name
    # the player's scan is marked as thinking, and nothing else is
    thinking = {asm.labels["think"] + i for i in range(sum(f["think"] for f in fields))}
    assert {pc for pc, f in enumerate(fields) if f["think"]} == thinking
    # the ID is printed as given
    emitted = bytes(f["imm"] for f in fields if f["op"] == Op.EMIT and f["imm"] < 0x80)
    assert (player_id + "\n").encode() in emitted


def test_program_rejects_bad_player_ids():
    for bad in ("", "x" * 61, "tab\there", "é"):
        with pytest.raises(ValueError):
            program(player_id=bad)


def test_error_names_are_the_engine_codes():
    for st in Status:
        if st != Status.OK:
            assert ERRORS[st.value] == STATUS_CODES[st]
    assert len(ERRORS) <= 32 and LINE_MAX == 127
    assert COLOURS == ("-", "white", "black") and REASONS == ("-", "loop", "line", "draw")


def test_immediates_must_fit_what_the_hardware_reads():
    """An ENGINE carrying EVAL (4) keeps its third bit (the sequencer reads three); an
    immediate wider than its op's field, or than the byte, is refused."""
    from traxfpga.firmware.isa import ENGINE_OP_BITS, IMM_BITS
    from traxfpga.hdl.engine import Op as EngineOp
    a = Asm()
    a.i(Op.ENGINE, imm=EngineOp.EVAL.value)
    assert EngineOp.EVAL.value < 1 << ENGINE_OP_BITS == 1 << IMM_BITS[Op.ENGINE]
    for op, bits in IMM_BITS.items():
        with pytest.raises(ValueError, match="does not fit"):
            a.i(op, imm=1 << bits)
    with pytest.raises(ValueError, match="does not fit"):
        a.goto("x", cond=Cond.EQ, imm=256)
    with pytest.raises(ValueError, match="cannot also test"):
        a.i(Op.SET_ERR, cond=Cond.EQ, imm=1)
