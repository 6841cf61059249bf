"""The board's player: the hardware searcher (hdl/search.py) against its software twin
(host/reference/searcher.py), move for move, and what the twin promises (wins at once, stops
threats, wins by force when it says so, always legal, answers within its budget).

Positions come from the recorded games (cut at a seeded ply) and from seeded games; the
hardware on recorded positions and in whole games is in test_search_games.py.
"""

import random

import pytest

from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.searcher import choose
from traxfpga.host.reference.trax import Game, format_move
from traxfpga.sim import cxxrtl

from search_harness import SEED, _check_search, _play_both, _position, _reply_cycles, needs_cxx


def test_twin_wins_at_once_and_stops_threats():
    rng = random.Random(SEED)
    checked_wins = checked_blocks = 0
    for g in rng.sample([g for g in load_corpus() if g["variant"] == "trax"], 40):
        game = Game()
        for mv in g["moves"][:rng.randrange(4, max(5, len(g["moves"])))]:
            game.play(mv)
        if game.over:
            continue
        c = choose(game, max_depth=2, max_defence=2)    # (a deeper win by force is safe too)
        after = game.copy()
        after.play(c.move)
        if game.winning_moves():
            assert c.win and after.winner == game.to_move
            checked_wins += 1
            continue
        assert not c.win
        them = "black" if game.to_move == "white" else "white"
        if game.winning_moves(them):            # a threat: stop it if any move can
            safe = []
            for mv in game.legal_moves():
                g2 = game.copy()
                g2.play(mv)
                if g2.winner is None and not g2.has_winning_move(them):
                    safe.append(mv)
            if safe:
                assert after.winner is None and not after.has_winning_move(them), game.moves
                checked_blocks += 1
    assert checked_wins and checked_blocks, (checked_wins, checked_blocks)


def _wins_within(game, mv, depth=2):
    """Whether ``mv`` wins within ``depth`` of the mover's moves, from the reference's
    public moves: it wins at once, or every reply leaves the mover a winning move (a reply
    that completes only the mover's loop or line loses for the opponent) or, deeper, a
    safe threatening move that wins within ``depth - 1``."""
    me = game.to_move
    them = "black" if me == "white" else "white"
    after = game.copy()
    after.play(mv)
    if after.over:
        return after.winner == me
    if depth == 1:
        return False
    for reply in after.legal_moves():
        g2 = after.copy()
        g2.play(reply)
        if g2.winner == me:
            continue
        if g2.over:
            return False
        if g2.winning_moves(me):
            continue
        if depth == 2:
            return False
        for m2 in g2.legal_moves():
            g3 = g2.copy()
            g3.play(m2)
            if (not g3.over and not g3.winning_moves(them) and g3.winning_moves(me)
                    and _wins_within(g2, m2, depth - 1)):
                break
        else:
            return False
    return True


def test_twin_finds_wins_by_force():
    """Seeded games of the twin against the reference AI: a move the twin says wins by force
    does, within the depth it reports (checked move by move on the reference), and when
    the twin finds none, no safe threatening move wins at the next turn either (every
    candidate checked, in the smaller positions)."""
    rng = random.Random(SEED + 7)
    forced = deeper = exhaustive = 0
    for i in range(10):
        game = Game()
        board = ("white", "black")[i % 2]
        while not game.over and game.ply < 24:
            if game.to_move != board:
                game.play(choose_move(game, rng))
                continue
            small = game.width * game.height <= 30      # deepen in the smaller positions
            c = choose(game, max_depth=3 if small else 2, max_defence=1)
            if c.forced:
                assert not c.win and c.depth in (2, 3), c
                assert _wins_within(game, c.move, c.depth), game.moves
                if c.depth == 3:
                    assert not choose(game, max_depth=2, max_defence=1).forced
                    assert not _wins_within(game, c.move, 2), game.moves
                forced += 1
                deeper += c.depth == 3
            elif not c.win and small and exhaustive < 12:
                them = "black" if board == "white" else "white"
                for mv in game.legal_moves():
                    g2 = game.copy()
                    g2.play(mv)
                    if g2.over or g2.has_winning_move(them) or not g2.winning_moves(board):
                        continue                # not a safe threatening move
                    assert not _wins_within(game, mv), (game.moves, mv)
                exhaustive += 1
            game.play(c.move)
    assert forced >= 3 and deeper >= 1 and exhaustive >= 10, (forced, deeper, exhaustive)


def test_twin_budget_keeps_the_best_so_far():
    game = Game()
    for mv in ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+"]:
        game.play(mv)
    full = choose(game, max_defence=1)
    assert full.candidates > 3
    one = choose(game, budget=1, max_defence=1)
    assert one.candidates == 1
    game.copy().play(one.move)                  # legal
    assert choose(game, budget=full.candidates, max_defence=1).move == full.move


def test_twin_refuses_a_finished_game():
    g = next(g for g in load_corpus() if g["variant"] == "trax" and g["expect"]["winner"])
    game = Game()
    for mv in g["moves"]:
        game.play(mv)
    assert game.over
    with pytest.raises(ValueError):
        choose(game)


# -- the hardware against the twin ----------------------------------------------------------------

@pytest.fixture(scope="module")
def small_sim():
    """A 32x32 engine and searcher, deepening to three moves (the board's default), whose
    cycle budget is a port (``set_budget``)."""
    from traxfpga.sim.search import SearchSim
    if not cxxrtl.available():
        pytest.skip("needs a C++ compiler")
    with SearchSim(log2n=5, budget=None, max_depth=3, max_defence=1) as s:
        yield s


def _search_within(sim, game, budget):
    """Search with ``budget`` cycles: the hardware answers what the twin chooses from as
    many candidates, and leaves the position untouched (its move then plays on both)."""
    sim.set_budget(budget)
    got = _check_search(sim, game)
    # The budget, give or take one reply's work; the first candidate is always scored in
    # full, so a shorter budget is answered when that is done.
    assert got.cycles < max(budget, _first_candidate_cycles(sim, game)) + _reply_cycles(game)
    sim.set_budget(budget)
    _play_both(sim, game, got.move)
    sim.undo()
    game.undo()
    return got


_FIRST = {}


def _first_candidate_cycles(sim, game):
    """The cycles of a search that scores only the first candidate (a budget of 0)."""
    key = tuple(game.moves)
    if key not in _FIRST:
        sim.set_budget(0)
        _FIRST[key] = sim.search().cycles
    return _FIRST[key]


def _first_budget(sim, game, full, pred):
    """The smallest budget whose search satisfies ``pred``, which the whole search ``full``
    satisfies and larger budgets only keep satisfied (a binary search)."""
    lo, hi = 0, full.cycles + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(_search_within(sim, game, mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo


@needs_cxx
def test_hardware_budget(small_sim):
    """With a budget of a few thousand cycles the searcher stops early, answers the best
    candidate scored so far (what the twin chooses with that many candidates), and leaves
    the position untouched."""
    s = small_sim
    game = _position(s, ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+"])
    got = _search_within(s, game, 3000)
    full = choose(game, max_defence=1)
    assert 1 <= got.candidates < full.candidates


@needs_cxx
def test_hardware_budget_during_a_win_by_force(small_sim):
    """Budgets that end the search while the winning candidate is being tested for a win
    by force (its replies, or the third ply after one of them): the candidate is dropped,
    both placements are taken back, and the answer is the twin's from the candidates
    before it."""
    s = small_sim
    game = _position(s, ["@0+", "A0/", "@1/", "@2\\", "@1/", "@2\\", "B0+", "D0+", "F3/",
                         "F5/", "F6/", "G2\\", "C0/", "C0/", "E1\\", "B2+", "E0/", "G2\\"])
    full = _search_within(s, game, 1 << 24)
    assert full.forced
    b_forced = _first_budget(s, game, full, lambda got: got.forced)
    k = _search_within(s, game, b_forced - 1).candidates     # those before the winner
    b_start = _first_budget(s, game, full, lambda got: got.candidates >= k)
    assert b_forced - b_start > 100
    for i in range(10):                         # across the winner's whole test
        got = _search_within(s, game, b_start + (b_forced - b_start) * i // 10)
        assert got.candidates == k and not got.forced


# Positions of seeded games (the twin against the reference AI) where the main search finds
# no win by force and the deepening pass finds one in three moves (five plies).
DEEP_WINS = [
    ["@0/", "@1/", "B0+", "B3\\", "C1\\", "B0\\", "@4\\", "C5+", "D5\\", "E3/", "C6/"],
    ["@0+", "B1+", "C1\\", "B0/", "B0/", "B0/", "C0\\", "D2+", "E4+", "D6/", "C7\\", "F3\\"],
]


@needs_cxx
@pytest.mark.slow
def test_hardware_deepens_on_recorded_positions(small_sim):
    """With the whole budget the deepening pass runs to the end (depth 3) on recorded
    positions of all variants, with the twin's answer."""
    rng = random.Random(SEED + 3)
    games = [g for g in load_corpus() if len(g["moves"]) > 8]
    done = 0
    for g in rng.sample(games, 30):
        cut = rng.randrange(4, min(len(g["moves"]), 14))
        game = Game(engine_variant(g))
        for mv in g["moves"][:cut]:
            game.play(mv)
        if game.over or game.width * game.height > 30:
            continue
        game = _position(small_sim, g["moves"][:cut], engine_variant(g))
        got = _search_within(small_sim, game, 1 << 24)
        # (a win at once ends the search; a win by force in the main search skips the
        # deepening)
        assert got.depth == (1 if got.win else 3) or (got.forced and got.depth == 2)
        done += 1
        if done == 6:
            break
    assert done == 6


@needs_cxx
def test_hardware_deepens_to_a_win_by_force(small_sim):
    """Where the main search finds no win by force, the deepening pass finds one in three
    moves, as the twin does."""
    for moves in DEEP_WINS:
        game = _position(small_sim, moves)
        got = _search_within(small_sim, game, 1 << 24)
        assert got.forced and got.depth == 3 and not got.win
        assert not choose(game, max_depth=2, max_defence=1).forced


@needs_cxx
def test_hardware_deepens_further_when_built_to():
    """A searcher built with ``max_depth=4`` (``trax-fpga build --max-depth 4``) runs a
    seven-ply pass after the five-ply one and answers as the twin does at that depth."""
    from traxfpga.sim.search import SearchSim
    positions = [
        ["@0+", "B1+", "B2\\", "A0/", "B4\\", "@2+", "C5/", "A3+", "A4+", "D1/"],
        ["@0/", "A0/", "A3+", "B3+", "A4/", "@4/", "A1/", "B5+", "C4\\", "D1/"],
    ]
    with SearchSim(log2n=5, max_depth=4, max_defence=1) as sim:
        for moves in positions:
            game = _position(sim, moves)
            got = _check_search(sim, game)
            assert got.depth == 4 and got.cycles < sim.budget
            _play_both(sim, game, got.move)


@needs_cxx
def test_hardware_budget_during_deepening(small_sim):
    """Budgets that end the search in the deepening pass (after the main search, before the
    win by force is found): every level's placement is taken back, and the answer is the
    main search's (depth 2)."""
    s = small_sim
    game = _position(s, DEEP_WINS[0])
    full = _search_within(s, game, 1 << 24)
    assert full.forced and full.depth == 3
    # the first budget that completes the main search (and starts the deepening)
    lo = _first_budget(s, game, full, lambda got: got.depth >= 2)
    main = choose(game, max_depth=2, max_defence=1)
    for i in range(12):
        got = _search_within(s, game, lo + (full.cycles - lo) * i // 12)
        assert (got.move, got.depth, got.forced) == (format_move(main.move), 2, False)


def test_bench_player_json(capsys):
    """``bench player`` through the CLI: the twin against random moves, JSON figures."""
    import json

    from traxfpga.hdl.search_params import MAX_DEFENCE, MAX_DEPTH
    from traxfpga.host.cli import main
    assert main(["bench", "player", "--player", "model", "--opponents", "random",
                 "--games", "2", "--time", "30", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    vs = figures["vs_random"]
    assert figures["search_depth"] == {"full_width": 2, "threats": 3,
                                       "deepening_plies": 2 * MAX_DEPTH - 1,
                                       "defence_moves": MAX_DEFENCE}
    assert vs["games"] == 2
    assert vs["wins"] + vs["losses"] + vs["draws"] == 2 and vs["illegal"] == vs["timeouts"] == 0
    assert vs["seconds_per_answer"]["max"] >= vs["seconds_per_answer"]["mean"] > 0


def test_twin_and_hardware_share_their_constants():
    from traxfpga.hdl import search as hw
    from traxfpga.host.reference import searcher as sw
    assert (sw.LFSR_SEED, sw.LFSR_TAPS, sw.THREAT_CAP, sw.MAX_DEPTH) == \
        (hw.LFSR_SEED, hw.LFSR_TAPS, hw.THREAT_CAP, hw.MAX_DEPTH)
    assert sw.lfsr_next(1) == hw.LFSR_TAPS and sw.lfsr_next(2) == 1
    assert (sw.EV_ZERO, sw.EV_MAX, sw.EV_DOUBLE_ATTACK, sw.EV_DOUBLE_BONUS) == \
        (hw.EV_ZERO, hw.EV_MAX, hw.EV_DOUBLE_ATTACK, hw.EV_DOUBLE_BONUS)
    from traxfpga.hdl import engine
    assert sw.EVAL_WEIGHTS == engine.EVAL_WEIGHTS and sw.EVAL_MAX == engine.EVAL_MAX
    assert sw.EVAL_LINE == engine.EVAL_LINE


# -- defence: the answer against the opponent's wins by force ------------------------------------

# Positions of games against a contest program where the main search's answer lets the
# opponent win by force within three of its moves, and the defence finds one that holds
# (after one answer refuted, and after several).
DEFENCE_POSITIONS = [
    ["@0+", "B1+", "C1\\", "@1/", "@1\\", "C0\\"],
    ["@0+", "B1+", "C1\\", "@1/", "@1\\", "B0/", "@2\\", "B3+"],
]


def _opponent_wins_within(game, mv, depth):
    """Whether, after the mover plays ``mv``, the opponent has a move that wins within
    ``depth`` of its moves (checked on the reference's public moves)."""
    after = game.copy()
    after.play(mv)
    return any(_wins_within(after, reply, depth) for reply in after.legal_moves())


@pytest.mark.slow
def test_twin_defends_against_wins_by_force():
    """The main search's answer loses to a win by force of the opponent; the defence plays
    a move after which the opponent has none within three moves (both checked on the
    reference's public moves)."""
    for moves in DEFENCE_POSITIONS:
        game = Game()
        for mv in moves:
            game.play(mv)
        main = choose(game, max_depth=2, max_defence=1)
        c = choose(game, max_depth=2, max_defence=3)
        assert (main.defence, c.defence) == (1, 3)
        assert c.move != main.move and c.candidates > main.candidates
        if moves is DEFENCE_POSITIONS[0]:       # (the other one's check takes half a minute)
            assert _opponent_wins_within(game, main.move, 3), moves
        assert not _opponent_wins_within(game, c.move, 3), moves
        # one move deeper the answer is tested again (it holds, or the next one does)
        assert choose(game, max_depth=2, max_defence=4).defence in (3, 4)


@pytest.fixture(scope="module")
def defence_sim():
    """A 32x32 engine and a searcher that tests its answer against the opponent's wins by
    force up to three moves, with its budget a port."""
    from traxfpga.sim.search import SearchSim
    if not cxxrtl.available():
        pytest.skip("needs a C++ compiler")
    with SearchSim(log2n=5, budget=None, max_depth=2, max_defence=3) as s:
        yield s


@needs_cxx
def test_hardware_defends_as_the_twin(defence_sim):
    """The hardware's defence (the answer tested, the table scanned for the next below it,
    cut candidates evaluated in full on the way) chooses the twin's move, with as many
    candidates scored and the same depth of defence, and leaves the position untouched."""
    s = defence_sim
    refuted = 0
    for moves in DEFENCE_POSITIONS:
        game = _position(s, moves)
        got = _search_within(s, game, 1 << 26)
        main = choose(game, max_depth=2, max_defence=1, seed=got.seed)
        want = choose(game, max_depth=2, max_defence=3, seed=got.seed)
        assert got.defence == 3 and got.move != format_move(main.move)
        assert got.candidates > main.candidates         # cut candidates evaluated again
        refuted += want.refuted
    assert refuted >= 2


@needs_cxx
def test_hardware_budget_during_defence(defence_sim):
    """Budgets that end the search in the defence phase: every placement is taken back and
    the answer is the last one that held (the twin's with that depth of defence)."""
    s = defence_sim
    game = _position(s, DEFENCE_POSITIONS[1])
    full = _search_within(s, game, 1 << 26)
    start = _first_budget(s, game, full, lambda got: got.defence >= 2)
    seen = set()
    for i in range(10):
        got = _search_within(s, game, start - 1 + (full.cycles - start) * i // 10)
        seen.add((got.move, got.defence))
    assert len(seen) >= 2 and {d for _, d in seen} >= {1, 2}
