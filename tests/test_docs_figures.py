"""Every measured figure is written once, in docs/figures.md, with the command that
reproduces it; other pages link to it.  The README repeats a handful as headline figures,
in a table whose rows each link to the section of figures.md they come from.  These tests
check that the copies agree:

* every number of a README headline row appears in the figures.md section its row links to;
* every measured figure stated in another page (a number with a unit of measurement: logic
  cells, LUT4s, an Fmax or any frequency with decimals, nodes a second, cycles a node or a
  leaf, games won "N of M")
  appears in figures.md with the same unit.

docs/history.md, the page of past devices, is left out.  Numbers in code (blocks and
spans) are examples of output, not figures, and are left out too.  The checkers are also
run on small made-up pages that disagree, to show that they fail."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures.md"
#: Pages of the past: their figures are of devices that no longer exist.
NOT_CHECKED = {"figures.md", "history.md"}
#: Frequencies with decimals that are not measured: what the PLL makes of a requested
#: clock (hardware.md's examples of its divider search).
NOT_FIGURES = {("MHz", "25.125"), ("MHz", "46.875")}
#: The README's limit (issue 35: a reference, not a lab notebook).
README_MAX_WORDS = 1200

NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")

#: unit name -> pattern whose group 1 is the figure.  A figure is the number before the unit.
_N = r"(\d[\d,]*(?:\.\d+)?)"
UNITS = {
    "logic cells": re.compile(_N + r"(?:\s*/\s*[\d,]+)?\s+logic cells"),
    "LUT4s": re.compile(_N + r"(?:\s*/\s*[\d,]+)?\s+LUT4s"),
    "Fmax": re.compile(r"[Ff]max\s+(?:of\s+)?" + _N + r"\s*MHz"),
    # a clock setting is a whole number of MHz; a frequency measured has decimals
    "MHz": re.compile(r"(?<![\w.])(\d+\.\d+)\s*MHz"),
    "nodes a second": re.compile(_N + r"\s+(?:nodes a second|nodes/s)"),
    "cycles a node": re.compile(_N + r"\s+cycles (?:a|per) node"),
    "cycles a leaf": re.compile(_N + r"\s+cycles (?:a|per) leaf"),
    "games won": re.compile(r"\b(?i:won|wins?)\s+\**(\d+ of \d+)\b"),
}


def norm(number):
    """A number as written, without thousands separators or a trailing comma."""
    return number.rstrip(",").replace(",", "")


def without_code(text):
    """``text`` with fenced code blocks and code spans blanked out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def numbers(text):
    """The set of numbers written in ``text`` (code included: a command's figures count)."""
    return {norm(n) for n in NUMBER.findall(text)}


def slug(heading):
    """GitHub's anchor of a Markdown heading."""
    s = heading.strip().lower().replace("`", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def sections(markdown):
    """anchor -> the text of the section under that heading (to the next heading of the
    same or a higher level)."""
    lines = markdown.splitlines()
    heads = []
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^(#+)\s+(.*)", line)
        if m:
            heads.append((i, len(m.group(1)), slug(m.group(2))))
    out = {}
    for k, (i, level, anchor) in enumerate(heads):
        end = next((j for j, lv, _ in heads[k + 1:] if lv <= level), len(lines))
        out[anchor] = "\n".join(lines[i:end])
    return out


def headline_rows(readme):
    """``(figure, value, anchor)`` of each row of the README's "Headline figures" table."""
    part = sections(readme).get("headline-figures", "")
    rows = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.startswith("|"):
            continue
        m = re.search(r"figures\.md#([\w-]+)", cells[2])
        if m:
            rows.append((cells[0], cells[1], m.group(1)))
    return rows


def headline_disagreements(readme, figures):
    """What the README's headline rows say that their sections of figures.md do not."""
    found = sections(figures)
    out = []
    for figure, value, anchor in headline_rows(readme):
        if anchor not in found:
            out.append(f"{figure!r}: figures.md has no section #{anchor}")
            continue
        missing = sorted(numbers(value) - numbers(found[anchor]))
        if missing:
            out.append(f"{figure!r}: {', '.join(missing)} not in figures.md#{anchor}")
    return out


def stated_figures(text):
    """``(unit, figure)`` of every measured figure stated in a page (code left out)."""
    text = without_code(text)
    return [(unit, norm(m.group(1))) for unit, pattern in UNITS.items()
            for m in pattern.finditer(text)]


def page_disagreements(name, text, figures):
    """The figures a page states that figures.md does not state with the same unit."""
    known = set(stated_figures(figures))
    # Tables give the unit in a header: a number anywhere in figures.md counts for the
    # counts and rates; games won must be written there as the same "N of M".
    plain = numbers(figures)
    scores = set(re.findall(r"\d+ of \d+", figures))
    out = []
    for unit, figure in stated_figures(text):
        if (unit, figure) in known | NOT_FIGURES or \
                figure in (scores if unit == "games won" else plain):
            continue
        out.append(f"{name}: {figure} {unit} is not in figures.md")
    return out


def pages():
    yield "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for path in sorted(DOCS.glob("*.md")):
        if path.name not in NOT_CHECKED:
            yield f"docs/{path.name}", path.read_text(encoding="utf-8")


# -- the docs ------------------------------------------------------------------------------

def test_the_readme_has_headline_figures_linked_to_figures_md():
    rows = headline_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(rows) >= 3, rows
    assert all(numbers(value) for _, value, _ in rows), rows


def test_headline_figures_agree_with_figures_md():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bad = headline_disagreements(readme, FIGURES.read_text(encoding="utf-8"))
    assert not bad, "the README's headline figures disagree with docs/figures.md:\n" + \
        "\n".join(bad)


@pytest.mark.parametrize("name, text", list(pages()), ids=[n for n, _ in pages()])
def test_every_figure_of_a_page_is_the_one_in_figures_md(name, text):
    bad = page_disagreements(name, text, FIGURES.read_text(encoding="utf-8"))
    assert not bad, "a figure stated outside docs/figures.md disagrees with it (write " \
        "it there once and link to it):\n" + "\n".join(bad)


def test_links_between_the_pages_reach_their_sections():
    """A link to ``page.md#anchor`` names a heading of that page (figures.md's above all:
    the other pages point at their figures there)."""
    bad = []
    for name, text in [*pages(), ("docs/figures.md", FIGURES.read_text(encoding="utf-8")),
                       ("docs/history.md", (DOCS / "history.md").read_text(encoding="utf-8"))]:
        here = (ROOT / name).parent
        for target, anchor in re.findall(r"\]\(([\w./-]*\.md)?#([\w-]+)\)", text):
            page = (here / target) if target else ROOT / name
            if not page.is_file() or anchor not in sections(page.read_text(encoding="utf-8")):
                bad.append(f"{name}: {target}#{anchor}")
    assert not bad, "links to no section:\n" + "\n".join(bad)


def test_the_readme_is_short():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= README_MAX_WORDS, f"README.md has {words} words"


# -- the checkers can fail -----------------------------------------------------------------

MADE_UP_FIGURES = """# Figures

## The device on each board

| board | logic | Fmax |
| --- | ---: | ---: |
| ULX3S 85F, 12 cores | 44804 / 83640 LUT4s | 46.77 MHz |

## Search speed

| figure | value |
| --- | ---: |
| nodes a second at 24 MHz | 282,228 |

## Against a 2016 contest program

Won **57 of 80**.
"""

MADE_UP_README = """# x

## Headline figures

| figure | value | from |
| --- | --- | --- |
| the 85F | 44804 LUT4s, Fmax 46.77 MHz | [figures](docs/figures.md#the-device-on-each-board) |
| speed | 282,228 nodes a second at 24 MHz | [figures](docs/figures.md#search-speed) |
| strength | {won} of 80 | [figures](docs/figures.md#against-a-2016-contest-program) |
| gone | 1 | [figures](docs/figures.md#many-cores) |

## Read on
"""


def test_the_headline_checker_finds_a_disagreement():
    bad = headline_disagreements(MADE_UP_README.format(won=53), MADE_UP_FIGURES)
    assert bad == ["'strength': 53 not in figures.md#against-a-2016-contest-program",
                   "'gone': figures.md has no section #many-cores"]
    bad = headline_disagreements(MADE_UP_README.format(won=57), MADE_UP_FIGURES)
    assert bad == ["'gone': figures.md has no section #many-cores"]


def test_the_page_checker_finds_a_disagreement():
    page = ("Its 13 cores reach Fmax 48.2 MHz, 11,914 LUT4s; it won 53 of 80 at "
            "282,228 nodes a second.\n\n```\nfmax 99.9 MHz\n```\n")
    assert page_disagreements("hardware.md", page, MADE_UP_FIGURES) == [
        "hardware.md: 11914 LUT4s is not in figures.md",
        "hardware.md: 48.2 Fmax is not in figures.md",
        "hardware.md: 48.2 MHz is not in figures.md",
        "hardware.md: 53 of 80 games won is not in figures.md",
    ]
    agreeing = "The 85F: 44,804 LUT4s, Fmax 46.77 MHz; won 57 of 80."
    assert page_disagreements("hardware.md", agreeing, MADE_UP_FIGURES) == []
