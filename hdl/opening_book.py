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
BOOK_SOURCE = 'trax-fpga book --records docs/games --player trax-fpga --plies 12 --entries 64 --seconds 3 --seed 1'

#: (key, the answer's frame word, "the position's moves: the answer") entries.
BOOK = (
    (0x6a17618d, 0x0201, '@0/: A0/ (iteration 12)'),
    (0x15293831, 0x0200, '@0/ @1/: A0+ (iteration 9)'),
    (0x748e9d4b, 0x0005, '@0/ @1/ @1/ A0/: @1/ (iteration 8)'),
    (0xa1a0ffb7, 0x040c, '@0/ A0/ B1/: B3+ (iteration 10)'),
    (0xe9b1fff0, 0x0005, '@0/ @1/ @1/: @1/ (iteration 7)'),
    (0x14b9fead, 0x0411, '@0/ A0/ B1/ B3/ C3/: B4/ (iteration 7)'),
    (0xadee0b7b, 0x000a, '@0/ A0/ B1/ B3/ C3/ B4/ A0+: @2\\ (iteration 8)'),
    (0xa258ed1b, 0x081a, '@0/ A0/ B1/ B3/ C3/ B4/ A0+ @2\\ E5+: D6\\ (iteration 10)'),
    (0x1b8bd692, 0x0601, '@0/ @1/ C1/ B2+: C0/ (iteration 6)'),
    (0xe27d866b, 0x0c09, '@0/ @1/ @1/ A0/ @1/ @1/: F2/ (iteration 6)'),
    (0x23c0a54b, 0x0201, '@0/ @1/ @1/ @1/ D0/: A0/ (iteration 7)'),
    (0x7e1518e7, 0x000c, '@0/ @1/ @1/ @1/ D0/ A0/ A0/: @3+ (iteration 11)'),
    (0x36128148, 0x000d, '@0/ @1/ C1/ B2+ C0/ B0+: @3/ (iteration 7)'),
    (0x866f71dc, 0x0402, '@0/ @1/ @1/ A0/ @2+ @2/: B0\\ (iteration 7)'),
    (0xa86bab1b, 0x000a, '@0/ @1/ @1/ A0/ @2+ @2/ B0\\ A1\\: @2\\ (iteration 8)'),
    (0x787f2596, 0x0206, '@0/ @1/ @1/ A0/ @2+ @2/ B0\\ A1\\ @2\\ @2\\: A1\\ (iteration 11)'),
    (0xd5163336, 0x080d, '@0/ @1/ @1/ @1/ A2/: D3/ (iteration 7)'),
    (0x941cd2f8, 0x0015, '@0/ A0/ B1/ B3/ C3/ B4/ A0+ @2\\ E5+ D6\\ B5/: @5/ (iteration 10)'),
    (0x86a0d483, 0x0a08, '@0/ @1/ @1/ @1/ A2/ D3/ D4/: E2+ (iteration 11)'),
    (0xa00ef49a, 0x080e, '@0/ @1/ @1/ A0/ A3/ C4+: D3\\ (iteration 7)'),
    (0x4a984c26, 0x0a12, '@0/ @1/ @1/ A0/ A3/ C4+ D3\\ E3\\: E4\\ (iteration 11)'),
    (0xba9ef482, 0x0401, '@0/ @1/ @1/ A0/ A0/ @2+: B0/ (iteration 10)'),
    (0x385523ae, 0x0c0c, '@0/ @1/ @1/ A0/ A3/ C4+ D3\\ E3\\ E4\\ B5\\: F3+ (iteration 6)'),
    (0x640bd0ad, 0x0006, '@0/ @1/ @1/ @1/ D0/ A0/ A0/ @3+ D2+: @1\\ (iteration 11)'),
    (0x69125de8, 0x0600, '@0/ @1/ C1/ B2+ D2/ D3/: C0+ (iteration 9)'),
    (0x663d308d, 0x0202, '@0/ @1/ C1/ B2+ D2/ D3/ C0+ D2+: A0\\ (iteration 5)'),
    (0x6610fc13, 0x060c, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/: C3+ (iteration 8)'),
    (0x7cf04fef, 0x080d, '@0/ A0/ B1/ C2/ C3/: D3/ (iteration 8)'),
    (0xb78e1a22, 0x020d, '@0/ @1/ @1/ A0/ @1/ @1/ @1/ C0+: A3/ (iteration 6)'),
    (0xbf533471, 0x0202, '@0/ @1/ @1/ @1/ A2/ D3/ D4/ E2+ B3+: A0\\ (iteration 10)'),
    (0x28526a65, 0x0e12, '@0/ @1/ @1/ A0/ @1/ @1/ @1/ C0+ A3/ F4\\: G4\\ (iteration 6)'),
    (0x8325aaa4, 0x0206, '@0/ A0/ B1/ B3/ C3/ B4/ A0+ @2\\ E5+ D6\\ @2\\: A1\\ (iteration 4)'),
    (0x552f938c, 0x080d, '@0/ @1/ @1/ B0/ C3/: D3/ (iteration 8)'),
    (0xc7357fed, 0x0615, '@0/ A0/ B1/ B3/ C3/ C4/ D4/: C5/ (iteration 7)'),
    (0xd1d03f75, 0x0402, '@0/ A0/ B1/ C2/ C3/ D2/ @1+: B0\\ (iteration 8)'),
    (0x963048c8, 0x0c0c, '@0/ @1/ @1/ @1/ A2/ D3/ D4/ @1\\ B0/: F3+ (iteration 10)'),
    (0x5f63437a, 0x0a16, '@0/ A0/ B1/ C2/ C3/ D2/ @1+ B0\\ F4+: E5\\ (iteration 10)'),
    (0xe1cb4542, 0x0a1e, '@0/ A0/ B1/ B3/ C3/ B4/ A0+ @2\\ E5+ D6\\ D7\\: E7\\ (iteration 4)'),
    (0x678a1f01, 0x0401, '@0/ @1/ @1/ A0/ @1/ @1/ A0/ @2+: B0/ (iteration 7)'),
    (0x562f0683, 0x000c, '@0/ @1/ @1/ A0/ A0/ @2+ A0/ A0/ C3+ C2+: @3+ (iteration 6)'),
    (0xafc3a83a, 0x000d, '@0/ @1/ @1/ @1/ A2/ D3/ D4/ @1\\ B0/ F3+ C4+: @3/ (iteration 7)'),
    (0x0a82de48, 0x0402, '@0/ @1/ @1/ B0/ C3/ D2/ @1+: B0\\ (iteration 8)'),
    (0x2a16c094, 0x0a16, '@0/ @1/ @1/ B0/ C3/ D2/ @1+ B0\\ F4+: E5\\ (iteration 10)'),
    (0x9b93afbe, 0x0202, '@0/ @1/ @1/ @1/ D0/ A0/ A0/ @3+ D2+ E5\\ F5\\: A0\\ (iteration 10)'),
    (0x4e773928, 0x0a11, '@0/ @1/ @1/ A0/ @1/ @1/ E3/ F2+: E4/ (iteration 7)'),
    (0x616c7f56, 0x0601, '@0/ @1/ C1/ B2+ C0/ B0+ @3/ @4\\: C0/ (iteration 6)'),
    (0x2a1b6944, 0x0601, '@0/ @1/ C1/ B2+ D2/ D3/ C0+ D2+ A0\\ @1+: C0/ (iteration 4)'),
    (0xe8f4a5b4, 0x0601, '@0/ @1/ C1/ B2+ D2/ D3/ C0+ D2+ A0\\ @1\\: C0/ (iteration 4)'),
    (0xe421f066, 0x0401, '@0/ @1/ @1/ A0/ @1/ @1/ B0/ @2+: B0/ (iteration 7)'),
    (0x895c4180, 0x000c, '@0/ @1/ @1/ @1/ D0/ A0/ A0/ E4\\ E5\\: @3+ (iteration 11)'),
    (0xbb414970, 0x0401, '@0/ A0/ B1/ B3/ @2+: B0/ (iteration 8)'),
    (0x6f4b5b75, 0x0201, '@0/ A0/: A0/ (iteration 8)'),
    (0x2b739890, 0x0802, '@0/ @1/ C1/ B2+ C0/ B0+ @4\\ @1+: D0\\ (iteration 11)'),
    (0x1ad5e30e, 0x000c, '@0/ @1/ @1/ @1/ D0/ A0/ A0/ D5\\ E3+: @3+ (iteration 11)'),
    (0xe5fc74f2, 0x0009, '@0/ A0/ A0/: @2/ (iteration 8)'),
    (0xfe62cc6b, 0x0005, '@0/ @1/ @1/ A0/ @1/ B0+: @1/ (iteration 8)'),
    (0xa93e4726, 0x0a08, '@0/ @1/ @1/ @1/ D0/ A0/ D4/: E2+ (iteration 9)'),
    (0x72f8c513, 0x0201, '@0/ @1/ @1/ A0/ @1/ @1/ A0/ @2+ A0/ @2+: A0/ (iteration 8)'),
    (0xca94b5a3, 0x0c1a, '@0/ @1/ @1/ @1/ A2/ D3/ D4/ E2+ B3+ @1\\ A0\\: F6\\ (iteration 8)'),
    (0xe9da3c4a, 0x0006, '@0/ @1/ @1/ A0/ A0/ @2+ B0/ C3+: @1\\ (iteration 8)'),
    (0x76e9d78c, 0x0819, '@0/ A0/ B1/ B3/ C3/ C4/ D4/ C5/ E4+: D6/ (iteration 7)'),
    (0x6ee866a2, 0x0009, '@0/ @1/ @1/ A0/ @1/ @1/ B0/ @2+ B0/ B0+: @2/ (iteration 7)'),
)
