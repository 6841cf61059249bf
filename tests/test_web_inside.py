"""The page's look inside: each answer carries the player's search (the simulated board's
and the twin's depth and nodes) and a board's own ``:status`` after its move, asked
between moves without disturbing the game."""

from traxfpga.host.reference.trax import Game, format_move
from traxfpga.host.web.pool import Answer, PlayerPool


def test_the_simulated_board_reports_its_search_and_status():
    pool = PlayerPool()
    try:
        spec = "sim,nodes=300"
        assert pool.start(spec, "black", 1, 10.0).line is None
        game = Game()
        game.play("@0+")                # (not a position of the board's opening book)
        got = pool.reply(spec, "@0+", 10.0)
        assert isinstance(got, Answer), got
        game.play(got.line)
        assert got.search["depth"] >= 1 and got.search["nodes"] >= 300
        # = variant width height ply winner reason role: the board plays Black
        assert got.status == f"= trax {game.width} {game.height} {game.ply} - - black"
        # the game goes on after the status line, which changed nothing
        move = game.legal_moves()[0]
        game.play(format_move(move))
        again = pool.reply(spec, format_move(move), 10.0)
        assert isinstance(again, Answer) and again.status.split()[4] == str(game.ply + 1)
    finally:
        pool.close()


def test_other_players_report_what_they_have():
    pool = PlayerPool()
    try:
        pool.start("model,nodes=200", "black", 3, 10.0)
        got = pool.reply("model,nodes=200", "@0+", 10.0)     # (not in the opening book)
        assert got.search["depth"] >= 1 and got.status is None
        pool.start("ref", "black", 3, 10.0)
        got = pool.reply("ref", "@0/", 10.0)
        assert got.search is None and got.status is None
    finally:
        pool.close()
