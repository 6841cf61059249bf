"""The data layouts the engine's parts share: the area in play and the undo log's entries."""

from amaranth.lib import data

from .tiles import Pos

__all__ = ["Area", "TileEntry", "Trailer", "LogEntry"]


def Area(log2n):
    """The area in play: its top-left square on the torus and its size."""
    return data.StructLayout({"minx": log2n, "miny": log2n,
                              "width": log2n + 1, "height": log2n + 1})


def TileEntry(log2n):
    """A placed tile: its square and the far ends (squares) of the four paths it joined,
    white side a, white side b, black side a, black side b."""
    return data.StructLayout({"p": Pos(log2n), "e": data.ArrayLayout(Pos(log2n), 4)})


def Trailer(log2n, log_depth):
    """The end of a move: its tile count (less than ``log_depth``) and the area before it."""
    return data.StructLayout({"k": log_depth.bit_length(), "area": Area(log2n)})


def LogEntry(log2n, log_depth):
    return data.StructLayout({
        "trailer": 1,
        "u": data.UnionLayout({"tile": TileEntry(log2n), "trailer": Trailer(log2n, log_depth)}),
    })
