"""The toolchain's stages while ``build`` runs, read from the logs the tools write.

Yosys writes ``top.rpt`` and nextpnr ``top.tim`` as they go (Amaranth's script runs them
quietly, with ``-l``/``--log``); :class:`StageWatcher` follows both files in a thread and
reports each stage once (synthesis, technology mapping, packing, placement, routing, the
bitstream) with the time since the start, so the minutes of a build are not silent.  The
iCE40 and ECP5 tools log the same stages in nearly the same words.
"""

import re
import threading
import time
from pathlib import Path

__all__ = ["STAGES", "StageWatcher"]

#: (log file, pattern of the line that starts the stage, what to say), in flow order;
#: ``{packer}`` is the family's bitstream packer.
STAGES = [
    # synth_ecp5 runs as synth_lattice in Yosys 0.70
    ("top.rpt", r"Executing SYNTH_(ICE40|ECP5|LATTICE) pass", "synthesis (yosys) ..."),
    ("top.rpt", r"Executing ABC9? pass", "synthesis: mapping the logic to LUTs (abc) ..."),
    ("top.rpt", r"Printing statistics", "synthesis: done"),
    ("top.tim", r"^Info: Packing constants", "place and route (nextpnr): packing ..."),
    ("top.tim", r"^Info: (Creating initial analytic placement|Running main analytical placer"
                r"|Creating initial placement)", "place and route: placing ..."),
    ("top.tim", r"^Info: Running simulated annealing placer",
     "place and route: refining the placement ..."),
    ("top.tim", r"^Info: (Routing\.\.|Running router2|Routing \d+ arcs)",
     "place and route: routing ..."),
    ("top.tim", r"^Info: Program finished normally", "place and route: done; packing the "
                                                      "bitstream ({packer}) ..."),
]

#: The logs those stages are read from.
LOGS = tuple(dict.fromkeys(f for f, _, _ in STAGES))


class StageWatcher:
    """Follow the tools' logs in ``folder`` and call ``say(text)`` once per stage reached.

    A context manager: the logs of an earlier build in ``folder`` are removed at the entry,
    the thread runs while the toolchain does, and at the exit the logs are read to their
    end, so no stage reached is left unsaid."""

    def __init__(self, folder, say, *, packer="icepack", prefix="trax-fpga build: ", poll=0.5):
        self.folder = Path(folder)
        self.say = say
        self.packer = packer
        self.prefix = prefix
        self.poll = poll
        self._offsets = {}
        self._partial = {}
        self._next = 0                      # stages are said in flow order, each once
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _lines(self, name):
        """New whole lines of a log since the last look."""
        path = self.folder / name
        try:
            with open(path, "rb") as f:
                f.seek(self._offsets.get(name, 0))
                data = f.read()
        except OSError:
            return []
        self._offsets[name] = self._offsets.get(name, 0) + len(data)
        text = self._partial.get(name, "") + data.decode("utf-8", "replace")
        *lines, self._partial[name] = text.split("\n")
        return lines

    def scan(self):
        """Read what the logs gained; say the stages reached."""
        new = {name: self._lines(name) for name in LOGS}
        for name in new:
            for line in new[name]:
                for i in range(self._next, len(STAGES)):
                    file, pattern, text = STAGES[i]
                    if file == name and re.search(pattern, line):
                        self._next = i + 1
                        self.say(f"{self.prefix}{text.format(packer=self.packer)} "
                                 f"[{time.monotonic() - self._start:.0f} s]")
                        break

    def _run(self):
        while not self._stop.wait(self.poll):
            self.scan()

    def __enter__(self):
        # An earlier build's logs in the same folder would be read as this one's stages.
        for name in LOGS:
            (self.folder / name).unlink(missing_ok=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.scan()
