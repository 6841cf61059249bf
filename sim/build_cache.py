"""The cache of compiled simulations, shared by the compiled backends.

A library is kept under ``~/.cache/trax-fpga/BACKEND/KEY/`` (or ``$TRAX_FPGA_CACHE``), KEY
a hash of the design's RTLIL text and the backend's recipe, so only the first run of a
design pays the compile.  A build holds a lock on its key's folder, so that processes that
need the same design at once (parallel tests) compile it once: the others wait and load
it.  It works in a folder of its own and moves the library into place at once, so no
process loads half a file.

Turning a design into RTLIL (elaborating it) takes seconds for the device, and a test
suite asks for the same few designs dozens of times.  A caller that knows how its design
was made (its class and constructor arguments: ``made_as``) gets an index entry under
``BACKEND/index/``: that description, with a digest of every source file the design can
come from (Amaranth's, and this package's ``hdl``, ``firmware`` and ``sim``), names the
library, so the design is not elaborated again until a source file or an argument changes.
"""

import fcntl
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import Elaboratable

from . import notices
from .free_running import FreeRunning

__all__ = ["cache_root", "cached_build", "cached_file"]


def cache_root(backend):
    root = os.environ.get("TRAX_FPGA_CACHE")
    if root:
        return Path(root) / backend
    return Path.home() / ".cache" / "trax-fpga" / backend


@functools.cache
def sources_digest():
    """A digest of every Python file a simulated design can be elaborated from, with the
    interpreter's version: Amaranth's, and this package's layers up to this one (``hdl``,
    ``firmware``, ``sim``; tests/test_layers.py checks that these import nothing above
    them)."""
    import amaranth
    from traxfpga import firmware, hdl, sim
    digest = hashlib.sha256(sys.version.encode())
    for package in (amaranth, firmware, hdl, sim):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _index_entry(backend, name, recipe, made_as):
    key = hashlib.sha256("\0".join([name, recipe, repr(made_as), sources_digest()]).encode())
    return cache_root(backend) / "index" / key.hexdigest()[:20]


def cached_build(design, *, name, backend, label, recipe, make, made_as=None):
    """The library of ``design`` (in :class:`FreeRunning`) for ``backend``: from the cache,
    or made by ``make(folder)``, which finds ``NAME.il`` in ``folder`` and must leave
    ``libNAME.so.tmp`` there (the first compile is said on stderr, naming ``label``).

    ``made_as`` (optional) describes how ``design`` was made, as a value whose ``repr`` is
    the same in every process: its class (a class's ``repr`` names its module) and every
    constructor argument.  With it, a
    design built before is found without elaborating it again; so give it only for a
    design that its arguments and the source files decide (not one elaborated under a
    patched module, say).
    """
    entry = _index_entry(backend, name, recipe, made_as) if made_as is not None else None
    if entry is not None and entry.exists():
        path = cache_root(backend) / entry.read_text() / f"lib{name}.so"
        if path.exists():
            _mark_used(design)
            return path
    # No source locations: the text, and so the cache key, is the same from any checkout.
    text = rtlil.convert(FreeRunning(design), name=name, emit_src=False)

    def make_here(work):
        notices.compiling(name, label, cache_root(backend))
        (work / f"{name}.il").write_text(text)
        make(work)

    path = cached_file(backend, text + recipe, f"lib{name}.so", make_here)
    if entry is not None:
        _write_at_once(entry, path.parent.name)
    return path


def _mark_used(design, seen=None):
    """Amaranth warns of an elaboratable that is never elaborated: ``design`` and the
    elaboratables it holds are used, as the library they were compiled into."""
    seen = set() if seen is None else seen
    if id(design) in seen:
        return
    seen.add(id(design))
    design._MustUse__used = True
    for value in vars(design).values():
        if isinstance(value, Elaboratable):
            _mark_used(value, seen)


def _write_at_once(path, text):
    """Write ``path`` so that no reader ever sees it half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def cached_file(backend, source, filename, make):
    """The file ``filename`` made from ``source`` (a text: all that decides its contents),
    kept under ``backend``'s cache: from the cache, or made by ``make(folder)``, which must
    leave ``FILENAME.tmp`` in ``folder``.  Also what the backends keep besides designs (the
    simulator's own runtime, compiled once for every design)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:20]
    path = cache_root(backend) / key / filename
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # released when the file closes
        if path.exists():                       # another process made it meanwhile
            return path
        work = Path(tempfile.mkdtemp(prefix="work-", dir=path.parent))
        try:
            make(work)
            os.replace(work / f"{filename}.tmp", path)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return path
