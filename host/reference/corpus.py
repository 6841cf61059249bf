"""The recorded games shipped with the project (``host/reference/data/commented.jsonl``,
package data of ``traxfpga.host.reference``, read through :mod:`importlib.resources` so that
any install -- editable, wheel, or zipped -- finds it).

Each line is ``{"id", "variant", "end", "moves", "expect"}``; the standard
(``"trax"``) games carry ``expect = {"winner", "reason", "size", "board"}``
from an independent engine.  One game's variant is ``"unknown"``; it is
replayed as standard Trax (:func:`engine_variant`).
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

__all__ = ["CORPUS", "load_corpus", "engine_variant"]

#: The corpus file, a resource of this package (a :class:`~importlib.resources.abc.Traversable`).
CORPUS = files(__package__) / "data" / "commented.jsonl"


def load_corpus(path: str | Path | None = None) -> list:
    """All recorded games, as dicts, in file order (``path``: another file of the same form)."""
    p = Path(path) if path else CORPUS
    with p.open("r", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def engine_variant(game: dict) -> str:
    """The variant to replay a recorded game under (``"unknown"`` -> ``"trax"``)."""
    v = game.get("variant")
    return v if v in ("trax", "8x8", "looptrax") else "trax"
