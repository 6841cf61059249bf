"""``trax-fpga bench``'s figures as tables for people (``--json`` prints them as they are).

:func:`report` knows the figures of the ``ref``, ``engine``, ``sim`` and ``player`` targets;
any other figure (a target added with ``register_target``) becomes a row of the same
``figure | value`` table, nested dicts flattened, so no raw Python dict reaches the screen.
"""

__all__ = ["report", "table", "depth_name"]


def table(header, rows, right=()):
    """Plain-text table: ``header`` and ``rows`` (lists of str), columns in ``right``
    aligned right; a rule under the header."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def depth_name(depth):
    """What the player's ``depth`` says: the last iteration its search completed (see
    ``docs/player.md``)."""
    from ..hdl.pvs_program import schedule
    depth = int(depth)
    if depth == 0:
        return "the opening (no search)"
    plies, threats = schedule(depth)
    return (f"iteration {depth}: PVS {plies} {'ply' if plies == 1 else 'plies'}"
            + (f", threat search {threats} moves" if threats else ""))


def _num(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.3f}".rstrip("0").rstrip(".")
    return str(v)


def _flat(prefix, value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flat(f"{prefix} {k.replace('_', ' ')}".strip(), v)
    elif isinstance(value, (list, tuple)):
        yield prefix, ", ".join(_num(v) for v in value)
    else:
        yield prefix, _num(value)


NAMES = {
    "capacity": "board store (squares a side)", "backend": "simulation backend",
    "moves": "moves replayed", "simulated_cycles_per_second": "simulated cycles per second",
    "logic_cells": "logic cells", "logic_cells_total": "logic cells available",
    "logic_cells_pct": "logic cells (%)", "bram": "block RAMs", "spram": "SPRAMs",
    "fmax_mhz": "Fmax (MHz)", "harness_cells": "harness cells (not counted)",
    "cycles_per_move": "cycles per move", "cycles_per_tile": "cycles per placed tile",
    "clock_mhz": "simulated clock (MHz)", "search_depth": "search depth",
    "reference": "the reference's count", "matches_reference": "matches the reference",
    "leaves_per_second": "leaves per second at the simulated clock",
    "answer": "the device's answer", "ulx3s_clock_mhz": "the ULX3S's clock (MHz)",
    "leaves_per_second_at_ulx3s_clock": "leaves per second at the ULX3S's clock",
    "tt": "transposition table", "think_time_s": "the player's seconds an answer",
    "cut_by_the_budget": "positions the budget cut",
    "reached": "of them, those where it completes the iteration",
    "multiples_needed": "the twin's nodes to complete it, times the device's",
    "beyond_max_multiple": "positions needing more than the twin's stop (max multiple)",
    "max_multiple": "the twin's stop, times the device's nodes",
}


def _ref_rows(figures):
    rows = []
    for depth in (4, 5):
        key = f"perft{depth}"
        if key in figures:
            f = figures.pop(key)
            rows.append([f"perft({depth}) = {f['count']:,}", f"{f['seconds']:.3f} s"])
    if "replay" in figures:
        f = figures.pop("replay")
        rows.append([f"replay of {f['games']} recorded games ({f['moves']:,} moves)",
                     f"{f['seconds']:.3f} s, {f['moves_per_second']:,} moves/s"])
    return rows


def _sim_part(figures):
    backends = figures.pop("backends", {})
    out = []
    if backends:
        rows = [[name + ("  (default)" if b["default"] else ""), f"{b['cycles_per_second']:,}",
                 f"{b['cycles']:,}", f"{b['seconds']:.2f}"] for name, b in backends.items()]
        out.append(table(["backend", "simulated cycles/s", "cycles", "seconds"], rows,
                         right=(1, 2, 3)))
    workload = figures.pop("workload", None)
    if workload:
        out.append(f"workload: {workload['design']}: {' | '.join(workload['lines'])} "
                   f"(answers agree)")
    return out


def _player_part(figures):
    opponents = {k[3:]: figures.pop(k) for k in list(figures) if k.startswith("vs_")}
    if not opponents:
        return []
    out = []
    rows = []
    for name, v in opponents.items():
        per = v.get("cycles_per_answer") or v.get("seconds_per_answer")
        unit = "cycles" if "cycles_per_answer" in v else "s"
        on_time = f", {v['wins_on_time']} on its time" if v.get("wins_on_time") else ""
        lim = v.get("time_limits")
        limits = f"{lim['player']:g} / {lim['opponent']:g} s" if lim else "-"
        rows.append([name, limits,
                     f"{v['wins']} / {v['games']} ({100 * v['win_rate']:.0f}%{on_time})",
                     str(v.get("different_games", "-")),
                     str(v["losses"]), str(v["draws"]), f"{v['illegal']} / {v['timeouts']}",
                     f"{_num(per['mean'])} {unit}", f"{_num(per['p99'])} {unit}",
                     f"{_num(per['max'])} {unit}", _num(v.get("nodes_per_second", "-"))])
    out.append(table(["opponent", "time a move (ours / its)", "won", "different games",
                      "lost", "drawn", "illegal / late", "per answer, mean", "p99", "max",
                      "nodes/s"], rows, right=(1, 3, 4, 5, 7, 8, 9, 10)))
    for name, v in opponents.items():
        depths = v.get("depth_reached")
        if depths:
            total = sum(depths.values())
            cut = v.get("depth_reached_at_budget")
            rows = [[depth_name(d), f"{n:,}", f"{100 * n / total:.0f}%"]
                    + ([f"{cut.get(d, 0):,}"] if cut is not None else [])
                    for d, n in sorted(depths.items(), key=lambda kv: -int(kv[0]))]
            heads = ["search", "answers", "share"] + (["of them cut by the budget"]
                                                      if cut is not None else [])
            out.append(f"depth reached against {name} ({total:,} answers):\n" +
                       table(heads, rows, right=tuple(range(1, len(heads)))))
            if cut is not None:
                out.append(f"answers the budget cut against {name}: the threat search at 5 "
                           f"moves or more in {v['threats_5_at_budget']}")
        else:
            out.append(f"depth reached against {name}: not reported (only the simulated "
                       f"board and the model report their searches)")
        tt = v.get("tt")
        if tt:
            out.append(f"transposition table against {name}: {tt['hits']:,} of "
                       f"{tt['probes']:,} probes answered ({100 * tt['hit_rate']:.1f}%)")
    return out


def _cases_part(figures):
    """``bench held-back``'s cases, a row each."""
    cases = figures.pop("cases", None)
    if not cases:
        return []
    def yes(v):
        return "-" if v is None else "yes" if v else "no"
    rows = [[c["source"], str(c["move_number"]), c["played"], str(c["depth"]),
             yes(c["savable"]), c["answer"], yes(c["avoided"])] for c in cases]
    heads = ["record", "move", "lost with", "within", "a move holds", "answer now", "avoided"]
    if "avoided_in" in cases[0]:            # --samples: the answer given most often
        heads[5] = "answer most given"
        heads.append("answers avoiding")
        for row, c in zip(rows, cases):
            row.append(f"{c['avoided_in']} of {len(c['answers'])}")
    return [table(heads, rows, right=(1, 3))]


def _positions_part(figures):
    """``bench pvs``'s positions, a row each."""
    each = figures.pop("by_position", None)
    if not each:
        return []
    heads = ["position", "ply", "iteration", "nodes", "cycles a node"]
    rows = [[str(k + 1), str(p["ply"]), str(p["depth"]), f"{p['nodes']:,}",
             f"{p['cycles_per_node']:.1f}"] for k, p in enumerate(each)]
    if "eval_cycles_per_node" in each[0]:
        heads.append("of which EVAL")
        for row, p in zip(rows, each):
            row.append(f"{p['eval_cycles_per_node']:.1f}")
    return [table(heads, rows, right=tuple(range(len(heads))))]


def _short_part(figures):
    """``bench reach``'s positions short of the iteration, a row each."""
    short = figures.pop("short", None)
    if not short:
        return []
    rows = [[s["source"], str(s["ply"]), str(s["iteration"]), f"{s['nodes']:,}"] for s in short]
    heads = ["record", "ply", "iteration completed", "the device's nodes"]
    if "multiple" in short[0]:          # not with --no-twin
        more = f"more than {figures.get('max_multiple', '?')}x"
        for row, s in zip(rows, short):
            row += ["-" if s["twin_nodes"] is None else f"{s['twin_nodes']:,}",
                    more if s["multiple"] is None else f"{s['multiple']:.1f}x"]
        heads += [f"the twin's to iteration {figures.get('iteration', '?')}", "multiple"]
    return [table(heads, rows, right=tuple(range(1, len(heads))))]


def report(figures):
    """The figures of one ``bench`` run as text."""
    figures = dict(figures)
    target = figures.pop("target", "?")
    parts = []
    rows = _ref_rows(figures)
    parts += _sim_part(figures)
    parts += _player_part(figures)
    parts += _cases_part(figures)
    parts += _positions_part(figures)
    parts += _short_part(figures)
    for key, value in figures.items():
        rows += [[NAMES.get(key, key.replace("_", " ")) + name[len(key):], v]
                 for name, v in _flat(key, value)]
    if rows:
        parts.insert(0, table(["figure", "value"], rows))
    return f"bench {target}\n\n" + "\n\n".join(parts)
