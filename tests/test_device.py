"""The whole device over its simulated serial line: every command and error, contest games,
engine mode against the reference, CR/LF, overlong, framing and busy lines, LEDs."""

import random

import pytest

from traxfpga.firmware.text import LINE_MAX
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game, Illegal, Move, format_move
from traxfpga.sim.device import DeviceSim

SEED = 20160211


#: The device's searches stop after this many legal placements, long before its cycle
#: budget, so that every answer is the twin's (the budget cutting a search short is tested
#: in test_pvs.py).
NODES = 1500


@pytest.fixture(scope="module")
def dev():
    with DeviceSim(capacity=128, node_limit=NODES) as sim:
        yield sim


def say(dev, line):
    """The device's answer lines to one line."""
    return dev.exchange(line)


def fresh(dev, variant="trax"):
    assert say(dev, f":reset {variant}") == [f"= {variant}"]


def status(dev):
    (line,) = say(dev, ":status")
    return line


def board_choice(game, dev=None):
    """The device player's choice: its twin's from the noise seed of the device's last
    search (without ``dev``: a prediction, with no noise)."""
    return run(game, NODES, seed=None if dev is None else dev.search_seed).move


def ref_result(step, game):
    name = lambda v: v or "-"          # noqa: E731
    return (f"= ok {step.placed} {step.size[0]} {step.size[1]} {game.ply} "
            f"{name(step.winner)} {name(step.reason)}")


# -- identification and engine-mode commands ----------------------------------------------------

def test_id_version_status(dev):
    assert say(dev, "-T") == ["trax-fpga"]
    assert say(dev, ":version") == ["= trax-fpga protocol 1 capacity 128"]
    fresh(dev)
    assert status(dev) == "= trax 0 0 0 - - -"


def test_play_undo_board_against_reference(dev):
    fresh(dev)
    game = Game()
    for mv in ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+"]:
        step = game.play(mv)
        assert say(dev, f":play {mv}") == [ref_result(step, game)]
    rows = say(dev, ":board")
    assert rows == game.board_rows() + [f"= ok {game.width} {game.height}"]
    # undo: the tiles taken back and the position before
    last = game.moves[-1]
    game.undo()
    assert say(dev, ":undo") == [f"= ok {step.placed} {game.width} {game.height} {game.ply} - -"]
    assert say(dev, ":board")[:-1] == game.board_rows()
    assert say(dev, f":play {last}")[0].startswith("= ok")
    for _ in range(game.ply + 1):
        assert say(dev, ":undo")[0].startswith("= ok")
    assert say(dev, ":undo") == ["! no-undo"]
    assert status(dev) == "= trax 0 0 0 - - -"
    assert say(dev, ":board") == ["= ok 0 0"]


def test_recorded_games_in_engine_mode(dev):
    """A seeded sample of the recorded games, every answer and the final board."""
    rng = random.Random(SEED)
    games = rng.sample(load_corpus(), 25)
    for g in games:
        variant = engine_variant(g)
        fresh(dev, variant)
        game = Game(variant)
        for mv in g["moves"]:
            try:
                step = game.play(mv)
            except Illegal as e:
                assert say(dev, f":play {mv}") == [f"! {e.code}"], (g["id"], mv)
                break
            assert say(dev, f":play {mv}") == [ref_result(step, game)], (g["id"], mv)
        assert say(dev, ":board")[:-1] == game.board_rows(), g["id"]
        winner, reason = game.winner or "-", game.reason or "-"
        assert status(dev) == (f"= {variant} {game.width} {game.height} {game.ply} "
                               f"{winner} {reason} -")


def test_move_command_plays_the_players_move(dev):
    fresh(dev)
    game = Game()
    while not game.over and game.ply < 16:
        got = say(dev, ":move")
        mv = board_choice(game, dev)
        step = game.play(mv)
        assert got == [f"{ref_result(step, game)} {format_move(mv)}"]
    assert say(dev, ":board")[:-1] == game.board_rows()


def test_reset_variants(dev):
    assert say(dev, ":reset 8x8") == ["= 8x8"]
    assert say(dev, ":play @0+")[0].startswith("= ok")
    assert say(dev, ":reset") == ["= 8x8"]                 # keeps the variant
    assert status(dev) == "= 8x8 0 0 0 - - -"
    assert say(dev, ":reset looptrax") == ["= looptrax"]
    assert say(dev, ":reset   trax  ") == ["= trax"]        # spaces around words
    assert say(dev, ":reset foo") == ["! syntax"]
    assert say(dev, ":reset trax 8x8") == ["! syntax"]
    assert say(dev, ":reset traxx") == ["! syntax"]
    assert say(dev, ":reset tra") == ["! syntax"]
    assert status(dev) == "= trax 0 0 0 - - -"


def test_bounds_in_8x8(dev):
    """Random 8x8 games until the area is 8 wide or tall, then moves that would grow it."""
    rng = random.Random(SEED)
    seen = 0
    for _ in range(20):
        fresh(dev, "8x8")
        game = Game("8x8")
        while not game.over and max(game.size) < 8:
            mv = format_move(rng.choice(game.legal_moves()))
            step = game.play(mv)
            assert say(dev, f":play {mv}") == [ref_result(step, game)]
        if game.over:
            continue
        for col in (-1, game.width):
            for row in range(game.height):
                for tile in "+/\\":
                    mv = format_move(Move(col, row, tile))
                    try:
                        game.copy().play(mv)
                        continue
                    except Illegal as e:
                        if e.code == "bounds":
                            seen += 1
                        assert say(dev, f":play {mv}") == [f"! {e.code}"], (game.moves, mv)
        if seen >= 3:
            break
    assert seen >= 3


# -- malformed input: one error line each, the position unchanged ------------------------------

BAD_LINES = [
    # (line, error)
    ("hello", "syntax"), ("a1+", "syntax"), ("A01+", "syntax"), ("A1", "syntax"),
    ("@0/x", "syntax"), ("A1+ B2/", "syntax"), ("A\x7f1+", "syntax"), ("\t", "syntax"),
    (":play", "syntax"), (":play ", "syntax"), (":play A1", "syntax"), (":playA1+", "unknown"),
    (":board x", "syntax"), (":undo 1", "syntax"), (":status now", "syntax"),
    (":foo", "unknown"), (":", "unknown"), (": board", "unknown"), (":Board", "unknown"),
    (":boardx", "unknown"), (":boar", "unknown"), (":versions", "unknown"),
    ("-", "unknown"), ("-X", "unknown"), ("-Tx", "unknown"), ("-w", "unknown"),
    ("-T x", "syntax"), ("--", "unknown"),
]


def test_bad_lines_get_one_error_and_change_nothing(dev):
    fresh(dev)
    for mv in ["@0/", "A2+", "A3/"]:
        assert say(dev, f":play {mv}")[0].startswith("= ok")
    before = status(dev), say(dev, ":board")
    for line, error in BAD_LINES:
        assert say(dev, line) == [f"! {error}"], line
    assert (status(dev), say(dev, ":board")) == before


def test_illegal_moves_report_the_engine_codes(dev):
    fresh(dev)
    assert say(dev, ":play A1+") == ["! first-move"]
    assert say(dev, ":play @0\\") == ["! first-move"]
    assert say(dev, ":play @0/")[0].startswith("= ok")
    game = Game()
    game.play("@0/")
    probes = ["A1+", "C1+", "A3/", "@0+", "B1+", "ZZZZZZZZZZZZZZZZZZZZ1+",
              "A99999999999999999999/", "@0/"]
    codes = set()
    for mv in probes:
        try:
            game.copy().play(mv)
            continue
        except Illegal as e:
            codes.add(e.code)
            assert say(dev, f":play {mv}") == [f"! {e.code}"], mv
    assert codes == {"occupied", "range", "not-adjacent"}
    assert status(dev) == "= trax 1 1 1 - - -"


def test_three_tracks_and_game_over(dev):
    """Every engine code is reachable through the protocol: find each in random games."""
    rng = random.Random(SEED)
    seen = set()
    for _ in range(6):
        fresh(dev)
        game = Game()
        while not game.over and game.ply < 60:
            for _ in range(3):
                col, row = rng.randint(-2, game.width + 1), rng.randint(-2, game.height + 1)
                mv = format_move(Move(max(col, -1), max(row, -1), rng.choice("+/\\")))
                try:
                    game.copy().play(mv)
                    continue
                except Illegal as e:
                    seen.add(e.code)
                    assert say(dev, f":play {mv}") == [f"! {e.code}"], (game.moves, mv)
            mv = format_move(rng.choice(game.legal_moves()))
            step = game.play(mv)
            assert say(dev, f":play {mv}") == [ref_result(step, game)]
        if game.over:
            assert say(dev, ":play A1+") == ["! game-over"]
            assert say(dev, ":move") == ["! game-over"]
            seen.add("game-over")
    assert {"occupied", "not-adjacent", "mismatch", "range", "game-over"} <= seen


# -- line handling ------------------------------------------------------------------------------

def test_cr_lf_and_empty_lines(dev):
    """LF, CR LF and CR alone (``miniterm --eol CR``) each end one line."""
    assert dev.run(b"-T\r\n") == b"trax-fpga\n"
    assert dev.run(b"-T\r") == b"trax-fpga\n"
    assert dev.run(b"\n\r\n\n\r") == b""                       # empty lines: no answer
    fresh(dev)
    assert dev.run(b":play @0+\r\n") == b"= ok 1 1 1 1 - -\n"
    assert dev.run(b":status\r") == b"= trax 1 1 1 - - -\n"
    # A CR inside a line ends it; what follows at once is a line sent while the device
    # answers (busy), as after an LF.
    assert dev.run(b":undo\rA1+\n") == b"= ok 1 0 0 0 - -\n! busy\n"
    assert status(dev) == "= trax 0 0 0 - - -"


def test_longest_line_and_overlong_lines(dev):
    fresh(dev)
    longest = ":play @0+".ljust(LINE_MAX)
    assert len(longest) == LINE_MAX
    assert say(dev, longest) == ["= ok 1 1 1 1 - -"]
    assert dev.run((":undo".ljust(LINE_MAX) + "\r\n").encode()) == b"= ok 1 0 0 0 - -\n"
    assert say(dev, ":play @0+".ljust(LINE_MAX + 1)) == ["! overlong"]
    assert say(dev, "x" * 1000) == ["! overlong"]
    assert status(dev) == "= trax 0 0 0 - - -"


def test_framing_errors(dev):
    fresh(dev)
    # A break alone, then the end of its line.
    dev.break_line(40 * dev.divisor)
    assert dev.run(b"\n") == b"! framing\n"
    # A break in the middle of a command spoils that line only.
    dev.run(b":play @0")
    dev.break_line(11 * dev.divisor)
    assert dev.run(b"+\n") == b"! framing\n"
    assert status(dev) == "= trax 0 0 0 - - -"
    assert dev.framing_errors == 0                         # the device's own output is clean


def test_busy_lines(dev):
    fresh(dev)
    # Lines sent while the device answers "-W" each get one busy error, after its answer.
    out = dev.run(b"-W\n:status\n:play A1+\n")
    first = format_move(board_choice(Game(), dev))
    assert out == f"{first}\n! busy\n! busy\n".encode()
    assert status(dev) == "= trax 1 1 1 - - white"
    # A long answer: everything typed meanwhile is refused, line by line.
    for _ in range(3):
        (answer,) = say(dev, ":move")
        assert answer.startswith("= ok")
    before = status(dev), say(dev, ":board")
    out = dev.run(b":board\n-T\n\n:undo\n")
    lines = out.decode().splitlines()
    assert lines == before[1] + ["! busy", "! busy", "! busy"]
    assert (status(dev), say(dev, ":board")) == before


def test_leds(dev):
    fresh(dev)
    assert dev.leds & 0b011 == 0b001                      # ready, not thinking
    assert say(dev, ":nope") == ["! unknown"]
    dev.idle(100_000)
    assert dev.leds & 0b111 == 0b101                      # error lit ...
    assert say(dev, "-T") == ["trax-fpga"]
    assert dev.leds & 0b111 == 0b001                      # ... until the next line


# -- contest mode -------------------------------------------------------------------------------

def contest_game(dev, board_colour, rng, greedy, max_moves=40):
    """A whole contest game; every answer of the device is checked.  A ``greedy`` opponent
    (the reference AI) wins as soon as it can; the other kind never ends the game itself and prefers moves
    after which the board's answer ends it.  Returns whose move ended the game ("board",
    "opponent") or None."""
    game = Game()
    if board_colour == "white":
        assert say(dev, "-W") == [format_move(board_choice(game, dev))]
        game.play(format_move(board_choice(game, dev)))
    else:
        assert say(dev, rng.choice(["-B", "-R"])) == []
    while not game.over and game.ply < max_moves:
        if greedy:
            mv = choose_move(game, rng)       # the reference AI: wins when it can
        else:
            moves = game.legal_moves()
            safe = [m for m in moves if not _ends(game, m)]
            feeding = [m for m in safe[:8] if _ends(game, m, then_board=True)]
            mv = rng.choice(feeding or safe or moves)
        mv = format_move(mv)
        game.play(mv)
        if game.over:
            assert say(dev, mv) == [], game.moves           # the game is over: no answer
            assert say(dev, "A1+") == ["! game-over"]
            return "opponent"
        got = say(dev, mv)
        expected = format_move(board_choice(game, dev))
        assert got == [expected], game.moves
        game.play(expected)
    if game.over:
        assert say(dev, "@0+") == ["! game-over"]
        return "board"
    return None


def _ends(game, move, then_board=False):
    g = game.copy()
    g.play(move)
    if then_board and not g.over:
        g.play(board_choice(g))
    return g.over


def test_contest_games(dev):
    """Contest games against the reference AI (cut short: the two can extend a strip for a
    long time) and against an opponent that feeds the board a win; every answer checked."""
    rng = random.Random(SEED)
    outcomes = [contest_game(dev, colour, rng, greedy=True, max_moves=16)
                for colour in ("white", "black")]
    outcomes += [contest_game(dev, colour, rng, greedy=False, max_moves=24)
                 for colour in ("white", "black")]
    assert "board" in outcomes, repr(outcomes)


def test_contest_opponent_wins(dev):
    """The opponent's winning move gets no answer, and the game is over."""
    g = next(g for g in load_corpus() if g["variant"] == "trax" and g["expect"]["winner"] == "white"
             and len(g["moves"]) % 2 == 1)
    fresh(dev)
    assert say(dev, "-B") == []                           # the board plays Black
    game = Game()
    for mv in g["moves"][:-1]:                            # both sides' moves, in engine mode
        step = game.play(mv)
        assert say(dev, f":play {mv}") == [ref_result(step, game)]
    game.play(g["moves"][-1])
    assert game.winner == "white"
    assert say(dev, g["moves"][-1]) == []                 # White's winning move: no answer
    assert say(dev, "A1+") == ["! game-over"]


def test_contest_errors(dev):
    fresh(dev)
    assert say(dev, "@0+") == ["! turn"]                   # no colour yet
    assert say(dev, "-B") == []
    assert say(dev, "A1+") == ["! first-move"]
    assert say(dev, "@0") == ["! syntax"]
    game = Game()
    game.play("@0/")
    got = say(dev, "@0/")
    reply = format_move(board_choice(game, dev))
    assert got == [reply]
    game.play(reply)
    assert say(dev, "Z9/") == ["! range"]
    mv = format_move(game.legal_moves()[0])
    assert say(dev, f":play {mv}")[0].startswith("= ok")   # engine mode moves for White ...
    assert say(dev, format_move(board_choice(game))) == ["! turn"]   # ... so not White's turn
    assert say(dev, ":undo")[0].startswith("= ok")
    assert say(dev, "-W") == [format_move(board_choice(Game(), dev))]   # a new game
    assert say(dev, ":reset") == ["= trax"]                # engine reset: no colour
    assert say(dev, "@0+") == ["! turn"]
    assert status(dev) == "= trax 0 0 0 - - -"


def test_contest_draw_in_8x8(dev):
    """The opponent's move that draws an 8x8 game gets no answer, like a winning one."""
    game_moves = ["@0/", "@1+", "C1\\", "@1+", "C2/", "@1+", "D3\\", "@1+", "A0/", "@1+",
                  "B3/", "@1+", "F1/", "A0+", "G6+", "A0+", "B1+", "A0+", "F3\\", "A5+", "D3+",
                  "A6+", "A7\\", "A8+", "B8+", "B1+", "H4+", "C1+", "E6+", "C7+", "D8+", "D1+",
                  "E2+", "E7+", "H8+", "F1+", "G2\\", "H1+", "H6+"]
    fresh(dev, "8x8")
    assert say(dev, "-B") == []                           # the game keeps the variant
    game = Game("8x8")
    for mv in game_moves[:-1]:                            # both sides' moves, in engine mode
        step = game.play(mv)
        assert say(dev, f":play {mv}") == [ref_result(step, game)]
    game.play(game_moves[-1])
    assert game.reason == "draw"
    assert say(dev, game_moves[-1]) == []                 # White's drawing move: no answer
    assert say(dev, "A1+") == ["! game-over"]
    assert status(dev) == f"= 8x8 8 8 {len(game_moves)} - draw black"


def test_games_vary_with_the_moment_of_the_first_line(dev):
    """The player's noise is seeded by a generator that runs on every cycle: the answer
    to the same opening move, asked for at different moments, differs (the noise in the
    evaluation picks among near-equal moves), each the twin's choice from the seed the
    device reports.  (The first move as White hardly varies: the evaluation prefers
    ``@0+`` to ``@0/`` by 6, nearly the noise's whole range; and after ``@0/`` the opening
    book answers, the same every time, so the opening move here is ``@0+``.)"""
    answers = set()
    game = Game()
    game.play("@0+")
    # Each moment's answer is fixed for a given design, but which moments give which answer
    # moves with every change of the design's timing: up to 24 moments (the second answer
    # comes about once in five), until two answers differ.
    for gap in range(24):
        fresh(dev)
        assert say(dev, "-B") == []
        dev.idle(gap)
        got = say(dev, "@0+")
        assert got == [format_move(board_choice(game, dev))]
        answers.add(got[0])
        if len(answers) >= 2:
            break
    assert len(answers) >= 2, answers


# Every command with and without arguments, after a line that left each kind of stale byte
# at each position the command could read past its own end.
STALE_COMMANDS = ["-T", "-T x", "-W", "-W x", "-B", "-B x", "-R", ":play", ":play A1+",
                  ":play @0+", ":undo", ":undo 1", ":move", ":move x", ":version",
                  ":version x", ":board", ":board x", ":status", ":status x", ":reset",
                  ":reset trax", ":reset 8x8", ":reset looptrax", ":reset x", ":p", ":re",
                  ":rese", ":reset tra", ":reset 8x", "@0", "A1", "@0+ x"]
STALE_BYTES = " tT8xA1+/@"


def _stale_line(pos, byte, length=20):
    """An unknown command (it changes nothing) with ``byte`` at buffer position ``pos``."""
    filler = ["~"] * length
    filler[0], filler[1] = ":", "z"
    filler[pos] = byte
    return "".join(filler)


def test_commands_do_not_read_stale_bytes(dev):
    """The answer to a command, and the state after it, do not depend on what an earlier,
    longer line left in the buffer past the command's end (a bare ``:reset`` after
    ``:reset trax`` is ``= trax``, not ``! syntax``)."""
    fresh(dev)
    assert say(dev, ":reset trax") == ["= trax"]
    assert say(dev, ":reset") == ["= trax"]
    for command in STALE_COMMANDS:
        answers = set()
        for pos in range(max(2, len(command)), len(command) + 4):
            for byte in STALE_BYTES:
                fresh(dev)
                assert say(dev, _stale_line(pos, byte)) == ["! unknown"]
                got = say(dev, command)
                if command in ("-W", ":move"):      # the board's move: the twin's, and
                    *head, move = got[0].split()    # which one depends on the moment
                    assert move == format_move(board_choice(Game(), dev))
                    got = [" ".join(head + ["MOVE"])]
                answers.add((tuple(got), status(dev)))
        assert len(answers) == 1, (command, answers)
