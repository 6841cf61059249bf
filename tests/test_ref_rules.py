"""Each rule of Trax on small hand-made positions (reference engine)."""

import pytest

from traxfpga.host.reference.trax import ILLEGAL_CODES, Game, Illegal, Move, Step, parse_move


#: Every rule test below builds its position with the reference's own replay.
play_all = Game.after


def snapshot(g):
    return (g.board_rows(), g.width, g.height, g.to_move, g.ply, list(g.moves), g.winner,
            g.reason, g.over, g.legal_moves())


def expect_illegal(g, move, code):
    before = snapshot(g)
    with pytest.raises(Illegal) as info:
        g.play(move)
    assert info.value.code == code, str(info.value)
    assert str(info.value) == f"{code}: {info.value.sentence}"
    assert snapshot(g) == before  # the position is exactly unchanged
    return info.value


# ------------------------------------------------------------------ start, tiles

def test_start_position():
    g = Game()
    assert (g.variant, g.width, g.height, g.to_move, g.ply, g.moves) == ("trax", 0, 0, "white", 0, [])
    assert (g.winner, g.reason, g.over) == (None, None, False)
    assert g.board_rows() == []
    assert g.legal_moves() == [Move(-1, -1, "+"), Move(-1, -1, "/")]
    assert g.tile(0, 0) is None


def test_unknown_variant():
    with pytest.raises(ValueError):
        Game("supertrax")


@pytest.mark.parametrize("first, cell", [("@0/", "NW"), ("@0+", "NS")])
def test_first_tile_orientation(first, cell):
    """FAQ D1: @0/ has white joining N and W, @0+ white running N-S."""
    g = Game()
    step = g.play(first)
    assert step == Step(first, 1, (1, 1), None, None)
    assert g.board_rows() == [cell]
    assert g.tile(0, 0) == cell
    assert (g.to_move, g.ply, g.moves) == ("black", 1, [first])


@pytest.mark.parametrize("move, rows", [
    # A1 is NW: white on its N and W edges, black on E and S
    ("B1+", ["NW NS"]),   # black enters from W: straights with black E-W
    ("B1/", ["NW ES"]),   # '/' with black on W: white E-S
    ("B1\\", ["NW NE"]),  # '\' with black on W: white N-E
    ("@1+", ["EW NW"]),   # white enters from E: white E-W
    ("@1/", ["ES NW"]),   # '/' with white on E: white E-S
    ("@1\\", ["NE NW"]),  # '\' with white on E: white N-E
    ("A0+", ["NS", "NW"]),
    ("A0/", ["ES", "NW"]),
    ("A0\\", ["SW", "NW"]),
    ("A2+", ["NW", "EW"]),  # black enters from N: white E-W
    ("A2/", ["NW", "ES"]),
    ("A2\\", ["NW", "SW"]),
])
def test_tile_orientation_follows_neighbour(move, rows):
    g = play_all(["@0/", move])
    assert g.board_rows() == rows


def test_second_move_has_twelve_placements():
    for first in ("@0/", "@0+"):
        g = play_all([first])
        assert len(g.legal_moves()) == 12
        assert {(m.col, m.row) for m in g.legal_moves()} == {(-1, 0), (1, 0), (0, -1), (0, 1)}


def test_notation_is_rebased_after_every_move():
    g = play_all(["@0/", "@1+"])      # a tile left of A1: the old A1 is now B1
    assert g.tile(1, 0) == "NW" and g.tile(0, 0) == "EW"
    step = g.play("A0\\")              # above the new A1: everything moves down a row,
    assert step.placed == 2             # and B1 (white from W and S) is forced
    assert g.board_rows() == ["NE SW", "EW NW"]
    assert g.tile(1, 1) == "NW"


# ------------------------------------------------------------------ illegal codes

def test_illegal_codes_listed():
    assert ILLEGAL_CODES[:9] == ("syntax", "first-move", "range", "occupied", "not-adjacent",
                                 "mismatch", "three-tracks", "bounds", "game-over")
    # "capacity" is for the hardware engine (a move outgrowing its store); never the reference's
    assert set(ILLEGAL_CODES[9:]) <= {"capacity"}


@pytest.mark.parametrize("move", ["a1/", "A1", "@@1/", "A01/", "", "A1x", "B2//"])
def test_syntax(move):
    expect_illegal(play_all(["@0/"]), move, "syntax")
    expect_illegal(Game(), move, "syntax")


@pytest.mark.parametrize("move", ["@0\\", "A1/", "A1+", "@1/", "A0+", "B2\\"])
def test_first_move(move):
    expect_illegal(Game(), move, "first-move")


def test_range():
    g = play_all(["@0/"])   # 1x1: columns @..B, rows 0..2
    for move in ("C1+", "A3+", "C3/", "D1\\", "A10+", "AA1/"):
        expect_illegal(g, move, "range")
    g = play_all(["@0/", "B1+", "A2+"])   # 2x2: columns @..C, rows 0..3
    expect_illegal(g, "D1+", "range")
    expect_illegal(g, "A4+", "range")
    expect_illegal(g, "C3+", "not-adjacent")   # the far corner is in range but touches nothing


def test_range_for_move_objects():
    g = play_all(["@0/"])
    expect_illegal(g, Move(-2, 0, "+"), "range")
    expect_illegal(g, Move(0, -2, "+"), "range")
    expect_illegal(g, Move(2, 0, "+"), "range")
    expect_illegal(g, Move(0, 0, "x"), "syntax")


def test_occupied():
    g = play_all(["@0/", "B1+"])
    expect_illegal(g, "A1+", "occupied")
    expect_illegal(g, "B1\\", "occupied")


def test_not_adjacent():
    g = play_all(["@0/", "B1+"])
    for move in ("@0/", "C0+", "@2\\", "C2+"):   # the corners of the ring
        expect_illegal(g, move, "not-adjacent")


def test_mismatch():
    # A1 NW; B1 '\' is NE (black on its W and S); A2 '+' is EW (black enters from N).
    # B2 is entered by black from N (B1's S) and white from W (A2's E):
    # '+' fits (white E-W) and '\' fits (white S-W) but '/' cannot (NW or ES).
    g = play_all(["@0/", "B1\\", "A2+"])
    assert g.board_rows() == ["NW NE", "EW ."]
    expect_illegal(g, "B2/", "mismatch")
    g.play("B2+")
    assert g.board_rows() == ["NW NE", "EW EW"]


def test_game_over():
    g = play_all(["@0/", "A0\\", "@2\\"])     # White closes a white loop
    assert g.winner == "white"
    e = expect_illegal(g, "A1+", "game-over")
    assert "white" in e.sentence
    expect_illegal(g, "a1+", "syntax")          # syntax is checked first
    expect_illegal(g, "@0/", "game-over")
    assert g.legal_moves() == []


# ------------------------------------------------------------------ forced plays

def test_forced_play_single():
    g = play_all(["@0/", "B1\\"])
    step = g.play("A2\\")       # A2 SW; B2 now has black from N and W: forced
    assert step.placed == 2


def test_forced_chain_from_the_corpus():
    # game 1, move 15 (B1+) forces four tiles, one after another
    moves = ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/",
             "D0\\", "C1\\"]
    g = play_all(moves)
    before = g.tiles
    step = g.play("B1+")
    assert step.placed == 5 and g.tiles == before + 5
    assert step.size == (6, 6)


def test_forced_plays_fill_until_none_left():
    """After every move no empty space has two tracks of one colour entering it."""
    from traxfpga.host.reference.corpus import load_corpus
    g = Game()
    for mv in load_corpus()[0]["moves"]:
        g.play(mv)
        for row in range(-1, g.height + 1):
            for col in range(-1, g.width + 1):
                if g.tile(col, row) is None:
                    w, k = g._entries(g._abs(col, row))
                    assert bin(w).count("1") < 2 and bin(k).count("1") < 2


THREE_TRACKS = (["@0/", "@1/", "B0+", "@2+", "A0/", "A4/", "B4+", "@3+", "C5+", "B6\\", "A5+",
                 "E3+", "F3/", "G3+", "H3\\", "G4\\", "G5\\", "H5\\", "F6/"], "D6\\")


def test_three_tracks_makes_the_whole_move_illegal():
    moves, bad = THREE_TRACKS
    g = play_all(moves)
    tiles = g.tiles
    e = expect_illegal(g, bad, "three-tracks")
    assert "three" in e.sentence
    assert g.tiles == tiles
    assert parse_move(bad) not in g.legal_moves()
    # the game goes on normally after the rejected move
    g.play(g.legal_moves()[0])
    g.undo()


# ------------------------------------------------------------------ wins

def test_loop_win_by_mover():
    g = play_all(["@0/", "A0\\"])
    step = g.play("@2\\")         # @1 is forced and closes a white 2x2 loop
    assert step == Step("@2\\", 2, (2, 2), "white", "loop")
    assert g.board_rows() == ["ES SW", "NE NW"]
    assert (g.winner, g.reason, g.over) == ("white", "loop", True)


def test_completing_only_the_opponents_loop_loses():
    g = play_all(["@0/", "B1\\"])
    step = g.play("A2\\")         # White's move forces B2 and closes a black loop
    assert (step.winner, step.reason) == ("black", "loop")
    assert g.board_rows() == ["NW NE", "SW ES"]


def row_moves(n, start="@0+"):
    """'@0+' then straights to the right along row 1: a black path running W-E."""
    return [start] + [f"{chr(ord('A') + i)}1+" for i in range(1, n)]


def test_line_needs_eight_columns():
    g = play_all(row_moves(7))
    assert g.size == (7, 1) and not g.over          # touches both edges but only 7 wide
    step = g.play("H1+")                              # Black's 8th tile: a black line
    assert (step.winner, step.reason, step.size) == ("black", "line", (8, 1))


def test_line_must_reach_the_outermost_edges():
    g = play_all(row_moves(7) + ["A0+"])          # the area is 7 wide, 2 tall
    assert not g.over
    g.play("@2/")                                  # new column on the left, away from the path
    assert g.size == (8, 2)
    assert not g.over                              # 8 wide, but the path no longer reaches W


def test_vertical_line_completed_by_the_opponent_loses():
    moves = ["@0+"] + [f"A{i}+" for i in range(2, 9)]   # white straights down column A
    g = play_all(moves[:-1])
    assert not g.over and g.size == (1, 7)
    step = g.play(moves[-1])                      # Black plays the 8th tile: White's line
    assert g.ply == 8 and (step.winner, step.reason) == ("white", "line")


def test_opponent_line_completed_by_the_mover_loses():
    moves = ["@0+", "A2+"] + [f"{chr(ord('A') + i)}1+" for i in range(1, 8)]
    g = play_all(moves)
    assert g.ply == 9 and g.to_move == "black"    # White made the black line
    assert (g.winner, g.reason) == ("black", "line")


def test_simultaneous_wins_go_to_the_mover():
    """Corpus games where one move closes a loop of each colour: the mover wins."""
    from traxfpga.host.reference.corpus import load_corpus
    games = {g["id"]: g for g in load_corpus()}
    for gid in (69, 181, 187, 218, 230):
        rec = games[gid]
        g = play_all(rec["moves"][:-1])
        mover = g.to_move
        placed = g.play(rec["moves"][-1])
        loop, line = g._achievements(g._hist[-1].placed)
        assert loop == [True, True]
        assert (placed.winner, placed.reason) == (mover, "loop") == (rec["expect"]["winner"],
                                                                      rec["expect"]["reason"])


LOOP_AND_LINE = ["@0/", "A0\\", "@2+", "@2/", "C3+", "A1\\", "D1+", "D3\\", "E1\\", "D4\\", "A3/",
                 "B5/", "@3/", "B5/", "E6\\", "F3\\", "A6\\", "@6/", "B1\\", "@6+", "A7/", "F7\\",
                 "B8+"]


def test_loop_and_line_at_once_reports_loop():
    g = play_all(LOOP_AND_LINE)
    loop, line = g._achievements(g._hist[-1].placed)
    assert loop[0] and line[0]
    assert (g.winner, g.reason) == ("white", "loop")


# ------------------------------------------------------------------ variants

def test_looptrax_ignores_lines():
    g = play_all(row_moves(8), "looptrax")
    assert not g.over and g.size == (8, 1)
    g.play("I1+")
    assert not g.over
    g2 = play_all(["@0/", "A0\\", "@2\\"], "looptrax")
    assert (g2.winner, g2.reason) == ("white", "loop")


def test_8x8_bounds():
    moves = ["@0/"] + ["@1/"] * 7      # alternating curves: no line
    g = play_all(moves, "8x8")
    assert g.size == (8, 1)
    e = expect_illegal(g, "@1/", "bounds")
    assert "8x8" in e.sentence
    expect_illegal(g, "J1+", "range")
    assert all(0 <= m.col < 8 for m in g.legal_moves())
    # the same moves are fine in standard Trax
    g2 = play_all(moves + ["@1/"])
    assert g2.size == (9, 1)


def test_8x8_lines_count():
    g = play_all(row_moves(8), "8x8")
    assert (g.winner, g.reason) == ("black", "line")


DRAW_8X8 = ("@0+ B1+ B2/ C1\\ B0/ C4/ B0/ D1+ @3+ E5\\ B5+ A2/ B6+ A6\\ @5/ E6+ E7+ @5/ @5/ G0/ "
            "E2+ E1/ A8/ B3/ H1+ H8\\ E8+ D1\\ B2+ A1\\").split()


def test_8x8_draw():
    g = play_all(DRAW_8X8[:-1], "8x8")
    assert not g.over and g.legal_moves()
    step = g.play(DRAW_8X8[-1])
    assert (step.winner, step.reason) == (None, "draw")
    assert (g.winner, g.reason, g.over) == (None, "draw", True)
    assert g.legal_moves() == []
    assert g.size == (8, 8)
    expect_illegal(g, "A1+", "game-over")
    g.undo()
    assert not g.over
    # standard Trax never calls a draw
    assert not play_all(DRAW_8X8).over


# ------------------------------------------------------------------ undo, copy

def test_undo_to_the_start():
    moves = LOOP_AND_LINE
    g = Game()
    snaps = [snapshot(g)]
    for m in moves:
        g.play(m)
        snaps.append(snapshot(g))
    for i in range(len(moves), 0, -1):
        assert snapshot(g) == snaps[i]
        g.undo()
    assert snapshot(g) == snaps[0]
    with pytest.raises(IndexError):
        g.undo()


def test_copy_is_independent():
    g = play_all(["@0/", "B1+"])
    c = g.copy()
    c.play("A2+")
    assert g.ply == 2 and c.ply == 3
    c.undo(); c.undo()
    assert c.board_rows() == ["NW"] and g.board_rows() == ["NW NS"]


def test_play_accepts_move_objects():
    g = Game()
    step = g.play(Move(-1, -1, "/"))
    assert step.move == "@0/" and g.moves == ["@0/"]


# ------------------------------------------------------------------ threats by kind

def test_threats_count_the_winning_placements_by_kind():
    """``Game.threats``: the side to move's placements that complete a loop are exactly
    the legal moves that, played, win it the game by a loop; those that complete a line
    are at least the ones that win by a line alone; the other colour's are its threats."""
    from traxfpga.host.reference.corpus import load_corpus
    seen = [0, 0]                       # loop and line placements met: both kinds tested
    for record in [r for r in load_corpus() if r.get("variant", "trax") == "trax"][:12]:
        g = Game()
        for text in record["moves"]:
            try:
                g.play(text)
            except Illegal:
                break
            if g.over:
                break
            loops, lines = g.threats()
            by = {"loop": 0, "line": 0}
            for mv in g.legal_moves():
                step = g.copy().play(mv)
                if step.winner == g.to_move:
                    by[step.reason] += 1
            assert loops == by["loop"] and lines >= by["line"]
            assert len(g.winning_moves()) <= loops + lines
            other = "white" if g.to_move == "black" else "black"
            assert sum(g.threats(other)) >= len(g.winning_moves(other))
            seen[0] += loops
            seen[1] += lines
    assert seen[0] > 0 and seen[1] > 0
