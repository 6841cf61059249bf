"""``trax-fpga fit-eval``: the EVAL weights fitted to the recorded games, in the engine's
registers, and written to the one file the hardware and its twin read."""

import json
import shutil

from traxfpga.hdl import eval_weights
from traxfpga.host.cli import main
from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.fit_eval import accuracy, fit, samples, to_registers, write_weights
from traxfpga.host.reference.evaluate import END_CLASSES, evaluate
from traxfpga.host.reference.trax import Game


def test_samples_are_the_mover_minus_the_opponent_and_the_winner():
    records = load_corpus()[:40]
    data = samples(records)
    assert data and all(len(x) == len(END_CLASSES) + 6 for x, _ in data)
    # the features weighed by the current weights are the evaluation's difference
    game = Game()
    for mv in records[0]["moves"][:6]:
        game.play(mv)
    (pw, pb), _ = evaluate(game)
    x, y = samples([dict(records[0], moves=records[0]["moves"][:7])])[-1]
    w = [eval_weights.EVAL_WEIGHTS[k] for k in END_CLASSES] + list(eval_weights.EVAL_LINE)
    mover_white = game.to_move == "black"
    assert sum(a * b for a, b in zip(w, x)) == (pw - pb if mover_white else pb - pw)
    assert y == float(("white" if mover_white else "black") == records[0]["expect"]["winner"])
    # a resigned game is won by the side that made the last move
    resigned = next(r for r in load_corpus() if r.get("end") == "resign")
    labels = [y for _, y in samples([resigned])]
    assert labels[-2:] == [1.0, 0.0]    # (the last position is after the loser's move)


def test_fit_learns_a_separable_rule_and_fits_the_registers():
    # the label is the sign of feature 0: its weight must come out largest
    data = [([s * (1 + i % 3), (i * 7) % 5 - 2] + [0] * 9, 1.0 if s > 0 else 0.0)
            for i in range(200) for s in (1, -1)]
    w = fit(data, steps=200)
    assert w[0] > abs(w[1])
    weights, line = to_registers(w)
    assert weights["adjacent"] == eval_weights.END_MAX
    assert all(0 <= v <= eval_weights.END_MAX for v in weights.values())
    assert all(0 <= v <= eval_weights.LINE_MAX for v in line)
    assert accuracy(data, weights, line) > 0.9


def test_cli_and_write(tmp_path, capsys, monkeypatch):
    assert main(["fit-eval", "--steps", "20", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["positions"]["fit"] > 1000 and figures["positions"]["judge"] > 1000
    for name in ("current", "fitted"):
        assert 0.4 < figures[name]["accuracy"] < 1.0
    copy = tmp_path / "eval_weights.py"
    shutil.copy(eval_weights.__file__, copy)
    write_weights(copy, {"adjacent": 15, "corner": 4, "two": 0, "three": 0, "four": 0},
                  (1, 2, 3, 0, 0, 0))
    text = copy.read_text()
    assert "EVAL_WEIGHTS = {'adjacent': 15, 'corner': 4" in text
    assert "EVAL_LINE = (1, 2, 3, 0, 0, 0)" in text
    assert main(["fit-eval", "--steps", "0"]) == 1


def _record(path, moves, result):
    path.write_text(f"# white: a\n# black: b\n# result: {result}  someone wins\n"
                    + "\n".join(moves) + "\n")


def test_cli_records_of_strong_play(tmp_path, capsys):
    """``--records``: referee records fitted beside the recorded games, their held-out
    games judged apart; a drawn game is left out; a bad path is one line of error."""
    won = [r for r in load_corpus() if (r.get("expect") or {}).get("winner")
           and r.get("variant") == "trax"][:3]
    for k, r in enumerate(won):
        _record(tmp_path / f"game-{k:03}.txt", r["moves"],
                "1-0" if r["expect"]["winner"] == "white" else "0-1")
    _record(tmp_path / "game-009.txt", won[0]["moves"][:4], "1/2-1/2")
    assert main(["fit-eval", "--steps", "5", "--json", "--records", str(tmp_path)]) == 0
    figures = json.loads(capsys.readouterr().out)
    # games 0 and 2 fitted, game 1 judged (the draw is not a game with a winner)
    assert figures["positions"]["judge_strong"] == len(won[1]["moves"]) - 1
    # a folder's subfolders are read too: the same games one level down
    (tmp_path / "sub").mkdir()
    for f in tmp_path.glob("*.txt"):
        f.rename(tmp_path / "sub" / f.name)
    assert main(["fit-eval", "--steps", "5", "--json", "--records", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["positions"] == figures["positions"]
    for name in ("current", "fitted"):
        assert 0.0 <= figures[name]["accuracy_strong"] <= 1.0
    (tmp_path / "bad.txt").write_text("@0/ Z9?\n")
    for paths, words in (([str(tmp_path / "none")], "cannot read"),
                         ([str(tmp_path / "bad.txt")], "bad.txt")):
        assert main(["fit-eval", "--steps", "1", "--records", *paths]) == 1
        out, err = capsys.readouterr()
        assert out == "" and words in err and len(err.strip().splitlines()) == 1


def test_extra_features_follow_the_engines_and_are_studied(capsys):
    """``--features``: the extra features follow the engine's in each sample (the mover's
    less the opponent's); the study fits real-valued weights with and without them and
    judges both; an unknown name, or ``--write`` beside it, is one line of error."""
    from traxfpga.host.reference.fit_eval import EXTRA_FEATURES, fit_corpus
    records = [r for r in load_corpus() if r.get("variant", "trax") == "trax"][:8]
    base = samples(records)
    more = samples(records, list(EXTRA_FEATURES))
    assert [x[:len(END_CLASSES) + 6] for x, _ in more] == [x for x, _ in base]
    assert all(len(x) == len(END_CLASSES) + 6 + 4 for x, _ in more)   # threats 2, ends, reach
    # the open path ends: the mover's less the opponent's, two a path
    assert all(x[-2] % 2 == 0 for x, _ in more) and any(x[-2] for x, _ in more)
    figures = fit_corpus(records, extra=["reach"], steps=5)
    study = figures["study"]
    assert study["features"] == ["reach"]
    assert len(study["engine"]["weights"]) == len(END_CLASSES) + 6
    assert len(study["extended"]["weights"]) == len(END_CLASSES) + 7
    for name in ("engine", "extended"):
        assert 0.0 <= study[name]["accuracy"] <= 1.0
    for argv, words in ((["--features", "nope"], "unknown feature nope"),
                        (["--features", "ends", "--write"], "--write")):
        assert main(["fit-eval", "--steps", "1", *argv]) == 1
        out, err = capsys.readouterr()
        assert out == "" and words in err and len(err.strip().splitlines()) == 1
