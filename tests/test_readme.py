"""The README's commands work as written from a fresh clone: every file they read exists in
the repository, and the fast ones (the reference engine) run and succeed."""

import re
import shlex
import shutil
from pathlib import Path

import pytest

from traxfpga.host import cli

ROOT = Path(__file__).resolve().parents[1]
#: Options whose value is written, not read (or is no file of the repository).
NOT_READ = {"--svg", "--port", "--record", "--bitstream", "--vcd"}


def readme_commands():
    """``trax-fpga ...`` lines of the README's code blocks, comments removed, as argv lists
    (without the program name)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^```\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("trax-fpga "):
                commands.append(shlex.split(line)[1:])
    return commands


def files_read(argv):
    """The arguments of ``argv`` that name files to read."""
    out = []
    for i, arg in enumerate(argv):
        if arg.startswith(("-", "[")) or (i and argv[i - 1] in NOT_READ):
            continue
        if "/" in arg or re.search(r"\.(txt|jsonl|json|svg|bin)$", arg):
            out.append(arg)
    return out


def test_the_readme_names_only_files_that_exist():
    named = [f for argv in readme_commands() for f in files_read(argv)]
    assert named, "the README's examples name no game file"
    missing = [f for f in named if not (ROOT / f).is_file()]
    assert not missing, f"README commands name files a fresh clone lacks: {missing}"


FAST = [argv for argv in readme_commands()
        if argv[0] in ("replay", "show") and files_read(argv)
        and "--engine" not in argv]


@pytest.mark.parametrize("argv", FAST, ids=[" ".join(a) for a in FAST])
def test_fast_readme_commands_run_as_written(argv, tmp_path, monkeypatch, capsys):
    """Run from a copy of the clone's example files, so what they write stays out of it."""
    for f in files_read(argv):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / f, tmp_path / f)
    monkeypatch.chdir(tmp_path)
    status = cli.main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "wins" in captured.out
    if "--svg" in argv:
        assert (tmp_path / argv[argv.index("--svg") + 1]).read_text().startswith("<svg")


def test_there_are_fast_readme_commands():
    assert any(a[0] == "replay" for a in FAST) and any(a[0] == "show" for a in FAST)
