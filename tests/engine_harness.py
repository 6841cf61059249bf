"""Shared helpers for the hardware-engine tests: one compiled engine per session,
notation in and reference-format results out, and a differential checker."""


from amaranth.sim import Simulator

from traxfpga.hdl.tiles import STATUS_CODES, Status
from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.trax import Game, Illegal, format_move, parse_move


def simulate(dut, bench, *, clock=True):
    """Run the testbench ``bench`` on ``dut`` in Amaranth's simulator (with a clock unless
    the part is combinational): the engine's parts, each tested alone."""
    sim = Simulator(dut)
    if clock:
        sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def corpus():
    """The recorded games shipped with the package (:mod:`traxfpga.host.reference.corpus`)."""
    return load_corpus()


def core_place(core, text):
    move = parse_move(text)
    return core.place(move.col, move.row, move.tile)


class Mismatch(AssertionError):
    pass


def check_step(core, game, move, history):
    """Play ``move`` on both engines and compare everything they report."""
    try:
        step = game.play(move)
        ref = ("ok", step.placed, step.size, step.winner, step.reason)
    except Illegal as exc:
        ref = (exc.code,)
    res = core.place(move.col, move.row, move.tile)
    if res.status == Status.OK:
        got = ("ok", res.placed, (res.width, res.height), res.winner, res.reason)
    else:
        got = (STATUS_CODES[res.status],)
    if got != ref:
        moves = " ".join(history + [format_move(move)])
        raise Mismatch(f"after `{moves}`: engine {got}, reference {ref}")
    if res.status == Status.OK:
        history.append(format_move(move))
    return res


def check_board(core, game, history):
    rows = core.board_rows()
    if rows != game.board_rows():
        raise Mismatch(f"after `{' '.join(history)}`: board {rows} != {game.board_rows()}")


def random_probe(game, rng):
    """A move that is usually illegal: a random coordinate in (or just beyond) range."""
    col = rng.randint(-2, game.width + 1)
    row = rng.randint(-2, game.height + 1)
    return parse_move(format_move_loose(col, row, rng.choice("+/\\")))


def format_move_loose(col, row, tile):
    from traxfpga.host.reference.trax import Move
    return format_move(Move(max(col, -1), max(row, -1), tile))


def random_game(core, rng, variant="trax", max_moves=60, probes=2, undo_rate=0.1):
    """Play a random game on the engine and the reference in lockstep, with illegal
    probes and undos; raises Mismatch with a reproducer on any difference."""
    core.reset(variant)
    game = Game(variant)
    history = []
    for _ in range(max_moves):
        for _ in range(probes):
            if game.ply:
                check_step(core, game, random_probe(game, rng), history)
        if game.over:
            check_step(core, game, parse_move("A1+"), history)   # game-over
            break
        if history and rng.random() < undo_rate:
            res = core.undo()
            game.undo()
            history.pop()
            if res.status != Status.OK or (res.width, res.height) != (game.width, game.height):
                raise Mismatch(f"undo after `{' '.join(history)}`: {res}")
            continue
        moves = game.legal_moves()
        if not moves:
            break
        check_step(core, game, rng.choice(moves), history)
    check_board(core, game, history)
    return history
