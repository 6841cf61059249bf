"""Engines that can replay a game, behind one small interface.

An engine is opened from a *spec* string: the part before the first ``:``
names a factory in :data:`ENGINES`, the rest (possibly empty) is passed to it,
e.g. ``"ref"`` or ``"serial:/dev/ttyUSB0"``.  A factory is called as
``factory(arg, variant)`` and returns an object with:

``play(move_text) -> Step``
    apply one move for the side to move; raise
    :class:`~traxfpga.host.reference.trax.Illegal` (with one of ``ILLEGAL_CODES``) and
    leave the position unchanged when the move is illegal;
``board_rows() -> list[str]``
    the position in the canonical row format;
``close()``
    release whatever the engine holds (a port, a simulator).

Other modules add their engines with :func:`register_engine` (or by adding to
:data:`ENGINES`) and ``trax-fpga replay --engine NAME`` can use them.
"""

from __future__ import annotations

from typing import Callable

from .reference.trax import Game, Step

__all__ = ["ENGINES", "open_engine", "register_engine", "RefEngine", "UnknownEngine"]


class UnknownEngine(ValueError):
    """No factory is registered under the spec's name."""


class RefEngine:
    """The reference engine (:class:`~traxfpga.host.reference.trax.Game`) as an engine."""

    name = "ref"

    def __init__(self, variant: str = "trax"):
        self.game = Game(variant)

    def play(self, move_text: str) -> Step:
        return self.game.play(move_text)

    def board_rows(self) -> list:
        return self.game.board_rows()

    def close(self) -> None:
        pass


def _open_ref(arg: str, variant: str) -> RefEngine:
    if arg:
        raise ValueError(f"the reference engine takes no argument (got 'ref:{arg}')")
    return RefEngine(variant)


# The factories below import what they open on first use, so that listing the engines costs
# nothing; the modules they reach know nothing of this registry.

def _open_core(arg: str, variant: str):
    """The hardware move engine alone, in simulation."""
    from ..sim.core import open_core
    return open_core(arg, variant)


def _open_sim(arg: str, variant: str):
    """The whole device, simulated, over its serial line."""
    if arg:
        raise ValueError(f"the simulated device takes no argument (got 'sim:{arg}')")
    from .client import open_client
    return open_client("sim", variant)


def _open_serial(arg: str, variant: str):
    """A device on a serial port: ``serial:PORT[@BAUD]``."""
    from .client import open_client
    return open_client(arg, variant)


#: name -> factory(arg, variant) -> engine
ENGINES: dict[str, Callable] = {"ref": _open_ref, "core": _open_core, "sim": _open_sim,
                                "serial": _open_serial}


def register_engine(name: str, factory: Callable, replace: bool = False) -> None:
    """Register ``factory(arg, variant) -> engine`` under ``name``."""
    if ":" in name:
        raise ValueError("engine names cannot contain ':'")
    if name in ENGINES and not replace and ENGINES[name] is not factory:
        raise ValueError(f"engine {name!r} is already registered")
    ENGINES[name] = factory


def open_engine(spec: str, variant: str = "trax"):
    """Open the engine described by ``spec`` (``"ref"``, ``"NAME:ARG"``).

    Raises
    ------
    UnknownEngine
        When nothing is registered under the name.
    """
    name, _, arg = spec.partition(":")
    try:
        factory = ENGINES[name]
    except KeyError:
        known = ", ".join(sorted(ENGINES))
        raise UnknownEngine(f"unknown engine {spec!r} (known: {known})") from None
    return factory(arg, variant)
