"""Progress for commands that run for minutes: one line per step on standard error.

Standard output keeps the result alone (a table, or the ``--json`` object for programs), so
progress never mixes with it, and a plain line per step reads the same in a terminal, a
pipe or a CI log.
"""

import sys
import time

__all__ = ["note", "Counter"]


def note(prog, text):
    """``prog: text`` on standard error, at once."""
    print(f"{prog}: {text}", file=sys.stderr, flush=True)


class Counter:
    """``done/total`` steps, reported through :func:`note` at most every ``every`` seconds
    (and at the last step), so a fast loop does not flood the log."""

    def __init__(self, prog, what, total, every=10.0):
        self.prog, self.what, self.total, self.every = prog, what, total, every
        self.done = 0
        self._last = time.monotonic()
        self._start = self._last

    def advance(self, detail=""):
        self.done += 1
        now = time.monotonic()
        if self.done == self.total or now - self._last >= self.every:
            self._last = now
            extra = f", {detail}" if detail else ""
            note(self.prog, f"{self.done}/{self.total} {self.what}{extra} "
                            f"({now - self._start:.0f} s)")
