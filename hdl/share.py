"""The move engine shared by its clients: the protocol sequencer (the host of the engine)
and the units that borrow it for a whole job, the searcher (:mod:`.search`) and the perft
counter (:mod:`.perft`)."""

from amaranth.hdl import Mux

__all__ = ["share_engine"]


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
