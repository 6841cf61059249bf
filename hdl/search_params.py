"""The searcher's constants and the layout of a candidate's score: one source for the
hardware searcher (:mod:`traxfpga.hdl.search`) and its software twin
(:mod:`traxfpga.host.reference.searcher`), which must choose the same moves.  What they mean is in
``docs/player.md``."""

from amaranth.lib import data

__all__ = ["LFSR_SEED", "LFSR_TAPS", "THREAT_CAP", "EV_BITS", "EV_ZERO", "EV_MAX",
           "EV_NOISE_BITS", "EV_NOISE_MAX", "ev_with_noise",
           "EV_DOUBLE_ATTACK", "EV_DOUBLE_BONUS", "OPENING", "MAX_DEPTH", "MAX_DEFENCE", "Score",
           "SCORE_BITS", "pack_score", "score_class", "Verdict", "pack_verdict", "owns", "Share",
           "SPLITS", "CAND_TABLE", "table_depth"]

LFSR_SEED = 0xACE1          # the noise generator's default start (never 0)
LFSR_TAPS = 0xB400          # Galois form: x^16 + x^14 + x^13 + x^11 + 1
THREAT_CAP = 15             # threat counts saturate here (4-bit fields)
EV_BITS = 16                # the evaluation field of the score
EV_ZERO = 1 << 15           # ... holds mine - theirs + bonus + EV_ZERO, clamped
EV_MAX = (1 << EV_BITS) - 1
EV_NOISE_BITS = 3           # noise added to the evaluation, so that near-equal moves vary
EV_NOISE_MAX = (1 << EV_NOISE_BITS) - 1
EV_DOUBLE_ATTACK = 4        # loop-attack ends (two paths) that the opponent cannot both stop
EV_DOUBLE_BONUS = 100       # ... worth this much; fewer are worth 6 an end
#: The board's first move as White, in notation coordinates (column, row, tile): ``@0/``.
#: Both openings are legal and equivalent to the search; after ``@0+`` (which the two-ply
#: evaluation prefers by 6) a 2016 contest program won every game by the same line in 12
#: moves (docs/player.md).
OPENING = (-1, -1, "/")
MAX_DEPTH = 3               # the deepest win by force searched, in the mover's moves
MAX_DEFENCE = 7             # the deepest opponent's win by force the answer is tested against
#: Entries of the safe candidates' table (docs/player.md, step 9) of a single search core:
#: the defence ranks its answers from it.  A search with more safe candidates than its
#: table holds plays the main search's answer untested (no real game comes near).  224: a
#: block RAM's 256 words less the searcher's level stack and killers, which share them.
CAND_TABLE = 224


def table_depth(cores: int) -> int:
    """Entries of each core's table when the candidates are dealt round ``cores`` search
    cores: :data:`CAND_TABLE` for one, else shared out, rounded up to a power of two, at
    least 32 (small enough, with the stack and killers, for distributed RAM)."""
    if cores == 1:
        return CAND_TABLE
    share = -(-CAND_TABLE // cores)
    return max(32, 1 << (share - 1).bit_length())

#: A candidate's score, compared as one unsigned number: the class (3 wins by force, 2 safe,
#: 1 unsafe or drawn, 0 losing) above the evaluation, the mover's threats, fewer opponent
#: threats (``THREAT_CAP`` less their count) and the noise, in that order.
Score = data.StructLayout({
    "noise":      8,
    "not_theirs": 4,
    "mine":       4,
    "ev":         EV_BITS,
    "cls":        2,
})
SCORE_BITS = Score.size


def pack_score(cls: int, mine: int, theirs: int, noise: int, ev: int = 0) -> int:
    """The score as the integer the hardware's ``Score`` holds (counts saturate at
    :data:`THREAT_CAP`, the noise is its low byte)."""
    return _pack(Score, {"cls": cls, "ev": ev, "mine": min(mine, THREAT_CAP),
                         "not_theirs": THREAT_CAP - min(theirs, THREAT_CAP),
                         "noise": noise & 0xFF})


def _pack(layout, fields):
    """The integer a ``layout`` value holds with these ``fields`` (each must fit)."""
    value = 0
    for name, v in fields.items():
        f = layout[name]
        assert 0 <= v < 1 << f.width, (name, v)
        value |= v << f.offset
    return value


def ev_with_noise(ev: int, lfsr: int) -> int:
    """The evaluation field of a scored candidate: its least evaluation ``ev`` (at most
    ``EV_MAX - EV_NOISE_MAX``) plus noise from bits 8 .. 10 of the LFSR value it was scored
    with (the score's noise field holds bits 0 .. 7)."""
    return min(ev, EV_MAX - EV_NOISE_MAX) + (lfsr >> 8 & EV_NOISE_MAX)


def score_class(score: int) -> int:
    """The class field of an integer score."""
    return score >> Score["cls"].offset


#: A search core's answer as the cores' combiner ranks it, compared as one unsigned number
#: (docs/player.md, "Many cores"): an answer before none, a win at once, a win by force (the
#: shallower first), then the depth its defence held to, then its score.  The score is zero
#: for wins, which rank by depth alone; a tie keeps the lower core.
Verdict = data.StructLayout({
    "score":   SCORE_BITS,
    "defence": 4,
    "quick":   3,           # 7 - depth for a win by force, else 0
    "forced":  1,
    "win":     1,
    "found":   1,
})


def pack_verdict(found: bool, win: bool, forced: bool, depth: int, defence: int,
                 score: int) -> int:
    """The integer the hardware's ``Verdict`` holds for a core's answer."""
    if not found:
        return 0
    decided = win or forced
    return _pack(Verdict, {"found": 1, "win": int(win), "forced": int(forced and not win),
                           "quick": 7 - depth if forced and not win else 0,
                           "defence": defence, "score": 0 if decided else score})


#: How many times a core's share of the candidates may be halved for a core that has
#: finished its own (docs/player.md, "Many cores"): down to an eighth.
SPLITS = 3

#: A search core's share of the candidates: those dealt to core ``base``, and of them, when
#: the share was halved ``level`` times, those whose round of the deal agrees with ``sub``
#: in its low ``level`` bits (:func:`owns`).
Share = data.StructLayout({
    "base":  6,
    "level": range(SPLITS + 1),
    "sub":   SPLITS,
})


def owns(index: int, core: int, cores: int, level: int = 0, sub: int = 0) -> bool:
    """Whether the share of core ``core`` of ``cores`` (halved ``level`` times, the half
    ``sub``: :data:`Share`) takes candidate ``index`` (0, 1, ...: the legal placements of
    the candidates' scan, in scan order): they are dealt round the cores, and a halved
    share keeps the rounds of the deal that agree with ``sub`` in their low ``level``
    bits."""
    mask = (1 << level) - 1
    return index % cores == core and (index // cores ^ sub) & mask == 0
