"""The words of the serial protocol: error codes, command and variant names.

Plain Python (no Amaranth), shared by the firmware's microcode
(:mod:`traxfpga.firmware.program`) and by the host, which reads the same codes back.
``docs/protocol.md`` describes the protocol.
"""

__all__ = [
    "PROTOCOL_VERSION", "LINE_MAX", "ERRORS",
    "E_SYNTAX", "E_UNKNOWN", "E_OVERLONG", "E_FRAMING", "E_BUSY", "E_TURN", "E_NOMOVE",
    "E_NOPERFT", "E_RANGE",
    "COMMANDS", "VARIANTS", "COLOURS", "REASONS", "check_player_id",
]

#: Reported by ``:version``.
PROTOCOL_VERSION = 1

#: Longest line the device accepts, its end of line (LF, CR or CR LF) not counted (the line buffer holds 128 bytes).
LINE_MAX = 127

#: Error code number -> name, as printed after ``! ``.  0..10 are the engine's
#: :class:`~traxfpga.hdl.tiles.Status` values (0, OK, is never printed); the names are the
#: reference engine's illegal-move codes.  The rest are the protocol's own.
ERRORS = (
    "ok", "game-over", "first-move", "range", "capacity", "occupied", "not-adjacent",
    "mismatch", "bounds", "three-tracks", "no-undo",
    "syntax", "unknown", "overlong", "framing", "busy", "turn", "nomove", "no-perft",
)

E_SYNTAX, E_UNKNOWN, E_OVERLONG, E_FRAMING, E_BUSY, E_TURN, E_NOMOVE, E_NOPERFT = range(11, 19)
#: ``:perft`` with a depth beyond the unit's stack (the engine's out-of-range code).
E_RANGE = ERRORS.index("range")

#: Engine-mode commands (the word after ``:``); their first letters differ, but for
#: ``play`` and ``perft``, told apart by the second.
COMMANDS = ("play", "board", "reset", "undo", "version", "status", "move", "perft")
#: ``:reset`` arguments, in :class:`~traxfpga.hdl.tiles.Variant` order.
VARIANTS = ("trax", "8x8", "looptrax")

#: Names of Winner values (also of the board's contest colour) and of Reason values.
COLOURS = ("-", "white", "black")
REASONS = ("-", "loop", "line", "draw")


def check_player_id(player_id):
    """The player ID printed for ``-T``: 1 to 60 printable ASCII characters."""
    if not isinstance(player_id, str) or not 1 <= len(player_id) <= 60 or \
            not all(0x20 <= ord(c) < 0x7F for c in player_id):
        raise ValueError(f"the player ID must be 1 to 60 printable ASCII characters, "
                         f"not {player_id!r}")
    return player_id
