"""Fitting the weights of the engine's ``EVAL`` to the recorded games.

Every position of the recorded games after a move (but the last) is a sample: its features
are the differences, mover minus opponent, of the path-end counts by class
(:func:`traxfpga.host.reference.evaluate.end_classes`: five distance classes and six line classes),
and its label whether the mover went on to win the game.  A game won on the board names
its winner; a resigned game is taken as won by the side that made the last move (the
opponent resigned instead of answering it); other games are left out.  A logistic
regression without bias (the evaluation is antisymmetric) fitted by gradient descent gives
one weight per class; they are scaled to the engine's registers (4 bits for a distance
class, 5 for a line class) and rounded, negative weights becoming 0.  Games with an even
index are fitted, the others judge: the share of their positions whose winner the sign of
the evaluation difference foretells (ties count half), for the fitted and the current
weights.
"""

from __future__ import annotations

import math

from ...hdl.eval_weights import END_CLASSES, END_MAX, EVAL_LINE, EVAL_WEIGHTS, LINE_MAX
from .evaluate import end_classes
from .trax import Game, Illegal

__all__ = ["samples", "fit", "to_registers", "accuracy", "fit_corpus", "write_weights"]


def _winner(record):
    expect = record.get("expect") or {}
    if expect.get("winner"):
        return expect["winner"]
    if record.get("end") == "resign" and record["moves"]:
        return "white" if len(record["moves"]) % 2 == 1 else "black"
    return None


def samples(records):
    """``(features, label)`` for every position after a move of the games with a known
    winner (see the module docstring)."""
    out = []
    for record in records:
        winner = _winner(record)
        if winner is None:
            continue
        variant = record.get("variant")
        game = Game(variant if variant in ("trax", "8x8", "looptrax") else "trax")
        for mv in record["moves"][:-1]:
            try:
                game.play(mv)
            except Illegal:
                break
            if game.over:
                break
            mover = 1 - (0 if game.to_move == "white" else 1)
            mine = end_classes(game, mover)
            theirs = end_classes(game, 1 - mover)
            x = [a - b for a, b in zip(mine[0] + mine[1], theirs[0] + theirs[1])]
            out.append((x, 1.0 if ("white", "black")[mover] == winner else 0.0))
    return out


def fit(data, *, steps=400, rate=0.05, l2=1e-3):
    """Logistic regression without bias by gradient descent; returns the weights."""
    if not data:
        raise ValueError("no positions to fit")
    n = len(data[0][0])
    scale = [max(1.0, max(abs(x[i]) for x, _ in data)) for i in range(n)]
    w = [0.0] * n
    for _ in range(steps):
        grad = [0.0] * n
        for x, y in data:
            z = sum(wi * xi / si for wi, xi, si in zip(w, x, scale))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            for i in range(n):
                grad[i] += (p - y) * x[i] / scale[i]
        for i in range(n):
            w[i] -= rate * (grad[i] / len(data) + l2 * w[i])
    return [wi / si for wi, si in zip(w, scale)]


def to_registers(w):
    """Fitted weights as the engine's: ``(EVAL_WEIGHTS dict, EVAL_LINE tuple)``, scaled so
    that the largest fits its register, rounded, negative ones 0."""
    ends, lines = w[:len(END_CLASSES)], w[len(END_CLASSES):]
    top_end, top_line = max(max(ends), 1e-9), max(max(lines), 1e-9)
    s = min(END_MAX / top_end, LINE_MAX / top_line)
    weights = {k: max(0, min(END_MAX, round(v * s))) for k, v in zip(END_CLASSES, ends)}
    line = tuple(max(0, min(LINE_MAX, round(v * s))) for v in lines)
    return weights, line


def accuracy(data, weights, line):
    """The share of positions whose winner the sign of the weighted difference foretells
    (ties count half)."""
    w = [weights[k] for k in END_CLASSES] + list(line)
    hits = 0.0
    for x, y in data:
        z = sum(a * b for a, b in zip(w, x))
        hits += 0.5 if z == 0 else float((z > 0) == (y > 0.5))
    return hits / len(data)


def fit_corpus(records, strong=(), **kw):
    """Fit on the even-indexed games, judge on the others; returns a dict of figures.
    ``strong``: more games (of strong play, in the same form), split the same way and
    judged apart, so that the recorded games' figure stays comparable."""
    train = samples(records[0::2]) + samples(strong[0::2])
    tests = {"accuracy": samples(records[1::2])}
    if strong:
        tests["accuracy_strong"] = samples(strong[1::2])
    weights, line = to_registers(fit(train, **kw))
    out = {"positions": {"fit": len(train), "judge": len(tests["accuracy"])}}
    if strong:
        out["positions"]["judge_strong"] = len(tests["accuracy_strong"])
    for name, (w, ln) in (("fitted", (weights, line)), ("current", (EVAL_WEIGHTS, EVAL_LINE))):
        out[name] = {"EVAL_WEIGHTS": dict(w), "EVAL_LINE": list(ln)}
        for key, data in tests.items():
            out[name][key] = round(accuracy(data, w, ln), 4) if data else None
    return out


def write_weights(path, weights, line):
    """Rewrite the two weight lines of ``hdl/eval_weights.py`` at ``path``."""
    import re
    from pathlib import Path
    p = Path(path)
    text = p.read_text()
    text, n1 = re.subn(r"^EVAL_WEIGHTS = \{.*\}$", f"EVAL_WEIGHTS = {weights!r}", text,
                       flags=re.M)
    text, n2 = re.subn(r"^EVAL_LINE = \(.*\)$", f"EVAL_LINE = {tuple(line)!r}", text,
                       flags=re.M)
    if (n1, n2) != (1, 1):
        raise ValueError(f"{p} does not hold the weight lines where expected")
    p.write_text(text)
