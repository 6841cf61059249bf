"""The recorded games shipped with the project (``tests/data/commented.jsonl``).

Each line is ``{"id", "variant", "end", "moves", "expect"}``; the standard
(``"trax"``) games carry ``expect = {"winner", "reason", "size", "board"}``
from an independent engine.  One game's variant is ``"unknown"``; it is
replayed as standard Trax (:func:`engine_variant`).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["CORPUS", "load_corpus", "engine_variant"]

#: The corpus file, found relative to the repository (editable install).
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "commented.jsonl"


def load_corpus(path: str | Path | None = None) -> list:
    """All recorded games, as dicts, in file order."""
    p = Path(path) if path else CORPUS
    with open(p, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def engine_variant(game: dict) -> str:
    """The variant to replay a recorded game under (``"unknown"`` -> ``"trax"``)."""
    v = game.get("variant")
    return v if v in ("trax", "8x8", "looptrax") else "trax"
