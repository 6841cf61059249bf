"""Amaranth's simulator in a background thread, serving one request at a time.

The caller's thread sends requests with :meth:`ThreadedSimulator.call`; the
simulation thread hands each to ``serve(ctx, request)``, an async function that
may advance time, and returns its reply.  Used by the engine driver
(:mod:`traxfpga.sim.core`) and the simulated device (:mod:`traxfpga.sim.device`)
as the fallback to the compiled backend.
"""

import queue
import threading

from amaranth.sim import Simulator

__all__ = ["ThreadedSimulator"]


class ThreadedSimulator:
    """Parameters
    ----------
    design :
        The elaboratable to simulate (clocked at 1 MHz in the ``sync`` domain).
    serve : async function ``(ctx, request) -> reply``
        Handles one request inside the simulation.
    vcd : str or None
        Write a waveform file.
    """

    def __init__(self, design, serve, *, vcd=None):
        self._serve = serve
        self._requests = queue.Queue()
        self._replies = queue.Queue()
        self._error = None
        self._sim = Simulator(design)
        self._sim.add_clock(1e-6)
        self._sim.add_testbench(self._bench)
        self._vcd = vcd
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            if self._vcd:
                with self._sim.write_vcd(self._vcd):
                    self._sim.run()
            else:
                self._sim.run()
        except BaseException as exc:        # surfaced to the caller by call()
            self._error = exc
            self._replies.put((False, None))

    async def _bench(self, ctx):
        while True:
            request = self._requests.get()
            if request is None:
                return
            self._replies.put((True, await self._serve(ctx, request)))

    def call(self, request):
        """Serve ``request`` in the simulation and return the reply."""
        if self._error is not None:
            raise RuntimeError("the simulation has stopped") from self._error
        self._requests.put(request)
        ok, reply = self._replies.get()
        if not ok:
            raise RuntimeError("the simulation failed") from self._error
        return reply

    def close(self):
        if self._thread.is_alive():
            self._requests.put(None)
            self._thread.join()
