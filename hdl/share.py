"""The move engine shared by its clients: the protocol sequencer (the host of the engine)
and the units that borrow it for a whole job, the search sequencer (:mod:`.pvs`) and the perft
counter (:mod:`.perft`)."""

from contextlib import contextmanager

from amaranth.hdl import Mux

__all__ = ["share_engine", "offer_state", "result_state", "check_core"]


def check_core(core, cores):
    """Raise ``ValueError`` unless ``core`` is one of ``cores`` search cores."""
    if not 0 <= core < cores:
        raise ValueError(f"core must be 0 .. {cores - 1}, not {core}")


def offer_state(m, cmd, state, then):
    """A state of a client's FSM that offers the command already set up on the ``cmd``
    stream until the engine takes it, then goes to ``then``."""
    with m.State(state):
        m.d.comb += cmd.valid.eq(1)
        with m.If(cmd.ready):
            m.next = then


@contextmanager
def result_state(m, res, state):
    """A state of a client's FSM that takes the engine's result from the ``res`` stream;
    the body runs when it arrives."""
    with m.State(state):
        m.d.comb += res.ready.eq(1)
        with m.If(res.valid):
            yield


def share_engine(m, engine, host_cmd, host_res, *clients):
    """Connect the engine's ``cmd``/``res`` to the client that is ``active`` (each of
    ``clients`` has ``active``, ``cmd`` and ``res``; at most one is active at a time: the
    host starts one job and waits for it), else to the host's ``host_cmd`` (a stream the
    host drives) and ``host_res`` (one it reads)."""
    valid, payload, ready = host_cmd.valid, host_cmd.payload, host_res.ready
    busy = None
    for client in clients:
        active = client.active
        valid = Mux(active, client.cmd.valid, valid)
        payload = Mux(active, client.cmd.payload, payload)
        ready = Mux(active, client.res.ready, ready)
        busy = active if busy is None else busy | active
        m.d.comb += [
            client.cmd.ready.eq(engine.cmd.ready & active),
            client.res.payload.eq(engine.res.payload),
            client.res.valid.eq(engine.res.valid & active),
        ]
    m.d.comb += [
        engine.cmd.valid.eq(valid),
        engine.cmd.payload.eq(payload),
        engine.res.ready.eq(ready),
        host_cmd.ready.eq(engine.cmd.ready & ~busy),
        host_res.payload.eq(engine.res.payload),
        host_res.valid.eq(engine.res.valid & ~busy),
    ]
