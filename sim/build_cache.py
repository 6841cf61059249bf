"""The cache of compiled simulations, shared by the compiled backends.

A library is kept under ``~/.cache/trax-fpga/BACKEND/KEY/`` (or ``$TRAX_FPGA_CACHE``), KEY
a hash of the design's RTLIL text and the backend's recipe, so only the first run of a
design pays the compile.  A build holds a lock on its key's folder, so that processes that
need the same design at once (parallel tests) compile it once: the others wait and load
it.  It works in a folder of its own and moves the library into place at once, so no
process loads half a file.
"""

import fcntl
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from amaranth.back import rtlil

from . import notices
from .free_running import FreeRunning

__all__ = ["cache_root", "cached_build", "cached_file"]


def cache_root(backend):
    root = os.environ.get("TRAX_FPGA_CACHE")
    if root:
        return Path(root) / backend
    return Path.home() / ".cache" / "trax-fpga" / backend


def cached_build(design, *, name, backend, label, recipe, make):
    """The library of ``design`` (in :class:`FreeRunning`) for ``backend``: from the cache,
    or made by ``make(folder)``, which finds ``NAME.il`` in ``folder`` and must leave
    ``libNAME.so.tmp`` there (the first compile is said on stderr, naming ``label``)."""
    # No source locations: the text, and so the cache key, is the same from any checkout.
    text = rtlil.convert(FreeRunning(design), name=name, emit_src=False)

    def make_here(work):
        notices.compiling(name, label, cache_root(backend))
        (work / f"{name}.il").write_text(text)
        make(work)

    return cached_file(backend, text + recipe, f"lib{name}.so", make_here)


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
