"""The scoped scans of the threat search in the twin (:mod:`traxfpga.host.reference.scoped_scan`):
each places every reply that ends the game, so the program answers as without them, with
fewer placements; a level whose list overflowed scans every placement."""

import pytest

from traxfpga.hdl.pvs_isa import ScanMode
from traxfpga.hdl.pvs_program import program
from traxfpga.hdl.tile_chars import TILE_CHARS
from traxfpga.host.reference import pvs, scoped_scan
from traxfpga.host.reference.trax import Game, Illegal, Move
from traxfpga.sim.bench import search_positions

ITERATION = 4


def _ending(game, placements):
    """The placements (col, row, tile) among ``placements`` that end the game."""
    out = set()
    for col, row, tile in placements:
        try:
            game.play(Move(col, row, TILE_CHARS[tile]))
        except Illegal:
            continue
        if game.over:
            out.add((col, row, tile))
        game.undo()
    return out


class _Checked(scoped_scan.Scans):
    """Scans that check each scoped scan against every placement of its position, and
    count the scans asked to be scoped and those that were."""

    asked = scoped = 0

    def start(self, mode, lv, game):
        got = super().start(mode, lv, game)
        if mode == ScanMode.SCOPED:
            _Checked.asked += 1
        if got:
            _Checked.scoped += 1
            every = [(c, r, t) for c in range(-1, game.width + 1)
                     for r in range(-1, game.height + 1) for t in range(len(TILE_CHARS))]
            tried = [p[:3] for p in self.sequence if p[3]]
            assert _ending(game, every) <= set(tried), game.moves
            assert len(set(tried)) == len(tried), "a placement tried twice"
        return got


@pytest.fixture
def checked(monkeypatch):
    monkeypatch.setattr(pvs, "Scans", _Checked)
    _Checked.asked = _Checked.scoped = 0
    return _Checked


@pytest.mark.parametrize("tt", [False, True], ids=["plain", "table"])
def test_scoped_scans_answer_as_the_full_ones_with_fewer_placements(tt, checked):
    full = program(ITERATION, tt=tt).words()
    scoped = program(ITERATION, tt=tt, scoped=True).words()
    nodes = {False: 0, True: 0}
    for moves in search_positions(4, 1):
        game = Game.after(moves)
        want = pvs.run(game, seed=1, code=full, tt=tt)
        got = pvs.run(game, seed=1, code=scoped, tt=tt)
        assert (got.move, got.value, got.depth) == (want.move, want.value, want.depth), moves
        nodes[False] += want.nodes
        nodes[True] += got.nodes
    assert checked.scoped > 100 and checked.scoped == checked.asked
    assert nodes[True] < 0.8 * nodes[False], nodes


def test_a_level_whose_list_overflowed_scans_every_placement(checked, monkeypatch):
    """Lists of at most 8 placements: every scan falls back to the full one, and the
    scoped program then places exactly what the full one does."""
    monkeypatch.setattr(scoped_scan, "LIST_ENTRIES", 8)
    game = Game.after(search_positions(1, 1)[0])
    want = pvs.run(game, seed=1, code=program(ITERATION, tt=True).words())
    got = pvs.run(game, seed=1, code=program(ITERATION, tt=True, scoped=True).words())
    assert checked.asked > 0 and checked.scoped == 0
    assert got == want


def test_rest_ends_a_scoped_scan():
    """A parent's scan resumed after its child's (REST) goes on in scan order."""
    game = Game.after(search_positions(1, 1)[0])
    scans = scoped_scan.Scans()
    scans.start(ScanMode.RECORD, 2, game)
    col, row, tile, exc, _ = pvs.hunt(game, -1, -1, 0, scans)
    while exc is None or exc.code != "range":
        if exc is None:
            game.undo()
        col, row, tile = pvs.scan_next(col, row, tile, False, game.height)
        col, row, tile, exc, _ = pvs.hunt(game, col, row, tile, scans)
    assert len(scans.lists[2]) == game.legal_count()
    game.play(game.legal_moves()[0])
    scans.latch(game)
    assert scans.start(ScanMode.SCOPED, 3, game)
    scans.stop()
    assert scans.sequence is None and scans.recording is None
    game.undo()
