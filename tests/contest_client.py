"""A contest client for the referee tests: the FPT contest protocol on stdin and stdout
(or on a TCP connection, for the ``serial:socket://`` tests), playing the reference AI.

    python tests/contest_client.py [--seed S] [--id NAME] [--illegal-at N] [--garbage-at N]
                                   [--error-at N] [--sleep-at N --sleep SECONDS]
                                   [--crash-at N] [--chatty]

``-T`` is answered with the ID, ``-W`` with the first move, ``-B``/``-R`` with nothing, an
opponent move with the client's move (nothing when the opponent's move ended the game, ``!
<code>`` when it was illegal).  The ``--*-at N`` options misbehave on the N-th answered move
(counted over the whole run, from 1): answer an illegal move (a tile on an occupied square),
a line that is not a move, an error line, sleep first, or exit with status 3.  ``--chatty``
prints an extra line after every ``-B``.
"""

import argparse
import os
import random
import sys
import time

from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.trax import Game, Illegal, Move, format_move


class Crash(Exception):
    """The client was told to crash now."""


class ContestClient:
    def __init__(self, seed=0, ident="contest-client", illegal_at=None, garbage_at=None,
                 error_at=None, sleep_at=None, sleep=0.0, crash_at=None, chatty=False):
        self.rng = random.Random(seed)
        self.ident = ident
        self.illegal_at, self.garbage_at, self.error_at = illegal_at, garbage_at, error_at
        self.sleep_at, self.sleep, self.crash_at = sleep_at, sleep, crash_at
        self.chatty = chatty
        self.game = None
        self.answers = 0

    def handle(self, line):
        """The lines to answer one input line with."""
        line = line.strip()
        if not line:
            return []
        if line == "-T":
            return [self.ident]
        if line == "-W":
            self.game = Game()
            return [self._move()]
        if line in ("-B", "-R"):
            self.game = Game()
            return ["hello, I am Black"] if self.chatty else []
        if line.startswith("-"):
            return ["! unknown"]
        if self.game is None:
            return ["! turn"]
        try:
            self.game.play(line)
        except Illegal as e:
            return [f"! {e.code}"]
        if self.game.over:
            return []
        return [self._move()]

    def _move(self):
        self.answers += 1
        n = self.answers
        if n == self.crash_at:
            raise Crash()
        if n == self.sleep_at:
            time.sleep(self.sleep)
        if n == self.error_at:
            return "! nomove"
        if n == self.garbage_at:
            return "my move is B2/"
        if n == self.illegal_at and self.game.ply > 0:
            for row in range(self.game.height):
                for col in range(self.game.width):
                    if self.game.tile(col, row) is not None:
                        return format_move(Move(col, row, "+"))
        mv = format_move(choose_move(self.game, self.rng))
        self.game.play(mv)
        return mv


def parser():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--id", default="contest-client")
    for name in ("illegal", "garbage", "error", "sleep", "crash"):
        p.add_argument(f"--{name}-at", type=int, metavar="N")
    p.add_argument("--sleep", type=float, default=0.0)
    p.add_argument("--chatty", action="store_true")
    return p


def client_from(args):
    return ContestClient(seed=args.seed, ident=args.id, illegal_at=args.illegal_at,
                         garbage_at=args.garbage_at, error_at=args.error_at,
                         sleep_at=args.sleep_at, sleep=args.sleep, crash_at=args.crash_at,
                         chatty=args.chatty)


def main(argv=None):
    client = client_from(parser().parse_args(argv))
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        try:
            answers = client.handle(line)
        except Crash:
            print("contest_client: crashing as told", file=sys.stderr, flush=True)
            os._exit(3)
        for a in answers:
            sys.stdout.write(a + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
