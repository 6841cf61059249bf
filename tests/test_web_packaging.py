"""The wheel ships the web page: its static files are package data of traxfpga.host.web
(read with importlib.resources), so an installed ``trax-fpga web`` serves them."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "hdl", "firmware", "boards", "sim", "host")


@pytest.mark.slow
def test_the_wheel_holds_the_page(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        p = ROOT / name
        (shutil.copytree if p.is_dir() else shutil.copy2)(p, src / name, **(
            {"ignore": ignore} if p.is_dir() else {}))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "--no-index", "-w", str(tmp_path / "dist"),
                        str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    (wheel,) = (tmp_path / "dist").glob("trax_fpga-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    static = {p.name for p in (ROOT / "host" / "web" / "static").iterdir() if p.is_file()}
    assert static == {"index.html", "app.js", "style.css"}
    for name in static:
        assert f"traxfpga/host/web/static/{name}" in names
    for module in ("server", "session", "pool", "position", "recorded", "live", "bench"):
        assert f"traxfpga/host/web/{module}.py" in names
    assert "traxfpga/host/reference/paths.py" in names
    assert "traxfpga/host/cmd_web.py" in names
