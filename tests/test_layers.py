"""The packages are layered along the data path (docs/layers.md): each layer imports
only the layers below it.  Every module's imports are read with ``ast`` -- at the top, inside
functions, relative ones resolved -- and so is any string that names a project module
exactly (what ``importlib.import_module`` would be given), and each is checked against
:data:`ALLOWED`."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Top-level folder -> import name (pyproject.toml's package-dir).
FOLDERS = {"hdl": "traxfpga.hdl", "firmware": "traxfpga.firmware", "boards": "traxfpga.boards",
           "sim": "traxfpga.sim", "host": "traxfpga.host"}

#: The reference (oracle) is a layer of its own inside host/.
REFERENCE = "traxfpga.host.reference"

#: layer -> the layers it may import.  ``host`` is the applications (CLI commands, client,
#: referee, players): they sit on top and may import anything.
ALLOWED = {
    "hdl": {"hdl"},
    "firmware": {"hdl", "firmware"},
    "host.reference": {"host.reference", "hdl"},
    "sim": {"sim", "hdl", "firmware", "host.reference"},
    "boards": {"boards", "hdl", "firmware"},
    "host": {"hdl", "firmware", "host.reference", "sim", "boards", "host"},
}


def layer_of(name):
    """The layer of a project module name, or None for anything outside the project."""
    if name == REFERENCE or name.startswith(REFERENCE + "."):
        return "host.reference"
    for layer, package in FOLDERS.items():
        if name == package or name.startswith(package + "."):
            return layer
    if name == "traxfpga":
        return "traxfpga"           # the bare namespace: no layer may lean on it
    return None


def project_modules():
    """module name -> path of every Python module in the five package folders."""
    modules = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = project_modules()


def imports_of(name, path):
    """``(line, imported module name, as written)`` for every import in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((node.lineno, alias.name, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            dots = "." * node.level
            written = f"from {dots}{node.module or ''} import " + \
                ", ".join(a.name for a in node.names)
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[:-(node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                # ``from traxfpga.sim import core`` imports the module traxfpga.sim.core
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else base, written))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in MODULES:
            found.append((node.lineno, node.value, f"{node.value!r} (a module named as text)"))
    return sorted(set(found))


def test_every_folder_has_modules():
    for package in FOLDERS.values():
        assert package in MODULES, f"{package} has no __init__.py"
    assert REFERENCE in MODULES, f"{REFERENCE} has no __init__.py"


def test_layers_import_only_what_is_below_them():
    offences = []
    for name, path in MODULES.items():
        layer = layer_of(name)
        for line, target, written in imports_of(name, path):
            target_layer = layer_of(target)
            if target_layer is not None and target_layer not in ALLOWED[layer]:
                offences.append(f"{path.relative_to(ROOT)}:{line}: {name} ({layer}) imports "
                                f"{target} ({target_layer}): {written}")
    assert not offences, "imports against the layers (allowed: " + \
        "; ".join(f"{k} -> {', '.join(sorted(v))}" for k, v in ALLOWED.items()) + "):\n" + \
        "\n".join(offences)


def import_graph():
    """module -> the project modules it imports (and, for a package's module, the
    package's ``__init__``, which Python runs first)."""
    graph = {}
    for name, path in MODULES.items():
        targets = {t for _, t, _ in imports_of(name, path) if t in MODULES}
        parent = name.rpartition(".")[0]
        while parent in MODULES:
            targets.add(parent)
            parent = parent.rpartition(".")[0]
        graph[name] = targets - {name}
    return graph


def reached_from(name, graph):
    """The project modules importing ``name`` runs, itself included (transitively)."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph[m])
    return seen


STDLIB = sys.stdlib_module_names | {"__future__"}


def test_the_reference_needs_only_the_standard_library():
    """The oracle runs on plain Python: every module it imports, transitively (the hdl
    modules that hold what the hardware shares with its twin included), imports nothing
    but the standard library and the project."""
    graph = import_graph()
    offences = set()
    for name in MODULES:
        if layer_of(name) != "host.reference":
            continue
        for module in reached_from(name, graph):
            path = MODULES[module]
            for line, target, written in imports_of(module, path):
                if layer_of(target) is None and target.partition(".")[0] not in STDLIB:
                    offences.add(f"{path.relative_to(ROOT)}:{line}: {module} (reached from "
                                 f"{name}) imports {target}: {written}")
    assert not offences, "the reference reaches beyond the standard library:\n" + \
        "\n".join(sorted(offences))


def test_the_reference_runs_without_amaranth(tmp_path):
    """The same, run: with every import of ``amaranth`` failing, the reference's twin of
    the board's player still answers."""
    blocker = tmp_path / "amaranth"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('amaranth is blocked here')\n")
    code = ("from traxfpga.host.reference.pvs import run\n"
            "from traxfpga.host.reference.trax import Game\n"
            "g = Game(); g.play('@0/')\n"
            "print(run(g, 300).move)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Move(")


@pytest.mark.parametrize("source, expected", [
    ("from ..hdl.tiles import Status", "traxfpga.hdl.tiles"),
    ("from . import cxxrtl", "traxfpga.sim.cxxrtl"),
    ("from .core import CoreSim", "traxfpga.sim.core"),
    ("import traxfpga.host.cli", "traxfpga.host.cli"),
    ("def f():\n    from ..host import engines", "traxfpga.host.engines"),
    ("X = {'core': 'traxfpga.sim.core'}", "traxfpga.sim.core"),
])
def test_imports_are_resolved(tmp_path, source, expected):
    path = tmp_path / "bench.py"
    path.write_text(source)
    assert [t for _, t, _ in imports_of("traxfpga.sim.bench", path)] == [expected]


if __name__ == "__main__":
    # The import graph, read from the source tree (no install needed): one line a module.
    for module, targets in sorted(import_graph().items()):
        print(f"{module}: {', '.join(sorted(targets)) or '-'}")
