"""``trax-fpga bench web``: the figure behind "a click is answered within 100 ms plus
thinking time" (docs/figures.md)."""

import json

from traxfpga.host.cli import main


def test_bench_web_measures_every_click(capsys):
    assert main(["bench", "web", "--player", "random", "--games", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["target"] == "web" and figures["games"] == 2
    assert figures["clicks"] >= 2
    for name in ("click_to_own_tile", "click_to_answer_less_thinking"):
        spread = figures[name]
        assert 0 < spread["median_ms"] <= spread["p95_ms"] <= spread["max_ms"]
        # Generous (a loaded machine), yet far below what a person would notice as lag.
        assert spread["median_ms"] < 100, figures
