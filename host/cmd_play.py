"""``trax-fpga play``: a person plays Trax against an opponent in the terminal.

The opponent is any object with ``name`` and ``reply(game) -> move text``
(and optionally ``close()``): the board (the default: the simulated device, or the one
on ``--port``, through the host client), or the reference AI
(:class:`~traxfpga.host.reference.ai.AIOpponent`, ``--opponent ai``).
:data:`OPPONENTS` maps the ``--opponent`` choices to factories ``factory(args) -> opponent``.
With ``--auto`` the reference AI plays your side too.

At the prompt type a move in notation (e.g. ``B2/``), or ``moves`` (list the
legal moves), ``undo`` (take back your last move and the reply), ``board``,
``help``, ``quit``.  End of input also ends the game.
"""

HELP = """\
Type a move in Trax notation: column (@, A, B, ...), row (0, 1, 2, ...) and tile:
  +  straights,  /  curves joining N-W and S-E,  \\  curves joining N-E and S-W.
@ and 0 are the empty column and row just outside the tiles in play; the
colours of the neighbouring tracks decide how the tile is turned, and forced
tiles are placed for you.  White moves first; the first move is @0/ or @0+.
Other commands: moves (list legal moves), undo, board, help, quit."""


def _ai_opponent(args):
    from .reference.ai import AIOpponent
    return AIOpponent(seed=args.seed)


class BoardOpponent:
    """The device as an opponent: brought to the game's position, then asked for its move."""

    def __init__(self, client, name):
        self.client = client
        self.name = name

    def reply(self, game):
        self.client.sync(game.variant, list(game.moves))
        return self.client.board_move().move

    def close(self):
        self.client.close()


def _board_opponent(args):
    from .client import open_client
    if args.port:
        return BoardOpponent(open_client(args.port, args.variant), f"the board on {args.port}")
    return BoardOpponent(open_client("sim", args.variant,
                                     sim_args={"node_limit": args.board_nodes or 0}),
                         "the simulated board")


#: --opponent choice -> factory(args) -> opponent with .name and .reply(game)
OPPONENTS = {"ai": _ai_opponent, "board": _board_opponent}


def add_arguments(parser):
    parser.add_argument("--as", dest="side", choices=("white", "black"), default="white",
                        help="the colour you play (White moves first; default white)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the AI (default 0)")
    parser.add_argument("--variant", choices=("trax", "8x8", "looptrax"), default="trax",
                        help="rules variant (default: trax)")
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default=None,
                        help="who you play against: the board (default: the simulated device, "
                             "or the one on --port) or the reference AI")
    parser.add_argument("--port", metavar="PORT", default=None,
                        help="play the board on this serial port or pyserial URL, optionally "
                             "PORT@BAUD (implies --opponent board)")
    parser.add_argument("--board-nodes", type=int, default=None, metavar="N",
                        help="the simulated board also stops each search after N legal "
                             "placements: a quicker, weaker board (default: its whole 0.8 s)")
    parser.add_argument("--auto", action="store_true",
                        help="the reference AI plays your side (a game to watch)")


def play_session(game, opponent, human, read=input, write=print):
    """Run one game between a person (``human`` colour) and ``opponent``.

    ``read(prompt)`` returns a line (raises EOFError at the end of input) and
    ``write(text)`` prints; returns the exit status (0, or 1 when the opponent
    sent an illegal move).
    """
    from .render import ascii_board
    from .reference.trax import Illegal, format_move, parse_move

    write(f"Trax ({game.variant}): you play {human}, {opponent.name} plays "
          f"{'black' if human == 'white' else 'white'}. Type 'help' for help.")
    write(ascii_board(game))
    while not game.over:
        if game.to_move != human:
            try:
                text = opponent.reply(game.copy())
                step = game.play(text)
            except Illegal as e:
                write(f"{opponent.name} sent an illegal move: {e}")
                return 1
            forced = f" (+{step.placed - 1} forced)" if step.placed > 1 else ""
            write(f"{opponent.name} plays {step.move}{forced}")
            write(ascii_board(game))
            continue
        try:
            line = read(f"{game.ply + 1}. your move ({human}): ")
        except (EOFError, KeyboardInterrupt):
            write("")
            write("Game abandoned.")
            return 0
        line = line.strip()
        cmd = line.lower()
        if not line:
            continue
        if cmd in ("quit", "exit", "q"):
            write("Game abandoned.")
            return 0
        if cmd in ("help", "?", "h"):
            write(HELP)
            continue
        if cmd == "board":
            write(ascii_board(game))
            continue
        if cmd == "moves":
            write(" ".join(format_move(m) for m in game.legal_moves()))
            continue
        if cmd == "undo":
            # take back your last move and the opponent's reply to it
            first = 1 if human == "white" else 2  # ply after your first move
            if game.ply < first:
                write("Nothing to take back.")
                continue
            game.undo()
            while game.to_move != human:
                game.undo()
            write(ascii_board(game))
            continue
        try:
            step = game.play(line)
        except Illegal as e:
            hint = ""
            if e.code == "syntax" and line.upper() != line:
                try:
                    parse_move(line.upper())
                    hint = f" (did you mean {line.upper()}?)"
                except Illegal:
                    pass
            write(f"Not played: {e}{hint}")
            continue
        forced = f" (+{step.placed - 1} forced)" if step.placed > 1 else ""
        write(f"you play {step.move}{forced}")
        write(ascii_board(game))
    if game.winner:
        who = "You win" if game.winner == human else f"{opponent.name.capitalize()} wins"
        write(f"{who}: {game.winner} {game.reason} after {game.ply} moves.")
    else:
        write(f"Drawn after {game.ply} moves: no legal move is left.")
    return 0


def run(args):
    import sys

    from .reference.trax import Game

    choice = args.opponent or "board"
    if args.port and choice != "board":
        print("trax-fpga play: --port is for --opponent board", file=sys.stderr)
        return 1
    from ..hdl.pvs_isa import MAX_NODE_LIMIT
    if args.board_nodes is not None and (choice != "board" or args.port
                                         or not 1 <= args.board_nodes <= MAX_NODE_LIMIT):
        print(f"trax-fpga play: --board-nodes takes 1 .. {MAX_NODE_LIMIT:,}, for the "
              f"simulated board", file=sys.stderr)
        return 1
    try:
        opponent = OPPONENTS[choice](args)
    except Exception as e:          # a port that cannot be opened, a device that does not answer
        print(f"trax-fpga play: cannot use the board: {e}", file=sys.stderr)
        return 1
    game = Game(args.variant)
    read = input
    if args.auto:
        from .reference.ai import AIOpponent
        me = AIOpponent(seed=args.seed + 1)

        def read(prompt):
            move = me.reply(game.copy())
            print(f"{prompt}{move}")
            return move
    try:
        return play_session(game, opponent, args.side, read=read)
    except Exception as e:
        from .client import DeviceError
        if not isinstance(e, DeviceError):
            raise
        print(f"trax-fpga play: the board failed: {e}", file=sys.stderr)
        return 1
    finally:
        close = getattr(opponent, "close", None)
        if close:
            close()
