"""Formal proofs of the hardware's interfaces with SymbiYosys (see docs/formal.md).

Each proof runs ``yowasp-sby`` on a harness from ``tests/formal/``; each has a twin that
injects a fault (a mutated property or a dropped assumption) and checks that the solver
finds the counterexample, so a proof cannot pass by being vacuous or mis-wired.  A missing
tool fails these tests (it never skips them).
"""

import pytest

from formal.engine import RefusalHarness, StreamHarness
from formal.linebuf import LineBufHarness
import formal.sby
from formal.sby import ToolMissing, run_sby, tool_env
from formal.uart import RxHarness, TxHarness

MEMORY_MAP = "memory_map; opt -fast"      # small memories as flip-flops: much faster


def check(harness, *, mode, depth, expect="PASS", script=""):
    result = run_sby(harness, harness.ports, mode=mode, depth=depth, script=script)
    summary = "\n".join(line for line in result.log.splitlines()
                        if "summary" in line or "rror" in line or "DONE" in line)
    assert result.status == expect, f"sby: {result.status}, expected {expect}\n{summary}"
    return result


def test_tools_present():
    tool_env()          # raises ToolMissing, naming the missing tools


def test_missing_tool_is_an_error(monkeypatch):
    monkeypatch.setattr(formal.sby, "TOOLS", formal.sby.TOOLS + ("no-such-solver",))
    with pytest.raises(ToolMissing, match="no-such-solver"):
        tool_env()


# -- UART transmitter: every accepted byte, and nothing else, as a correct frame ----------

def test_uart_tx_proved():
    check(TxHarness(divisor=4), mode="prove", depth=41)


def test_uart_tx_fault_found():
    check(TxHarness(divisor=4, mutant="msb_first"), mode="bmc", depth=12, expect="FAIL")


# -- UART receiver: one item or one overrun per frame, flags, breaks -----------------------

def test_uart_rx_proved():
    # k-induction, with invariants that pin the receiver's state to the frame on the line.
    check(RxHarness(divisor=4, inductive=True), mode="prove", depth=12)


def test_uart_rx_fault_found():
    check(RxHarness(divisor=4, mutant="flag_ignored"), mode="bmc", depth=48, expect="FAIL")


def test_uart_rx_invariant_fault_found():
    # A wrong invariant (the bits sampled a cycle late) fails in the base case.
    check(RxHarness(divisor=4, mutant="late_sample", inductive=True), mode="prove", depth=12,
          expect="FAIL")


# -- line buffer: one answer per line, the right one ---------------------------------------

def test_linebuf_proved():
    # k-induction, with invariants that tie the buffer's busy count, error, write pointer
    # and memory to the harness's count of owed lines and the line it follows.
    check(LineBufHarness(depth=4, inductive=True), mode="prove", depth=6, script=MEMORY_MAP)


def test_linebuf_fault_found():
    check(LineBufHarness(depth=4, mutant="overlong_first"), mode="bmc", depth=12,
          expect="FAIL", script=MEMORY_MAP)


def test_linebuf_invariant_fault_found():
    # A wrong invariant (the write pointer counts characters past an error) fails in the
    # base case.
    check(LineBufHarness(depth=4, mutant="wptr_all", inductive=True), mode="prove", depth=6,
          expect="FAIL", script=MEMORY_MAP)


# -- engine: the command, result and cells streams -----------------------------------------

def test_engine_streams_proved():
    # k-induction, with invariants on the engine's state machine; without the bounded
    # "result within PATIENCE cycles", which only a BMC can check.
    check(StreamHarness(inductive=True), mode="prove", depth=12)


def test_engine_streams_invariant_fault_found():
    # A wrong invariant ("dumping only for EVAL") fails in the base case.
    check(StreamHarness(mutant="dump_for_eval", inductive=True), mode="prove", depth=12,
          expect="FAIL")


def test_engine_streams_bmc():
    check(StreamHarness(), mode="bmc", depth=20)


def test_engine_streams_fault_found():
    # The bound reaches commands slower than 3 cycles: the result-time check can fail.
    check(StreamHarness(mutant="impatient"), mode="bmc", depth=12, expect="FAIL")


# -- engine: a refused PLACE leaves the board memories as they were ------------------------

#: Openings for make test's refusal proofs (20 to 60 s each): after them the solver picks the
#: refused moves.  The same proof from the empty board, where the solver picks the opening
#: too, takes minutes: docs/formal.md shows how to run it.
OPENINGS = {"@0/ @1/": [(-1, -1, "/"), (-1, 0, "/")],     # many third moves force a tile
            "@0+ @1+": [(-1, -1, "+"), (-1, 0, "+")]}

#: With log_depth=2 a move with a forced play is refused (CAPACITY) after a rollback, the
#: first of them at cycle 48: the bound reaches a few cycles past it, and
#: test_engine_refusal_bound_reaches_rollbacks checks that it does.
REFUSAL_DEPTH = 51
#: The dual-port schedule's first refusal by rollback ends at cycle 34 (its steps are fewer):
#: its proof's bound reaches a few cycles past it.
DUAL_REFUSAL_DEPTH = 40
#: The four-read schedule's ends at cycle 31: its bound reaches a few cycles past it.
QUAD_REFUSAL_DEPTH = 36


@pytest.mark.slow
def test_engine_refusal_bmc():
    # PLACE alone, after the other opening (after @0/ @1/ with SEEK too, below).
    check(RefusalHarness(OPENINGS["@0+ @1+"], log_depth=2, seek=False), mode="bmc",
          depth=REFUSAL_DEPTH)


def test_engine_refusal_bound_reaches_rollbacks():
    # "No refused PLACE ever wrote to the store" fails within the bound: refusals by
    # rollback are among the refusals proved.
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, seek=False, mutant="no_rollback"),
          mode="bmc", depth=REFUSAL_DEPTH, expect="FAIL")


@pytest.mark.slow
def test_engine_seek_refusal_bmc():
    # PLACE or SEEK, at each command: the bound reaches SEEKs that pass placements over
    # (the seek_stays mutant fails at step 40), the refusals they end in, and refusals by
    # rollback.  Runs with PLACE alone are among these runs.
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2), mode="bmc", depth=REFUSAL_DEPTH)


@pytest.mark.slow
def test_engine_dual_refusal_bmc():
    # The dual-port schedule (the block-RAM boards'): its banked stores, each written at two
    # ports, its reads ahead of a tile and its take-back reading the neighbours it clears;
    # PLACE or SEEK.
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, dual=True), mode="bmc",
          depth=DUAL_REFUSAL_DEPTH)


def test_engine_dual_refusal_bound_reaches_rollbacks():
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, seek=False, mutant="no_rollback",
                         dual=True), mode="bmc", depth=DUAL_REFUSAL_DEPTH, expect="FAIL")


@pytest.mark.slow
def test_engine_quad_refusal_bmc():
    # The ECP5 boards' schedule: the dual-port one, its tiles reading four neighbours a
    # cycle at both ports of each bank; PLACE or SEEK.
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, dual=True, quad=True), mode="bmc",
          depth=QUAD_REFUSAL_DEPTH)


def test_engine_quad_refusal_bound_reaches_rollbacks():
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, seek=False, mutant="no_rollback",
                         dual=True, quad=True), mode="bmc", depth=QUAD_REFUSAL_DEPTH,
          expect="FAIL")


def test_engine_seek_bound_reaches_pass_overs():
    check(RefusalHarness(OPENINGS["@0/ @1/"], log_depth=2, mutant="seek_stays"), mode="bmc",
          depth=60, expect="FAIL")


def test_engine_refusal_fault_found():
    check(RefusalHarness(log_depth=2, mutant="any_place"), mode="bmc", depth=20,
          expect="FAIL")
