"""The words of the serial protocol: what the firmware reads and what it prints.

Plain Python (no Amaranth), shared by the firmware, which builds its two ROMs from it, and by
the host, which reads the same codes back.  ``docs/protocol.md`` describes the protocol.

Text ROM (:func:`text_rom`)
    The printer's templates and the name tables their fields look up.  A template is a
    NUL-terminated string of printable ASCII and LF, with *field* bytes (``0x10``-``0x1B``)
    standing for a value the printer formats in place: a number in decimal, a move in
    notation, or a name from a table.  Tables sit at aligned addresses so that an entry's
    address is its table's base with the index in the low bits, no adder needed.

Keyword ROM (:func:`keyword_rom`)
    The words after ``:`` (commands) and after ``:reset`` (variants), one per 16-byte slot,
    NUL-terminated; slot ``i`` holds keyword ``i``.
"""

__all__ = [
    "PROTOCOL_VERSION", "LINE_MAX", "ERRORS", "ERROR_CODES", "ENGINE_ERRORS",
    "E_SYNTAX", "E_UNKNOWN", "E_OVERLONG", "E_FRAMING", "E_BUSY", "E_TURN", "E_NOMOVE",
    "COMMANDS", "VARIANTS", "VARIANT_SLOT", "COLOURS", "REASONS", "FIELDS",
    "TextLayout", "text_rom", "keyword_rom", "check_player_id",
]

#: Reported by ``:version``.
PROTOCOL_VERSION = 1

#: Longest line the device accepts, CR and LF not counted (the line buffer holds 128 bytes).
LINE_MAX = 127

#: Error code number -> name, as printed after ``! ``.  0..10 are the engine's
#: :class:`~traxfpga.hdl.tiles.Status` values (0, OK, is never printed); the names are the
#: reference engine's illegal-move codes.  The rest are the protocol's own.
ERRORS = (
    "ok", "game-over", "first-move", "range", "capacity", "occupied", "not-adjacent",
    "mismatch", "bounds", "three-tracks", "no-undo",
    "syntax", "unknown", "overlong", "framing", "busy", "turn", "nomove",
)
ERROR_CODES = {name: i for i, name in enumerate(ERRORS)}
#: The names an engine status can produce.
ENGINE_ERRORS = frozenset(ERRORS[1:11])

E_SYNTAX, E_UNKNOWN, E_OVERLONG, E_FRAMING, E_BUSY, E_TURN, E_NOMOVE = range(11, 18)

#: Engine-mode commands (the word after ``:``), in keyword-ROM slot order.
COMMANDS = ("play", "board", "reset", "undo", "version", "status", "move")
#: ``:reset`` arguments in :class:`~traxfpga.hdl.tiles.Variant` order; slot = 8 + value.
VARIANTS = ("trax", "8x8", "looptrax")
VARIANT_SLOT = 8

#: Names of Winner values (also of the board's contest colour) and of Reason values.
COLOURS = ("-", "white", "black")
REASONS = ("-", "loop", "line", "draw")

#: Field bytes of the templates.
FIELDS = {
    "placed":  0x10,   # decimal: tiles placed (or taken back) by the command
    "width":   0x11,   # decimal: columns in play
    "height":  0x12,   # decimal: rows in play
    "ply":     0x13,   # decimal: moves played
    "winner":  0x14,   # COLOURS name of the winner
    "reason":  0x15,   # REASONS name of how the game ended
    "variant": 0x16,   # VARIANTS name of the game's variant
    "role":    0x17,   # COLOURS name of the colour the board plays in contest mode
    "error":   0x18,   # ERRORS name of the error code
    "move":    0x19,   # the board's move in notation
    "cell":    0x1A,   # one board square: canonical name ("NE") or "."
    "sep":     0x1B,   # after a square: LF at the end of a row, else a space
}

_F = {name: chr(code) for name, code in FIELDS.items()}

#: Templates: name -> text with fields.
TEMPLATES = {
    "error":       "! {error}\n",
    "result":      "= ok {placed} {width} {height} {ply} {winner} {reason}\n",
    "move_result": "= ok {placed} {width} {height} {ply} {winner} {reason} {move}\n",
    "move":        "{move}\n",
    "status":      "= {variant} {width} {height} {ply} {winner} {reason} {role}\n",
    "reset":       "= {variant}\n",
    "cell":        "{cell}{sep}",
    "board_end":   "= ok {width} {height}\n",
}

ROM_DEPTH = 1024          # two 4 kbit block RAMs
TABLES = {                # name: (base, stride, slots)
    "error":   (0x000, 16, 32),
    "colour":  (0x200, 8, 4),
    "reason":  (0x220, 8, 4),
    "variant": (0x240, 16, 4),
}
TEMPLATE_BASE = 0x280
KEYWORD_STRIDE = 16
KEYWORD_SLOTS = 16


def check_player_id(player_id):
    """The player ID printed for ``-T``: 1 to 60 printable ASCII characters."""
    if not isinstance(player_id, str) or not 1 <= len(player_id) <= 60 or \
            not all(0x20 <= ord(c) < 0x7F for c in player_id):
        raise ValueError(f"the player ID must be 1 to 60 printable ASCII characters, "
                         f"not {player_id!r}")
    return player_id


class TextLayout:
    """Where everything sits in the text ROM; ``addr[name]`` for templates."""

    def __init__(self, *, player_id, capacity):
        check_player_id(player_id)
        self.image = bytearray(ROM_DEPTH)
        self.tables = dict(TABLES)
        self._table("error", ERRORS)
        self._table("colour", COLOURS)
        self._table("reason", REASONS)
        self._table("variant", VARIANTS)
        texts = {name: text.format(**_F) for name, text in TEMPLATES.items()}
        texts["id"] = f"{player_id}\n"
        texts["version"] = f"= trax-fpga protocol {PROTOCOL_VERSION} capacity {capacity}\n"
        self.addr = {}
        at = TEMPLATE_BASE
        for name, text in texts.items():
            data = text.encode("ascii") + b"\0"
            if at + len(data) > ROM_DEPTH:
                raise ValueError("the text ROM is full")
            self.image[at:at + len(data)] = data
            self.addr[name] = at
            at += len(data)
        self.used = at

    def _table(self, name, names):
        base, stride, slots = TABLES[name]
        # entry address = base | index * stride: the index bits must be clear in base
        assert base & (stride * slots - 1) == 0, name
        assert len(names) <= slots
        for i, text in enumerate(names):
            data = text.encode("ascii") + b"\0"
            assert len(data) <= stride, text
            self.image[base + i * stride:base + i * stride + len(data)] = data


def text_rom(*, player_id="trax-fpga", capacity=128):
    """(ROM image as a list of bytes, :class:`TextLayout`)."""
    layout = TextLayout(player_id=player_id, capacity=capacity)
    return list(layout.image), layout


def keyword_rom():
    """The keyword ROM image: COMMANDS from slot 0, VARIANTS from slot 8."""
    image = bytearray(KEYWORD_STRIDE * KEYWORD_SLOTS)
    for slot, word in list(enumerate(COMMANDS)) + \
            [(VARIANT_SLOT + i, w) for i, w in enumerate(VARIANTS)]:
        data = word.encode("ascii")
        assert len(data) < KEYWORD_STRIDE
        image[slot * KEYWORD_STRIDE:slot * KEYWORD_STRIDE + len(data)] = data
    return list(image)
