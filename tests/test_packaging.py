"""The project installed as a user gets it: a wheel, not the editable install.

The wheel is built from a copy of the sources (so nothing is written into the
work tree), installed into a fresh virtual environment, and the ``trax-fpga``
script of that environment replays a recorded game from a directory outside the
repository.  The fresh environment sees the dependencies (Amaranth, pyserial,
rich, ...) of the environment running the tests through a ``.pth`` line, which
adds the directory to ``sys.path`` without running its own ``.pth`` files, so
the editable install's import hook stays off and only the wheel can be imported.

No network: the build runs without isolation, on the setuptools of the test
environment (the ``test`` extra asks for it).
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "hdl", "firmware", "boards", "sim", "host")


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert r.returncode == 0, f"{cmd}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
    return r


@pytest.mark.slow
def test_wheel_install_replays_a_recorded_game(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        p = ROOT / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=ignore)
        else:
            shutil.copy2(p, src / name)

    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "--no-index", "-w", str(dist), str(src)])
    (wheel,) = dist.glob("trax_fpga-*.whl")

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps",
          "--no-index", str(wheel)])
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    (site / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}

    where = _run([str(py), "-c",
                  "import traxfpga, traxfpga.host.reference.corpus as c; "
                  "print(*traxfpga.__path__, c.__file__, c.CORPUS, len(c.load_corpus()), sep='\\n')"],
                 cwd=outside, env=env).stdout.split("\n")
    *paths, count = [w for w in where if w]
    for p in paths:
        assert Path(p).resolve().is_relative_to(site.resolve()), (p, where)
    assert count == "300"

    demo = _run([str(env_dir / "bin" / "trax-fpga"), "demo", "--engine", "ref", "--every", "100"],
                cwd=outside, env=env)
    assert "White wins with a loop after 17 moves" in demo.stdout, demo.stdout
