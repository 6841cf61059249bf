"""The opening book (``trax-fpga book``, ``hdl/opening_book.py``): the positions the board
met most often in its records, answered by its own long search or, where the records show
another of its moves winning clearly more often, by that move, and the book the device
holds made that way."""

import shutil

from traxfpga.hdl import opening_book
from traxfpga.hdl.pvs_isa import pack_move
from traxfpga.hdl.pvs_program import MAX_BOOK
from traxfpga.hdl.tile_chars import TILE_CHARS
from traxfpga.host.book import (KEY_MASK, RESULTS_MARGIN, _live, book_positions, book_results,
                                by_results, entry, make_book, render)
from traxfpga.host.cli import main
from traxfpga.host.reference.trax import Game, parse_move
from traxfpga.host.reference.ttable import game_key

from player_harness import needs_cxx

GAMES = [
    ("sim (trax-fpga)", "cmd (other)", "1-0", "@0/ @1/ C1/ B2+ C0/ B0+ @3/ @4\\"),
    ("sim (trax-fpga)", "cmd (other)", "0-1", "@0/ @1/ C1/ B2+ D2/ D3/"),
    ("cmd (other)", "sim (trax-fpga)", "0-1", "@0/ @1/ @1/ A0/"),
]


def _records(folder, games=GAMES):
    """Records of ``games`` ((white, black, result, moves) each) in ``folder``."""
    folder.mkdir()
    for i, (white, black, result, moves) in enumerate(games):
        text = (f"# white: {white}\n# black: {black}\n# result: {result}  a game\n"
                + "\n".join(moves.split()) + "\n")
        (folder / f"game-{i + 1:03d}.txt").write_text(text)
    return folder


def _check_entry(key, word, text):
    """An entry's key and move are those of the position and answer its text names."""
    moves, rest = text.split(": ")
    game = Game.after(moves.split())
    answer = parse_move(rest.split()[0])
    assert answer in game.legal_moves(), text
    assert key == game_key(game) & KEY_MASK, text
    # the 64x64 and 32x32 stores key the book's positions as the 128x128 one does
    assert game_key(game, 6) == game_key(game, 5) == game_key(game), text
    assert word == pack_move(answer.col, answer.row, TILE_CHARS.index(answer.tile)), text


def test_the_devices_book_is_its_positions_answered():
    book = opening_book.BOOK
    assert 0 < len(book) <= MAX_BOOK
    assert len({key for key, _, _ in book}) == len(book)
    assert opening_book.BOOK_SOURCE.startswith("trax-fpga book ")
    for entry in book:
        _check_entry(*entry)


def test_positions_are_the_boards_turns_after_its_first(tmp_path):
    seen = book_positions([_records(tmp_path / "rec")], "trax-fpga", plies=12)
    assert seen[("@0/", "@1/")] == 2                    # White's second move, twice
    assert seen[("@0/", "@1/", "C1/", "B2+", "C0/", "B0+")] == 1
    assert seen[("@0/",)] == 1                          # Black's first move
    assert seen[("@0/", "@1/", "@1/")] == 1
    assert () not in seen and ("@0/", "@1/", "C1/") not in seen     # not its turn
    short = book_positions([tmp_path / "rec"], "trax-fpga", plies=3)
    assert max(map(len, short)) == 2
    white = book_positions([tmp_path / "rec"], "trax-fpga", plies=12, colours=("white",))
    assert all(len(ms) % 2 == 0 for ms in white) and white[("@0/", "@1/")] == 2


def _games(folder, games):
    """Records of ``games`` ((result, moves) each) with the board White, in ``folder``."""
    return _records(folder, [("sim (trax-fpga)", "cmd (other)", result, moves)
                             for result, moves in games])


def test_results_replace_an_answer_only_where_the_records_say_so(tmp_path):
    here = ("@0/", "@1/", "@1/", "A0/")
    kept_on, left = "@0/ @1/ @1/ A0/ A0/ @2+", "@0/ @1/ @1/ A0/ @1/ @1/"
    for wins, replaced in ((RESULTS_MARGIN + 1, True), (RESULTS_MARGIN, True),
                           (RESULTS_MARGIN - 1, False)):
        folder = _games(tmp_path / f"w{wins}", [("1-0", kept_on)] * wins + [("0-1", left)])
        results = book_results([folder], "trax-fpga", plies=12)
        assert results[here] == {"A0/": [wins, 0], "@1/": [0, 1]}
        assert results[("@0/", "@1/")] == {"@1/": [wins, 1]}
        # The search answered @1/, which lost there: A0/ replaces it once it won enough.
        chosen = [here]
        done = [entry(Game.after(here), parse_move("@1/"), "iteration 5")]
        got = by_results(chosen, done, results)
        if replaced:
            _check_entry(*got[0])
            assert got[0][2] == (f"@0/ @1/ @1/ A0/: A0/ (won {wins}, lost 0 in the records; "
                                 "the search's @1/, iteration 5)")
        else:
            assert got == done
        # An answer whose own games did as well stays.
        chosen, done = _answered([(" ".join(here), "A0/")])
        assert by_results(chosen, done, results) == done
    # A move that lost more than it won never replaces an answer, even one that lost more.
    folder = _games(tmp_path / "losses", [("0-1", kept_on)] + [("0-1", left)] * 4)
    chosen, done = _answered([(" ".join(here), "@1/")])
    assert by_results(chosen, done, book_results([folder], "trax-fpga", 12)) == done


def _answered(lines):
    """Move lists and their entries, from (moves, answer) pairs."""
    chosen = [tuple(moves.split()) for moves, _ in lines]
    done = [entry(Game.after(ms), parse_move(move)) for ms, (_, move) in zip(chosen, lines)]
    return chosen, done


def test_the_book_leaves_out_what_the_device_would_not_reach_or_could_not_tell_apart():
    chosen, done = _answered([
        ("@0/ A0/ B1/", "B3+"),
        ("@0/ A0/ B1/ B3/ C3/", "B4/"),         # the book plays B3+ before it
        ("@0/ A0+ B1\\", "A2/"),
        ("@0/ A0+ B2/", "A2/"),                 # the same position: the first kept
        ("@0/ A0/ B1/ B3+ C1/", "D1+")])
    kept, why = _live(chosen, done)
    assert [e[2].split(":")[0] for e in kept] == ["@0/ A0/ B1/", "@0/ A0+ B1\\",
                                                  "@0/ A0/ B1/ B3+ C1/"]
    assert why[chosen[1]] == "the book plays B3+ after @0/ A0/ B1/"
    assert why[chosen[3]] == "the position of @0/ A0+ B1\\"
    # Two positions whose compared words are equal: neither is kept.
    clash = [done[0], (done[0][0], *done[2][1:])]
    kept, why = _live([chosen[0], chosen[2]], clash)
    assert kept == [] and set(why.values()) == {"another position's key words are equal"}


@needs_cxx
def test_make_book_and_render(tmp_path):
    folder = _records(tmp_path / "rec")
    book = make_book([folder], entries=3, seconds=0.005, jobs=2)
    # The three met most, less those below a different answer of the book's own.
    assert 1 <= len(book) <= 3
    assert book[0][2].startswith("@0/ @1/: ")           # the position met most
    answers = {tuple(text.split(": ")[0].split()): text.split(": ")[1].split()[0]
               for _, _, text in book}
    for ms in answers:
        for ply in range(len(ms) - 2, 0, -2):
            assert answers.get(ms[:ply], ms[ply]) == ms[ply], ms
    for entry in book:
        _check_entry(*entry)
    scope = {}
    exec(render(book, "trax-fpga book --test"), scope)
    assert scope["BOOK"] == tuple(book) and scope["BOOK_SOURCE"] == "trax-fpga book --test"
    exec(render([], "none"), scope)
    assert scope["BOOK"] == ()


@needs_cxx
def test_cli_writes_the_book_and_refuses_bad_settings(tmp_path, capsys, monkeypatch):
    folder = _records(tmp_path / "rec")
    copy = tmp_path / "opening_book.py"
    shutil.copy(opening_book.__file__, copy)
    monkeypatch.setattr(opening_book, "__file__", str(copy))
    assert main(["book", "--records", str(folder), "--entries", "2", "--seconds", "0.005",
                 "--colour", "white", "--search-only", "--write"]) == 0
    out = capsys.readouterr()
    kept = len(out.out.splitlines())
    assert 1 <= kept <= 2 and f"{kept} entries written" in out.err
    scope = {}
    exec(copy.read_text(), scope)
    assert len(scope["BOOK"]) == kept and "--seconds 0.005" in scope["BOOK_SOURCE"]
    assert "--colour white" in scope["BOOK_SOURCE"] and "--search-only" in scope["BOOK_SOURCE"]
    assert all(len(text.split(":")[0].split()) % 2 == 0 for _, _, text in scope["BOOK"])
    for argv, message in ((["--seconds", "0"], "--seconds must be more than 0"),
                          (["--entries", str(MAX_BOOK + 1)], f"entries must be 1 .. {MAX_BOOK}"),
                          (["--records", str(tmp_path / "none")], "cannot read"),
                          (["--seed", "0"], "--seed must be 1 .. 65535")):
        assert main(["book", "--records", str(folder), *argv]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
