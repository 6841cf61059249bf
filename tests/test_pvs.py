# amaranth: UnusedElaboratable=no
"""The search sequencer: its program (PVS with iterative deepening, and the threat search)
against a plain minimax and the reference's win-by-force test, and the hardware
(hdl/pvs.py) against the twin that runs the same program (host/reference/pvs.py): the
same move, value, depth, nodes and instructions."""

import random

import pytest

from traxfpga.hdl.pvs_isa import (LEVELS, Asm, Cond, Op, Rel, leaf_value, pack_move,
                                  term_value, unpack_move)
from traxfpga.hdl.opening_book import BOOK
from traxfpga.hdl.pvs_program import MAX_BOOK, ROM_WORDS, F, program, schedule, threat_search
from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.evaluate import evaluate
from traxfpga.host.reference.forcing import forced_after, refuted, wins_by_force
from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game, Move, format_move, parse_move

from player_harness import SEED, _play_both, _reply_cycles, needs_cxx, timed_answers


def _positions(count, seed=SEED, low=4, high=16):
    rng = random.Random(seed)
    games = [g for g in load_corpus() if g["variant"] == "trax"]
    out = []
    while len(out) < count:
        g = rng.choice(games)
        game = Game()
        for mv in g["moves"][:rng.randrange(low, high)]:
            game.play(mv)
        if not game.over:
            out.append(list(game.moves))
    return out


def _minimax(g, depth, lv=1):
    """The value of ``g`` for the side to move, full width to ``depth`` plies, with the
    program's leaf and end values: what the program's alpha-beta must find."""
    if depth == 0:
        pot, att = evaluate(g)
        return leaf_value(pot, att, g.ply & 1)
    best = None
    for mv in g.legal_moves():
        mover = g.to_move
        g.play(mv)
        if g.over:
            v = term_value(g.winner == mover, g.winner not in (None, mover), lv)
        else:
            v = -_minimax(g, depth - 1, lv + 1)
        g.undo()
        best = v if best is None else max(best, v)
    return 0 if best is None else best


def test_move_word_round_trips():
    for col, row, tile in [(-1, -1, 0), (126, 126, 2), (0, 5, 1), (-1, 40, 2)]:
        assert unpack_move(pack_move(col, row, tile)) == (col, row, tile)


def test_assembler_refuses_what_does_not_fit():
    a = Asm()
    a.i(Op.LDI, x=1 << 16)
    with pytest.raises(ValueError):
        a.assemble()
    with pytest.raises(ValueError):
        program(max_iter=LEVELS - 2)
    # The block-RAM boards' programs fit four iCE40 block RAMs or one DP16KD a core; the
    # iCEBreaker's, with the table's queries, eight.
    assert len(program().assemble()) <= 512
    assert len(program(cores=3).assemble()) <= 512
    assert len(program(tt=True).assemble()) <= ROM_WORDS
    # ... with room for the largest book `trax-fpga book` makes
    full = [(n, 0, "") for n in range(MAX_BOOK)]
    assert len(program(tt=True, book=full).assemble()) <= ROM_WORDS


@pytest.mark.parametrize("depth", [1, 2])
def test_program_finds_the_minimax_value(depth):
    for moves in _positions(5):
        game = Game()
        for mv in moves:
            game.play(mv)
        before = game.board_rows()
        got = run(game, max_iter=depth, seed=None, threats=False)
        assert game.board_rows() == before and game.ply == len(moves)
        assert got.depth == depth and got.value == _minimax(game, depth), moves
        after = game.copy()
        after.play(got.move)            # legal, and its value is the best
        mover = game.to_move
        if after.over:
            value = term_value(after.winner == mover, after.winner not in (None, mover), 1)
        else:
            value = -_minimax(after, depth - 1, 2)
        assert value == got.value, moves


def test_program_plays_a_win_at_once_and_the_opening():
    assert run(Game()).move == Move(-1, -1, "/")
    rng = random.Random(SEED)
    seen = 0
    for g in rng.sample([g for g in load_corpus() if g["variant"] == "trax"], 60):
        game = Game()
        for mv in g["moves"]:
            if game.winning_moves():
                break
            game.play(mv)
        if game.over or not game.winning_moves():
            continue
        got = run(game, node_limit=2000)
        after = game.copy()
        after.play(got.move)
        assert after.winner == game.to_move, game.moves
        seen += 1
    assert seen >= 5


def _book_of(positions, pick):
    """A book answering each of ``positions`` (move lists) with its legal move ``pick``
    chooses, and the games."""
    from traxfpga.host.book import entry
    book, games = [], []
    for moves in positions:
        game = Game()
        for mv in moves:
            game.play(mv)
        book.append(entry(game, pick(game.legal_moves())))
        games.append(game)
    return book, games


def test_program_answers_from_its_book_and_searches_elsewhere():
    """A book's position is answered with its move, unsearched (the opening's depth 0);
    a position one move on is searched as
    without the book; the device's own book is the program's default."""
    from traxfpga.hdl.opening_book import BOOK
    from traxfpga.hdl.tile_chars import TILE_CHARS
    positions = _positions(3, seed=SEED + 5, low=6, high=14)
    book, games = _book_of(positions, lambda moves: moves[-1])
    code = program(tt=True, book=book).words()
    for (_, word, _), game in zip(book, games):
        got = run(game, node_limit=2000, code=code)
        col, row, tile = unpack_move(word)
        assert (got.move, got.depth, got.nodes) == (Move(col, row, TILE_CHARS[tile]), 0, 0)
        game.play(game.legal_moves()[0])
        plain = run(game, node_limit=2000, code=program(tt=True, book=()).words())
        assert run(game, node_limit=2000, code=code)[:4] == plain[:4]
    assert program(tt=True).words() == program(tt=True, book=BOOK).words()
    assert program(tt=False, book=book).words() == program(tt=False, book=()).words()


def _threat_test_code(depth, tt=False, scoped=False):
    """A program that runs only the threat search: does the side to move win by force
    within ``depth`` of its moves?  VALUE is the verdict, ANSWER the move it found."""
    a = Asm()
    a.i(Op.PROBE)
    a.i(Op.LDI, x=depth)
    a.i(Op.ST, (F.DEPTH, Rel.CHILD))
    a.i(Op.LDI, x="back")
    a.i(Op.ST, (F.RET, Rel.SELF))
    a.i(Op.UP)
    a.jmp("or_node")
    a.label("back")
    a.i(Op.LD, (F.WV, Rel.SELF))
    a.i(Op.VALUE)
    a.jmp("abort", Cond.ZERO)
    a.i(Op.ANSWER, (F.MOVE, Rel.CHILD))
    a.label("abort")
    a.i(Op.FINISH)
    threat_search(a, tt, scoped=scoped)
    return a.words()


@pytest.mark.parametrize("tt,scoped", [(False, False), (True, False), (False, True),
                                       (True, True)],
                         ids=["plain", "table", "scoped", "table-scoped"])
def test_threat_search_agrees_with_the_reference(tt, scoped):
    """The program's win-by-force test says what a plain recursion on the reference does
    (``wins_by_force``), at 1 to 3 of the mover's moves, and the move it names wins by
    force; with the transposition table too (the table changes no verdict), and with
    scoped scans (they miss no reply that ends the game)."""
    codes = {d: _threat_test_code(d, tt, scoped) for d in (1, 2, 3)}
    wins = {True: 0, False: 0}
    for moves in _positions(16, seed=SEED + 3, low=6, high=30):
        game = Game()
        for mv in moves:
            game.play(mv)
        me = game.ply & 1
        for d, code in codes.items():
            got = run(game, code=code)
            want = wins_by_force(game, me, d)
            assert bool(got.value) == want, (moves, d)
            wins[want] += 1
            if want:
                after = game.copy()
                after.play(got.move)
                assert after.winner == game.to_move or (
                    d > 1 and not after.over and forced_after(after, me, d)), (moves, d)
    assert wins[True] >= 3 and wins[False] >= 10, wins


def test_the_answer_holds_against_the_opponents_win_by_force():
    """Where the plain PVS's answer lets the opponent win by force within 2 moves and
    another move does not, the program's (iteration 3: the threat search at 2) holds."""
    seen = 0
    for moves in _positions(40, seed=SEED + 4, low=8, high=30):
        game = Game()
        for mv in moves:
            game.play(mv)
        plain = run(game, max_iter=2, threats=False)
        if not refuted(game, plain.move, 2):
            continue
        if all(refuted(game, mv, 2) for mv in game.legal_moves()):
            continue
        got = run(game, max_iter=3)
        assert schedule(3) == (2, 2)
        assert got.depth == 3 and not refuted(game, got.move, 2), moves
        seen += 1
    assert seen >= 2


def test_a_root_moves_test_gives_up_at_its_cap():
    """With a cap of 80 AND nodes, a root move's test can be cut short and its move count
    as refuted: a search differs from the uncapped program's, and an answer from a
    completed iteration still holds (a cut test refutes a move, it never clears one)."""
    capped = program(max_iter=3, tt=True, cap=80).words()
    plain = program(max_iter=3, tt=True).words()
    assert len(capped) > len(plain)                 # (no cap: none of its code)
    differ = held = 0
    for moves in _positions(8, seed=SEED + 4, low=8, high=30):
        game = Game()
        for mv in moves:
            game.play(mv)
        got = run(game, code=capped)
        differ += got[:4] != run(game, code=plain)[:4]
        if got.depth == 3:
            assert not refuted(game, got.move, 2), moves
            held += 1
    assert differ >= 1 and held >= 4, (differ, held)


def _refuting_position():
    """20 moves of a recorded game, where iteration 3 (the threat search at 2) refutes
    iteration 2's answer and finds the one move that holds near its end."""
    game = Game()
    for mv in ["@0/", "@1/", "B0/", "@2/", "@2/", "D0+", "D0/", "C1+", "E2\\", "D5+",
               "D0/", "B1+", "@1+", "@4+", "H2+", "I1\\", "F0/", "E0/", "J3\\", "C1\\"]:
        game.play(mv)
    return game


def test_a_refuted_answer_gives_way_to_one_that_held():
    """Out of budget in an iteration that refuted the last answer, the program answers a
    root move the iteration found to hold, not the refuted one: in the position of
    :func:`_refuting_position`, node limits just short of iteration 3's end stop it there."""
    game = _refuting_position()
    last = run(game, max_iter=2)
    complete = run(game, max_iter=3)
    depth = schedule(3)[1]
    assert complete.depth == 3 and refuted(game, last.move, depth)
    for short in (1, 4, 16, 64, 256, 1024):
        got = run(game, node_limit=complete.nodes - short)
        if got.depth == 2 and got.move != last.move:
            break
    else:
        raise AssertionError("no cut-short iteration 2 answered another move")
    assert not refuted(game, got.move, depth)


def test_a_refuted_answer_gives_way_to_the_move_under_test():
    """Out of budget while a root move's test runs, in an iteration that refuted the last
    answer and found no move to hold yet, the program with the table answers the move under
    test, which is not known to lose, not the refuted one.  In the position of
    :func:`_refuting_position` iteration 3's last test, of the move that holds, is its
    longest: cut during it, the search answers that move."""
    game = _refuting_position()
    last = run(game, max_iter=2)
    complete = run(game, max_iter=3)
    assert complete.depth == 3 and complete.move != last.move
    for limit in (10_000, 14_000):
        got = run(game, node_limit=limit)
        assert got.depth == 2 and got.move == complete.move, (limit, got)
    # Without the table's program (the block-RAM boards', no room for these words) its own
    # iteration 2's answer, refuted, stays.
    plain = run(game, max_iter=2, tt=False)
    assert refuted(game, plain.move, schedule(3)[1])
    assert run(game, node_limit=12_000, tt=False).move == plain.move


def test_a_move_cut_short_answers_only_if_it_held_one_move_less_deep():
    """Out of budget in the test of a root move, after the last answer was refuted and
    before any move held, the answer is the move under test only if it held one move less
    deep.  14 moves of a game the board lost to a 2016 contest program: iteration 5 (the
    threat search at 4) refutes iteration 4's answer ``B8\\``; the budget ends in the
    test of a move no iteration tested before, and answering that move (as the program did
    before the shallower test) loses within 2."""
    game = Game()
    for mv in ["@0/", "@1/", "@1/", "A0/", "A0/", "@2+", "A0/", "A0/", "C6+", "E5/",
               "C3\\", "D3+", "D2/", "B7\\"]:
        game.play(mv)
    assert refuted(game, parse_move("@1+"), 2)      # that answer, at 400,000 nodes
    got = run(game, node_limit=400_000, seed=0xACE1)
    assert got.depth == 4 and not refuted(game, got.move, 2), got


def test_seek_searches_as_place_does():
    """The scan loops' SEEK passes over in the engine what PLACE, NEXT and the jumps
    between them passed over in the program: with PLACE in SEEK's stead the program answers
    the same move with the same value, depth and nodes, in more instructions."""
    seeking = program().words()
    assert any(w["op"] == Op.SEEK for w in seeking)
    placing = [dict(w, op=Op.PLACE) if w["op"] == Op.SEEK else w for w in seeking]
    for k, moves in enumerate(_positions(6, low=8, high=24)):
        game = Game()
        for mv in moves:
            game.play(mv)
        for limit in (500, 5000):
            a = run(game, node_limit=limit, seed=k + 1, code=seeking)
            b = run(game, node_limit=limit, seed=k + 1, code=placing)
            assert a[:4] == b[:4], (moves, limit, a, b)
            assert a.insns < b.insns


# The cycles of `PVSSim.search`'s handshake around the search itself.
HANDSHAKE = 3


@pytest.fixture(scope="module")
def sim():
    from traxfpga.sim.pvs import PVSSim
    with PVSSim(log2n=7, profile=True) as s:
        yield s


def _setup(sim, moves):
    sim.reset("trax")
    game = Game()
    for mv in moves:
        _play_both(sim, game, mv)
    return game


@needs_cxx
def test_hardware_runs_the_program_as_the_twin(sim):
    """The same move, value, depth, nodes and instructions, and the same probes of the
    transposition table answered, as the twin's with the same table."""
    probes = hits = 0
    for k, moves in enumerate(_positions(8, seed=SEED + 1, high=24)):
        game = _setup(sim, moves)
        for limit, seed in ((300, 0xACE1), (2500 + 500 * k, 1 + 7919 * k)):
            sim.limits(nodes=limit)
            sim.set_seed(seed)
            got = sim.search()
            want = run(game, node_limit=limit, seed=seed)
            assert (got.move, got.depth, got.value, got.nodes, got.insns, got.tt_probes,
                    got.tt_hits) == (format_move(want.move), want.depth, want.value,
                                     want.nodes, want.insns, want.tt_probes,
                                     want.tt_hits), moves
            assert got.engine_cycles < got.cycles
            probes += got.tt_probes
            hits += got.tt_hits
        # the position is as it was: the engine and the reference agree on a move
        _play_both(sim, game, format_move(want.move))
    assert 0 < hits < probes


@needs_cxx
@pytest.mark.parametrize("quad", [False, True], ids=["dual", "four-reads"])
def test_block_ram_schedules_run_the_tables_program_as_the_twin(quad):
    """The ECP5 boards' cores (block RAM, two or four reads a cycle) with the table: the
    same move, value, depth, nodes, instructions and probes answered as the twin's, whose
    table's keys are of the store's squares."""
    from traxfpga.sim.pvs import PVSSim
    probes = hits = 0
    with PVSSim(log2n=6, dual=True, quad=quad, tt=True) as sim:
        for k, moves in enumerate(_positions(4, seed=SEED + 2, high=24)):
            game = _setup(sim, moves)
            for limit in (600, 8000 + 4000 * k):
                sim.limits(nodes=limit)
                got = sim.search()
                want = run(game, node_limit=limit, seed=sim.seed, log2n=6)
                assert (got.move, got.depth, got.value, got.nodes, got.insns, got.tt_probes,
                        got.tt_hits) == (format_move(want.move), want.depth, want.value,
                                         want.nodes, want.insns, want.tt_probes,
                                         want.tt_hits), moves
                probes += got.tt_probes
                hits += got.tt_hits
        # the opening book's positions key as on the iCEBreaker's store: answered from it
        for _, _, text in BOOK[:3]:
            moves, answer = text.split(": ")
            _setup(sim, moves.split())
            got = sim.search()
            assert (got.move, got.nodes) == (answer.split()[0], 0), text
    assert 0 < hits < probes


@needs_cxx
@pytest.mark.parametrize("dual", [True, False], ids=["dual", "one-port"])
def test_hardware_runs_the_scoped_program_as_the_twin(dual):
    """With scoped scans (an engine keeping each placement's scope, the sequencer its
    lists): the same move, value, depth, nodes and instructions as the twin's, deep enough
    for the threat search's AND nodes to scan in scope."""
    from traxfpga.sim.pvs import PVSSim
    code = program(tt=not dual, scoped=True).words()
    with PVSSim(log2n=7, dual=dual, scoped=True) as sim:
        for k, moves in enumerate(_positions(3, seed=SEED + 5, high=24)):
            game = _setup(sim, moves)
            for limit in (2000, 40000 + 20000 * k):
                sim.limits(nodes=limit)
                got = sim.search()
                want = run(game, node_limit=limit, seed=sim.seed, tt=not dual, code=code)
                assert (got.move, got.depth, got.value, got.nodes, got.insns) == \
                    (format_move(want.move), want.depth, want.value, want.nodes,
                     want.insns), moves
            assert want.depth >= 3          # the AND nodes scanned (iteration 3 on)


@needs_cxx
def test_hardware_answers_from_its_book_as_the_twin():
    """A book in the hardware's program: its positions answered with its moves, a position
    not in it searched; move, depth, value, nodes and instructions as the twin's."""
    from traxfpga.sim.pvs import PVSSim
    positions = _positions(2, seed=SEED + 6, low=6, high=14)
    book, _ = _book_of(positions, lambda moves: moves[len(moves) // 2])
    code = program(tt=True, book=book).words()
    other = _positions(1, seed=SEED + 7, low=6, high=14)
    with PVSSim(log2n=7, book=book) as sim:
        for moves in positions + other:
            game = _setup(sim, moves)
            sim.limits(nodes=1500)
            got = sim.search()
            want = run(game, node_limit=1500, code=code)
            assert (got.move, got.depth, got.value, got.nodes, got.insns) == (
                format_move(want.move), want.depth, want.value, want.nodes, want.insns)
            assert (want.nodes == 0) == (moves not in other)


CAP = 256


@needs_cxx
def test_hardware_gives_up_a_root_test_at_its_cap():
    """Where a cap of 256 AND nodes cuts root moves' tests short (the held-back program's
    fifth game, where refutations cost up to a thousand), the hardware with that cap
    searches as the twin with it does, and not as the uncapped program."""
    from traxfpga.sim.pvs import PVSSim
    code = program(tt=True, cap=CAP).words()
    with PVSSim(log2n=7, cap=CAP) as sim:
        game = _setup(sim, _lost_case("2026-11-26-game-005.txt"))
        limit, seed = 60_000, 5
        sim.limits(nodes=limit)
        sim.set_seed(seed)
        got = sim.search()
    want = run(game, node_limit=limit, seed=seed, code=code)
    assert (got.move, got.depth, got.value, got.nodes, got.insns, got.tt_probes,
            got.tt_hits) == (format_move(want.move), want.depth, want.value, want.nodes,
                             want.insns, want.tt_probes, want.tt_hits)
    # Uncounted, the search would take the same path: the cap cut a test short.
    plain = run(game, node_limit=limit, seed=seed)
    assert (want.nodes, want.tt_probes) != (plain.nodes, plain.tt_probes)


def _lost_case(source):
    from pathlib import Path
    from traxfpga.host.positions import load_suite
    suite = load_suite(Path(__file__).parent / "data" / "lost_positions.jsonl")
    return next(case.moves for case, _, _ in suite if case.source == source)


@needs_cxx
def test_hardware_profile_counts_each_cycle_in_one_state(sim):
    """The engine's cycles in each state (``bench pvs --profile``) over a search add up to
    the search's cycles and the handshake's around it; those outside IDLE to no more than
    the cycles the sequencer waited for the engine (which include its commands' way in and
    their results' way out), and less by no more than an instruction's cycle each."""
    for moves in _positions(3, seed=SEED + 3, low=10, high=24):
        _setup(sim, moves)
        sim.limits(nodes=3000)
        before = sim.state_cycles()
        got = sim.search()
        spent = {k: n - before[k] for k, n in sim.state_cycles().items()}
        assert sum(spent.values()) == got.cycles + HANDSHAKE, (got, spent)
        busy = sum(spent.values()) - spent["IDLE"]
        assert got.engine_cycles - got.insns <= busy <= got.engine_cycles, (got, spent)
        assert min(spent[k] for k in ("TILE", "QUIET", "SEEK", "UNTILE")) > 0, spent


@needs_cxx
def test_hardware_opening_and_game_over(sim):
    sim.reset("trax")
    sim.limits()
    got = sim.search()
    assert (got.move, got.depth, got.nodes) == ("@0/", 0, 0)
    rng = random.Random(SEED)
    for g in rng.sample([g for g in load_corpus() if g["variant"] == "trax"], 40):
        game = Game()
        for mv in g["moves"]:
            game.play(mv)
            if game.over:
                break
        if game.over:
            break
    sim.reset("trax")
    for mv in game.moves:
        sim.play(mv)
    got = sim.search()
    assert got.move is None and got.nodes == 0


@needs_cxx
def test_hardware_answers_within_its_cycle_budget(sim):
    for moves in _positions(4, seed=SEED + 2, low=10, high=26):
        game = _setup(sim, moves)
        sim.limits(cycles=1)                    # the first iteration always completes
        first = sim.search()
        assert first.depth == 1
        budget = first.cycles + 400_000
        sim.limits(cycles=budget)
        got = sim.search()
        # past the budget: the node or placement being entered, and the tiles of every
        # level taken back
        assert got.cycles <= budget + _reply_cycles(game) + 60 * LEVELS, moves
        # the answer is the last completed iteration's, unless the iteration cut short
        # found that one refuted and another move holding
        want = run(game, max_iter=got.depth, seed=sim.seed)
        if (format_move(want.move), want.value) != (got.move, got.value):
            depth = schedule(got.depth + 1)[1]
            assert refuted(game, want.move, depth), moves
            assert not refuted(game, parse_move(got.move), depth), moves
        _play_both(sim, game, got.move)


@needs_cxx
@pytest.mark.parametrize("baud", [115200, 19200])
def test_device_with_the_sequencer_answers_legally_in_time(baud):
    """The whole device with its player, the sequencer, on a clock so
    slow that the budget cuts its searches: every answer is legal and within the second,
    timed as the opponent's clock sees it."""
    from traxfpga.sim.device import DeviceSim

    clk = 921_600                       # both line speeds divide it
    with DeviceSim(capacity=128, clk_freq=clk, baud=baud, perft=False) as dev:
        times = timed_answers(dev, clk, SEED, lambda times: len(times) >= 10)
        assert dev.framing_errors == 0
    assert max(times) <= 1.0, times
    assert sum(t >= dev.device.think_time for t in times) >= 3, times


def test_device_takes_the_sequencer_within_its_capacity():
    from traxfpga.firmware.top import Device
    Device(clk_freq=24e6, capacity=128)
    Device(clk_freq=24e6, capacity=64, cores=3)
    for kwargs in ({"capacity": 256}, {"cores": 0}, {"cores": 65}, {"think_time": 0},
                   {"think_time": 61}):
        with pytest.raises(ValueError):
            Device(**{"clk_freq": 24e6, "capacity": 128, **kwargs})
    # a minute fits the budget counter at 50 MHz (3e9 cycles), not at 100 (6e9)
    assert Device(clk_freq=50e6, capacity=64, think_time=60).budget == 3_000_000_000
    with pytest.raises(ValueError, match="more cycles at 100 MHz than the budget counter"):
        Device(clk_freq=100e6, capacity=64, think_time=60)


def test_bench_pvs_refuses_a_capacity_the_sequencer_cannot_take():
    import argparse

    from traxfpga.host.cmd_bench import bench_pvs
    args = argparse.Namespace(positions=1, log2n=8, board="icebreaker", one_port=False, cores=1,
                              no_synth=True, seed=1)
    with pytest.raises(SystemExit, match="at most 128"):
        bench_pvs(args)


def test_bench_pvs_refuses_a_think_time_the_budget_cannot_take():
    import argparse

    from traxfpga.host.cmd_bench import bench_pvs
    for seconds in (0, 61):
        args = argparse.Namespace(positions=1, log2n=7, board="icebreaker", one_port=False,
                                  cores=1, no_synth=True, seed=1, think_time=seconds)
        with pytest.raises(SystemExit, match="--think-time: a think time must be 0.01 to 60"):
            bench_pvs(args)


def test_bench_pvs_profiles_one_core_only():
    import argparse

    from traxfpga.host.cmd_bench import bench_pvs
    args = argparse.Namespace(positions=1, log2n=7, board="icebreaker", one_port=False, cores=2,
                              no_synth=True, seed=1, profile=True)
    with pytest.raises(SystemExit, match="one core"):
        bench_pvs(args)


@pytest.mark.parametrize("iteration", [0, 14])
def test_bench_pvs_refuses_an_iteration_the_program_has_not(iteration):
    import argparse

    from traxfpga.host.cmd_bench import bench_pvs
    args = argparse.Namespace(positions=1, log2n=7, board="icebreaker", one_port=False, cores=1,
                              no_synth=True, seed=1, to_iteration=iteration)
    with pytest.raises(SystemExit, match="--to-iteration must be 1 .. 13"):
        bench_pvs(args)


@pytest.mark.parametrize("entries, message", [(16384, r"power of two, 16 \.\. 8192"),
                                              (3000, "power of two")])
def test_bench_pvs_refuses_a_table_the_hardware_cannot_keep(entries, message):
    import argparse

    from traxfpga.host.cmd_bench import bench_pvs
    args = argparse.Namespace(positions=1, log2n=6, board="ulx3s-25f", one_port=False,
                              two_reads=False, cores=1, no_synth=True, seed=1,
                              tt_entries=entries)
    with pytest.raises(SystemExit, match=message):
        bench_pvs(args)
    with pytest.raises(SystemExit, match="needs the table"):
        bench_pvs(argparse.Namespace(**{**vars(args), "tt_entries": 4096, "table": False}))
