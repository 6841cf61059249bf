"""The engine's scope of a placement (``Engine(scope=True)``, hdl/engine_scope.py): its
boxes against the reference's (:func:`~traxfpga.host.reference.scope.move_boxes`), its
scan of a window against the reference's scan of the same squares, and ``tried`` against
the legal placements a hunt makes."""

import pytest
from amaranth.sim import Simulator

from traxfpga.hdl.engine import Engine, Op
from traxfpga.hdl.tile_chars import TILE_CHARS
from traxfpga.hdl.tiles import STATUS_CODES, Shape, Status, Variant
from traxfpga.host.reference.scope import extent, move_boxes
from traxfpga.host.reference.trax import Game, Illegal, Move, parse_move
from traxfpga.sim.bench import search_positions
from traxfpga.sim.core import CoreSim

from engine_harness import core_place

LOG2N = 5           # a 32x32 store: the positions' areas fit, and it compiles sooner


@pytest.fixture(scope="module", params=[False, True, "quad"], ids=["one-port", "dual", "quad"])
def core(request):
    dual = request.param
    with CoreSim(log2n=LOG2N, dual=bool(dual), quad=dual == "quad", scope=True) as sim:
        yield sim


def _positions():
    return [Game.after(moves) for moves in search_positions(3, 1)]


def _set_up(core, game):
    assert core.reset().status == Status.OK
    for text in game.moves:
        assert core_place(core, text).status == Status.OK


def _frame(game):
    """A box in ``game``'s area as the engine gives it: notation plus one."""
    minx, miny = game._minx, game._miny
    return lambda b: (b[0] - minx + 1, b[1] - minx + 1, b[2] - miny + 1, b[3] - miny + 1)


def _widened_hull(res):
    """The sequencer's hull: the engine's, with the tiles' extent widened by one."""
    (x0, x1, y0, y1), (h0, h1, v0, v1) = res.box, res.hull
    return min(h0, x0 - 1), max(h1, x1 + 1), min(v0, y0 - 1), max(v1, y1 + 1)


def test_each_placements_boxes_are_the_references(core):
    checked = 0
    for game in _positions():
        _set_up(core, game)
        frame = _frame(game)
        for move in game.legal_moves():
            game.play(move)
            box, hull = move_boxes(game)
            res = core.place(move.col, move.row, move.tile)
            assert res.status == Status.OK
            assert (res.box, _widened_hull(res)) == (frame(box), frame(hull)), \
                (game.moves, res)
            game.undo()
            assert core.undo().status == Status.OK
            checked += 1
    assert checked > 100


def test_a_hunting_place_keeps_only_a_move_that_ends_the_game(core):
    """With ``scope``, PLACE hunts as SEEK does (the sequencer's walk of a list): a legal
    placement that ends nothing is taken back at once, a node counted; one that ends the
    game stays; a refused one is refused as by PLACE."""
    ended = 0
    for game in _positions():
        _set_up(core, game)
        rows = game.board_rows()
        for col in range(-1, game.width + 1):
            for row in range(-1, game.height + 1):
                for tile in TILE_CHARS:
                    try:
                        game.play(Move(col, row, tile))
                    except Illegal as exc:
                        res = core.place(col, row, tile, hunt=True)
                        assert STATUS_CODES[res.status] == exc.code, (game.moves, col, row)
                        continue
                    res = core.place(col, row, tile, hunt=True)
                    assert (res.status, res.nodes) == (Status.OK, 1), (game.moves, col, row)
                    if game.over:
                        ended += 1
                        assert (res.placed, res.ply) == (len(game._hist[-1].placed), game.ply)
                        assert core.undo().status == Status.OK
                    else:
                        assert (res.placed, res.ply) == (0, game.ply - 1)
                    game.undo()
        assert core.board_rows() == rows
    assert ended > 0


def _window(game, box):
    """The scoped scan's window around the move's ``box`` (absolute), clipped to the
    scan's squares, as notation: (first column, last column, first row, last row)."""
    minx, miny = game._minx, game._miny
    x0, x1 = max(box[0] - 2, minx - 1) - minx, min(box[1] + 2, game._maxx + 1) - minx
    y0, y1 = max(box[2] - 2, miny - 1) - miny, min(box[3] + 2, game._maxy + 1) - miny
    return x0, x1, y0, y1


def _after(col, row, tile, window):
    """The placement after (col, row, tile) in the window's scan order."""
    x0, x1, y0, y1 = window
    if tile < 2:
        return col, row, tile + 1
    if row < y1:
        return col, row + 1, 0
    return col + 1, y0, 0


def test_a_windowed_hunt_scans_the_windows_squares(core):
    """After each of a position's moves, the engine hunts the window as the reference
    tries its placements one by one: the same placements come back (those that end the
    game, or that their forced tiles refuse), with the same nodes."""
    windows = 0
    for game in _positions():
        _set_up(core, game)
        for move in game.legal_moves()[::3]:
            game.play(move)
            if game.over:
                game.undo()
                continue
            assert core.place(move.col, move.row, move.tile).status == Status.OK
            window = _window(game, move_boxes(game)[0])
            x0, x1, y0, y1 = window
            want, want_nodes = [], 0
            for col in range(x0, x1 + 1):
                for row in range(y0, y1 + 1):
                    for tile in range(3):
                        try:
                            game.play(Move(col, row, TILE_CHARS[tile]))
                        except Illegal as exc:
                            if exc.code == "three-tracks":
                                want.append((col, row, tile, Status.THREE_TRACKS))
                            continue
                        want_nodes += 1
                        if game.over:
                            want.append((col, row, tile, Status.OK))
                        game.undo()
            got, got_nodes = [], 0
            col, row, tile = x0, y0, 0
            while col <= x1:
                res = core.seek(col, row, TILE_CHARS[tile], hunt=True, window=(x1, y0, y1))
                got_nodes += res.nodes
                if res.status == Status.RANGE:
                    break
                col, row, tile = res.at[0], res.at[1], TILE_CHARS.index(res.at[2])
                got.append((col, row, tile, res.status))
                if res.status == Status.OK:
                    assert core.undo().status == Status.OK
                col, row, tile = _after(col, row, tile, window)
            assert (got, got_nodes) == (want, want_nodes), game.moves
            windows += 1
            game.undo()
            assert core.undo().status == Status.OK
    assert windows > 20


@pytest.mark.parametrize("dual", [False, True, "quad"], ids=["one-port", "dual", "quad"])
def test_tried_names_each_legal_placement_of_a_hunt(dual):
    """A hunt over the whole area: ``tried`` names every legal placement, in scan order,
    with its tiles' extent and whether it ended the game (here the simulator, to watch
    the port between results)."""
    game = _positions()[2]
    want = []
    frame = _frame(game)
    for col in range(-1, game.width + 1):
        for row in range(-1, game.height + 1):
            for tile in range(3):
                try:
                    game.play(Move(col, row, TILE_CHARS[tile]))
                except Illegal:
                    continue
                want.append((col, row, tile, int(game.over),
                             frame(extent(game._hist[-1].placed))))
                game.undo()
    engine = Engine(log2n=LOG2N, dual=bool(dual), quad=dual == "quad", scope=True,
                    clear_on_start=False)
    got = []

    async def command(ctx, **fields):
        payload = {"op": Op.PLACE, "col": 0, "row": 0, "tile": Shape.PLUS,
                   "variant": Variant.TRAX, **fields}
        ctx.set(engine.cmd.payload, payload)
        ctx.set(engine.cmd.valid, 1)
        await ctx.tick().until(engine.cmd.ready)
        ctx.set(engine.cmd.valid, 0)
        ctx.set(engine.res.ready, 1)
        while True:
            _, _, valid, res, tried = await ctx.tick().sample(
                engine.res.valid, engine.res.payload, engine.tried)
            if tried.valid:
                b = tried.box
                got.append((tried.col, tried.row, tried.tile.value, tried.ended,
                            (b.x0, b.x1, b.y0, b.y1)))
            if valid:
                ctx.set(engine.res.ready, 0)
                return res

    async def bench(ctx):
        await command(ctx, op=Op.RESET)
        for text in game.moves:
            move = parse_move(text)
            res = await command(ctx, col=move.col, row=move.row,
                                tile=Shape(TILE_CHARS.index(move.tile)))
            assert res.status == Status.OK
        del got[:]
        col, row, tile = -1, -1, 0
        while True:
            res = await command(ctx, op=Op.SEEK, col=col, row=row, tile=Shape(tile), hunt=1)
            if res.status != Status.OK:
                break
            col, row, tile = res.col, res.row, res.tile.value
            res = await command(ctx, op=Op.UNDO_SEEK, col=col, row=row, tile=Shape(tile),
                                hunt=1)
            if res.status != Status.OK:
                break
            col, row, tile = res.col, res.row, res.tile.value

    sim = Simulator(engine)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == want
