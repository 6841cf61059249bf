"""Lost games as positions (``bench held-back``): the losing move of each record, found with
the reference's wins by force, and a player's answer in that position."""

import json
import random

import pytest

from traxfpga.host import cli
from traxfpga.host.players import SpecError, open_player
from traxfpga.host.positions import (Case, avoids, cases_in, holding_moves, load_suite,
                                     losing_move, sampled, to_dict)
from traxfpga.host.reference.forcing import refuted
from traxfpga.host.reference.movetext import UnusableInput
from traxfpga.host.reference.trax import Game, format_move
from traxfpga.host.referee import run_match

from player_harness import needs_cxx


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Four games the reference AI won against random moves, as referee --record writes."""
    folder = tmp_path_factory.mktemp("records")
    match = run_match("ref", "random", games=4, seed=5, time_limit=60)
    for i, rec in enumerate(match.records):
        (folder / f"game-{i + 1:03}.txt").write_text(rec.notation())
    return folder, match


def test_the_losing_move_is_the_losers_first_move_lost_by_force(records):
    folder, match = records
    cases = cases_in([folder], 2)
    assert cases, "random moves lose by force within two moves somewhere"
    for case in cases:
        rec = match.records[int(case.source[5:8]) - 1]
        game = case.position()
        assert case.colour == rec.loser and rec.moves[len(case.moves)] == case.played
        assert refuted(game, case.played, case.depth)
        assert case.depth == 1 or not refuted(game, case.played, case.depth - 1)
        # no earlier move of the loser's was lost by force within as many moves
        earlier = Game()
        for mv in case.moves:
            if earlier.to_move == rec.loser:
                assert not refuted(earlier, mv, 2), (case.source, mv)
            earlier.play(mv)


def test_a_player_answers_in_the_position(records):
    folder, _ = records
    case = cases_in([folder], 2)[0]
    with open_player("ref", seed=1) as ref:
        answer, held, _ = avoids(case, ref)
    case.position().play(answer)                        # legal
    assert held == (not refuted(case.position(), answer, case.depth))
    # the moves that hold there are exactly the legal moves not refuted
    game = case.position()
    assert holding_moves(case) == [format_move(mv) for mv in game.legal_moves()
                                   if not refuted(game, mv, case.depth)]
    assert held == (answer in holding_moves(case))


@needs_cxx
def test_the_simulated_board_answers_in_the_position(records):
    """Engine mode's ``:play`` and ``:move`` put the board in the position."""
    folder, _ = records
    case = cases_in([folder], 2)[0]
    with open_player("sim,nodes=300") as board:
        answer, _, seconds = avoids(case, board)
        assert 0 < seconds < 1 and board.last_search["nodes"] >= 300
        assert board.last_search["budget_cut"]          # by the node limit, not the clock
        case.position().play(answer)                    # legal
        # and it still plays contest games afterwards
        assert board.start("white") == "@0/"
        assert not board.last_search["budget_cut"]      # the opening: no search


@needs_cxx
def test_the_simulated_board_tells_the_searches_its_clock_cut():
    """A search the cycle budget ends is told apart from one that ends by itself
    (``bench player``'s depth at the budget)."""
    from traxfpga.sim.bench import search_positions
    long_one = search_positions(3, 1)[2]        # bench pvs's third: cut at iteration 6
    with open_player("sim") as board:
        board.answer_position(long_one)
        assert board.last_search["budget_cut"] and board.last_time >= 0.8
        # a win at once (a game against peryaudo's client, docs/games): found by the
        # first iteration, which ends the search
        before_win = ("@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ D3\\ A5/ @4/ B0\\ A1+ "
                      "A2+ @2+ @2\\ A1\\ B5/ I5\\").split()
        assert board.answer_position(before_win) == "B6\\"
        assert not board.last_search["budget_cut"] and board.last_time < 0.1


@needs_cxx
def test_the_simulated_board_takes_the_think_time_it_is_given():
    """``sim,think=S``: the same search, cut by a budget of S seconds of the clock."""
    from traxfpga.sim.bench import search_positions
    long_one = search_positions(3, 1)[2]
    with open_player("sim,think=0.2") as board:
        assert board.transport.sim.device.budget == 4_800_000          # 0.2 s at 24 MHz
        board.answer_position(long_one)
        assert board.last_search["budget_cut"] and 0.2 <= board.last_time < 0.21


def test_players_that_cannot_take_a_position(tmp_path):
    with pytest.raises(SpecError, match="cannot be put in a position"):
        with open_player("cmd:cat") as p:
            p.answer_position(["@0/"])
    with pytest.raises(UnusableInput, match="no game records"):
        cases_in([tmp_path], 2)
    (tmp_path / "x.txt").write_text("@0/\n")
    with pytest.raises(UnusableInput, match="no '# result:' line"):
        losing_move(tmp_path / "x.txt", 2)


def test_bench_held_back(records, capsys, tmp_path):
    folder, _ = records
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["losing_moves"] == len(data["cases"]) == len(cases_in([folder], 2))
    assert data["avoided"] == sum(c["avoided"] for c in data["cases"])
    # --save keeps the cases as a suite, the player's answers expected
    suite = tmp_path / "suite.jsonl"
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--save", str(suite), "--json"]) == 0
    saved = load_suite(suite)
    data = json.loads(capsys.readouterr().out)
    assert [(c.source, c.played) for c, _, _ in saved] == \
        [(c["source"], c["played"]) for c in data["cases"]]
    for (case, holds, expected), row in zip(saved, data["cases"]):
        assert expected == row["answer"] and (expected in holds) == row["avoided"]
        assert bool(holds) == row["savable"] and holds == holding_moves(case)
    # --no-holds: the same cases and answers, whether a move holds not reported
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--no-holds", "--json"]) == 0
    quick = json.loads(capsys.readouterr().out)
    assert "savable" not in quick and all(c["savable"] is None for c in quick["cases"])
    assert [(c["played"], c["answer"], c["avoided"]) for c in quick["cases"]] == \
        [(c["played"], c["answer"], c["avoided"]) for c in data["cases"]]
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--no-holds"]) == 0
    assert "a move holds" in capsys.readouterr().out
    assert cli.main(["bench", "held-back", "--records", str(folder), "--no-holds",
                     "--save", str(suite)]) == 1
    assert "leave out --no-holds" in capsys.readouterr().err
    assert cli.main(["bench", "held-back", "--records", str(folder), "--save",
                     str(tmp_path / "nowhere" / "suite.jsonl")]) == 1
    assert "no such folder" in capsys.readouterr().err
    assert cli.main(["bench", "held-back", "--records", str(folder / "nowhere")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert cli.main(["bench", "held-back"]) == 1
    assert "give --records DIR" in capsys.readouterr().err
    # --suite: the saved cases again, judged by the moves the suite lists as holding
    assert cli.main(["bench", "held-back", "--suite", str(suite), "--player", "ref",
                     "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [(c["played"], c["answer"], c["avoided"], c["savable"]) for c in again["cases"]] \
        == [(c["played"], c["answer"], c["avoided"], c["savable"]) for c in data["cases"]]
    assert (again["avoided"], again["savable"]) == (data["avoided"], data["savable"])
    for extra in (["--records", str(folder)], ["--no-holds"], ["--save", str(suite)]):
        assert cli.main(["bench", "held-back", "--suite", str(suite), *extra]) == 1
        assert "leave out --records, --save and --no-holds" in capsys.readouterr().err
    for text, error in (("", "holds no cases"), ("{not json\n", "line 1: not a case"),
                        ('{"source": "x"}\n', "line 1: not a case")):
        (tmp_path / "bad.jsonl").write_text(text)
        assert cli.main(["bench", "held-back", "--suite", str(tmp_path / "bad.jsonl")]) == 1
        assert error in capsys.readouterr().err
    assert cli.main(["bench", "held-back", "--suite", str(tmp_path / "none.jsonl")]) == 1
    assert "cannot read the suite" in capsys.readouterr().err


def test_samples_seed_the_player_before_each_answer_past_one():
    """One sample leaves the player's noise alone (the default figures stay as they were);
    more seed it before each answer from the one generator, reproducibly."""
    class Player:
        seeds = []

        def seed(self, n):
            self.seeds.append(n)
    player = Player()
    answers = iter(["A", "B", "B"])
    results = sampled(player, 1, random.Random(3), lambda: (next(answers), True, 0.5))
    assert results == [("A", True, 0.5)] and player.seeds == []
    results = sampled(player, 2, random.Random(3), lambda: (next(answers), False, 0.25))
    rng = random.Random(3)
    assert player.seeds == [rng.getrandbits(32), rng.getrandbits(32)]
    case = Case("game-001.txt", ["@0/"], "A2+", 2)
    row = to_dict(case, [("B", False, 0.25), ("C", True, 0.5), ("B", True, 0.75)])
    assert (row["answer"], row["avoided"], row["avoided_in"], row["seconds"]) == \
        ("B", True, 2, 0.75)
    assert row["answers"] == ["B", "C", "B"] and row["move_number"] == 2
    row = to_dict(case, [("B", False, 0.25), ("C", True, 0.5)])
    assert not row["avoided"]                   # half is not more than half
    assert "answers" not in to_dict(case, [("B", True, 0.25)])


def test_bench_held_back_samples(records, capsys):
    folder, _ = records
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--no-holds", "--samples", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["samples"] == 3
    for c in data["cases"]:
        assert len(c["answers"]) == 3 and c["answer"] in c["answers"]
        assert c["avoided"] == (2 * c["avoided_in"] > 3)
    assert data["answers_avoiding"] == \
        f"{sum(c['avoided_in'] for c in data['cases'])} of {3 * len(data['cases'])}"
    assert data["avoided"] == sum(c["avoided"] for c in data["cases"])
    assert cli.main(["bench", "held-back", "--records", str(folder), "--player", "ref",
                     "--force-depth", "2", "--no-holds", "--samples", "2"]) == 0
    out = capsys.readouterr()
    assert "answers avoiding" in out.out and " x2" in out.err
    assert cli.main(["bench", "held-back", "--records", str(folder), "--samples", "0"]) == 1
    assert "--samples must be at least 1" in capsys.readouterr().err
