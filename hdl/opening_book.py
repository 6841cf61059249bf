"""The board's opening book: positions it met early in its recorded games, each answered by
its own search at a long budget, so that the device plays there what a search several
times its budget finds instead of what its one second's iteration and noise give.

One source for the hardware's program (:func:`~.pvs_program.program`, whose ``KEY`` tests
compare the position's key a word at a time) and its twin.  Written by
``trax-fpga book --write`` (``host/book.py``), which names its inputs below; the entries'
keys are the table's (:func:`~traxfpga.host.reference.ttable.game_key`, N = 128) and their
moves are frame words (:func:`~.pvs_isa.pack_move`).  Do not edit by hand.
"""

__all__ = ["BOOK", "BOOK_SOURCE"]

#: How the book was made (the command and its inputs).
BOOK_SOURCE = 'trax-fpga book --records docs/games --player trax-fpga --colour white --plies 18 --entries 64 --seconds 3 --seed 1'

#: (key, the answer's frame word, "the position's moves: the answer") entries.
BOOK = (
    (0x15293831, 0x0005, '@0/ @1/: @1/ (iteration 8)'),
    (0x748e9d4b, 0x0201, '@0/ @1/ @1/ A0/: A0/ (iteration 8)'),
    (0xba9ef482, 0x0201, '@0/ @1/ @1/ A0/ A0/ @2+: A0/ (iteration 10)'),
    (0x6610fc13, 0x0008, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/: @2+ (iteration 9)'),
    (0x0b377319, 0x0402, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ @2/: B0\\ (iteration 7)'),
    (0x40d1bee0, 0x000d, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ @2/ B0\\ A1\\: @3/ (iteration 7)'),
    (0x9cf5b07d, 0x0a0d, "@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ @2/ B0\\ A1\\ @3/ C0+: E3/ (won 12, lost 6 in the records; the search's E2\\, iteration 10)"),
    (0x7c255e05, 0x041a, "@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+: B6\\ (won 46, lost 0 in the records; the search's A5\\, iteration 8)"),
    (0x6f4b5b75, 0x0201, '@0/ A0/: A0/ (iteration 8)'),
    (0x14ee5e0d, 0x0800, '@0/ @1/ @1/ @1/: D0+ (iteration 6)'),
    (0x4e98ead4, 0x0215, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ D3\\: A5/ (iteration 11)'),
    (0x112bd1a7, 0x0402, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ D3\\ A5/ @4/: B0\\ (iteration 11)'),
    (0x3907a5ab, 0x0208, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ D3\\ A5/ @4/ B0\\ A1+: A2+ (iteration 5)'),
    (0x94d3c280, 0x0004, '@0/ A0/ A0/ @2/: @1+ (iteration 12)'),
    (0xf0f2cdc0, 0x0a01, "@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ @2/ B0\\ A1\\ @3/ C0+ E3/ F4/: E0/ (won 5, lost 0 in the records; the search's B0/, iteration 7)"),
    (0x22bf03eb, 0x0c1a, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ E7+: F6\\ (iteration 6)'),
    (0x29fdc0f0, 0x0402, '@0/ A0/ A0/ @2/ @1+ B0\\: B0\\ (iteration 7)'),
    (0x80804801, 0x000d, "@0/ A0/ A0/ @2/ @1+ B0\\ B0\\ A1\\: @3/ (won 6, lost 2 in the records; the search's @4\\, iteration 11)"),
    (0x69390353, 0x0215, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ @2+ C2+ B6\\ E7+ F6\\ E4\\: A5/ (iteration 11)'),
    (0x79c175e8, 0x0808, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ @2+: D2+ (iteration 8)'),
    (0xe22e3621, 0x0800, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ @2+ D2+ D1/: D0+ (iteration 8)'),
)
