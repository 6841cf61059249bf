"""Looking inside a design from a harness: its state machine and its named registers.

Induction needs invariants about a design's internal state, which its interface does not
show.  A harness elaborates the design itself (``dut.elaborate(platform)`` gives its
``Module``) and finds what it needs there: the state machine (``fsm``) and the signals
the module assigns, by name (``signal``).  Both only read: the design is unchanged.
"""

from amaranth.hdl import Cat
from amaranth.hdl._ast import Assign, Switch

__all__ = ["Inside"]


class Inside:
    """The state machine and the assigned signals of an elaborated ``Module``."""

    def __init__(self, module, fsm="fsm"):
        self.module = module
        if fsm is not None:         # None: a design without a state machine
            f = module._generated[fsm]
            self.state, self.encoding = f.state, f.encoding
        self._signals = {}
        module._flush()             # a trailing If/Elif chain is kept aside until then
        for stmts in module._statements.values():
            self._walk(stmts)

    def _walk(self, stmts):
        for st in stmts:
            if isinstance(st, Assign):
                for sig in st.lhs._lhs_signals():
                    self._signals.setdefault(sig.name, {})[id(sig)] = sig
            elif isinstance(st, Switch):
                for case in st.cases:
                    self._walk(case[1])

    def signal(self, name):
        """The one signal of that name the module assigns."""
        found = list(self._signals.get(name, {}).values())
        if len(found) != 1:
            raise KeyError(f"{len(found)} signals named {name!r}")
        return found[0]

    def in_state(self, *names):
        """High in any of the named states."""
        return Cat(*(self.state == self.encoding[n] for n in names)).any()

    def defined(self):
        """The state register holds one of the states (not a spare encoding)."""
        return self.state < len(self.encoding)
