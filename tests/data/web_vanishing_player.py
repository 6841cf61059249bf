"""A contest-protocol player that goes away mid-game: it answers -T, -W (with @0/) and -B,
answers the first move of a game with a legal one, and exits at the second."""

import sys

from traxfpga.host.reference.trax import Game, format_move

game = None
answered = 0
for line in sys.stdin:
    line = line.strip()
    if line == "-T":
        print("vanishing-player", flush=True)
    elif line in ("-W", "-B"):
        game = Game()
        answered = 0
        if line == "-W":
            game.play("@0/")
            print("@0/", flush=True)
    else:
        if answered == 1:
            sys.exit(0)
        game.play(line)
        move = format_move(game.legal_moves()[0])
        game.play(move)
        answered += 1
        print(move, flush=True)
