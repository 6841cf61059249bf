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

Features the engine does not have can be tried beside its own (:data:`EXTRA_FEATURES`):
:func:`fit_corpus` then fits real-valued weights to the engine's features alone and to
them with the extra ones, and judges both the same way, so that a feature is worth
building into the hardware only where it foretells more winners.
"""

from __future__ import annotations

import math

from ...hdl.eval_weights import END_CLASSES, END_MAX, EVAL_LINE, EVAL_WEIGHTS, LINE_MAX
from .ai import _paths
from .evaluate import end_classes, shortfall
from .trax import _SHIFT, _XMASK, Game, Illegal

__all__ = ["EXTRA_FEATURES", "samples", "fit", "to_registers", "accuracy", "foretold",
           "fit_corpus", "write_weights"]

_COLOURS = ("white", "black")


def _threats(game, c):
    """The colour's placements that would complete a loop, and those a line."""
    return list(game.threats(_COLOURS[c]))


def _ends(game, c):
    """The colour's open path ends (two a path)."""
    return [2 * len(_paths(game, c))]


def _reach(game, c):
    """How near the colour's longest path comes to a line: 8 less how many squares its
    span falls short of the area along it (taken as at least 8), at least 0."""
    if game._loops_only:
        return [0]
    best = 0
    for a, b, _ in _paths(game, c):
        dx, dy = (a & _XMASK) - (b & _XMASK), (a >> _SHIFT) - (b >> _SHIFT)
        best = max(best, 8 - shortfall(dx, dy, game.width, game.height))
    return [best]


#: Features to try beside the engine's, by name: each gives a colour's counts, and a
#: sample holds the mover's less the opponent's, as for the engine's own.
EXTRA_FEATURES = {"threats": _threats, "ends": _ends, "reach": _reach}


def _winner(record):
    expect = record.get("expect") or {}
    if expect.get("winner"):
        return expect["winner"]
    if record.get("end") == "resign" and record["moves"]:
        return "white" if len(record["moves"]) % 2 == 1 else "black"
    return None


def samples(records, extra=()):
    """``(features, label)`` for every position after a move of the games with a known
    winner (see the module docstring); the features of ``extra`` (names in
    :data:`EXTRA_FEATURES`) follow the engine's."""
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
            for name in extra:
                feature = EXTRA_FEATURES[name]
                x += [a - b for a, b in zip(feature(game, mover), feature(game, 1 - mover))]
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
    """:func:`foretold` with the engine's weights (registers)."""
    return foretold(data, [weights[k] for k in END_CLASSES] + list(line))


def foretold(data, w):
    """The share of positions whose winner the sign of ``w``'s weighted sum foretells
    (ties count half)."""
    hits = 0.0
    for x, y in data:
        z = sum(a * b for a, b in zip(w, x))
        hits += 0.5 if z == 0 else float((z > 0) == (y > 0.5))
    return hits / len(data)


def fit_corpus(records, strong=(), extra=(), **kw):
    """Fit on the even-indexed games, judge on the others; returns a dict of figures.
    ``strong``: more games (of strong play, in the same form), split the same way and
    judged apart, so that the recorded games' figure stays comparable.  ``extra``: names
    of :data:`EXTRA_FEATURES` to try (the figures' ``study``)."""
    train = samples(records[0::2], extra) + samples(strong[0::2], extra)
    tests = {"accuracy": samples(records[1::2], extra)}
    if strong:
        tests["accuracy_strong"] = samples(strong[1::2], extra)
    w = fit(_engine_features(train), **kw)
    out = _fit_registers(w, len(train), tests, strong)
    if extra:
        out["study"] = _study(w, train, tests, extra, **kw)
    return out


def _engine_features(data):
    n = len(END_CLASSES) + len(EVAL_LINE)
    return [(x[:n], y) for x, y in data]


def _study(w_engine, train, tests, extra, **kw):
    """Real-valued weights fitted to the engine's features alone (``w_engine``) and with
    ``extra``, each judged on the held-out games."""
    out = {"features": list(extra)}
    for name, cut, w in (("engine", _engine_features, w_engine),
                         ("extended", list, fit(train, **kw))):
        out[name] = {"weights": [round(v, 4) for v in w]}
        for key, data in tests.items():
            out[name][key] = round(foretold(cut(data), w), 4) if data else None
    return out


def _fit_registers(w, fitted, tests, strong):
    """The engine's weights fitted (``w``, to ``fitted`` positions) and rounded to its
    registers, and the current ones, judged."""
    tests = {k: _engine_features(v) for k, v in tests.items()}
    weights, line = to_registers(w)
    out = {"positions": {"fit": fitted, "judge": len(tests["accuracy"])}}
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
