"""``trax-fpga serve-sim``: the simulated device on a TCP socket or a pseudo-terminal.

The whole device (:class:`~traxfpga.sim.device.DeviceSim`: UART, protocol, engine, bit-level
serial line) runs in simulation; bytes from the client are sent on the simulated line and the
device's answers are sent back, so host tools connect to it exactly as to a board:

    trax-fpga serve-sim --tcp 7015        # pyserial URL socket://127.0.0.1:7015
    trax-fpga serve-sim --pty             # prints a path such as /dev/pts/5

The simulation runs only while there is something to do (input to send, an answer being
computed or printed) and waits for input otherwise.  Bytes that arrive while it runs join
the simulated line at once, so a line sent while the board thinks gets ``! busy``.  One TCP
client at a time; the device keeps its state between connections, like a board on a cable.
"""

import os
import select
import sys

from ..sim.backends import BACKENDS

DEFAULT_TCP_PORT = 7015


def _tcp_port(text):
    import argparse
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a TCP port is 0 .. 65535, not {port}")
    return port


def add_arguments(parser):
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tcp", type=_tcp_port, metavar="PORT", default=None,
                       help=f"listen on 127.0.0.1:PORT (default {DEFAULT_TCP_PORT}; 0 picks a "
                            f"free port)")
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on with --tcp (default 127.0.0.1)")
    parser.add_argument("--vcd", metavar="FILE", default=None,
                        help="write a waveform of the whole session (Amaranth's simulator: slow)")
    parser.add_argument("--capacity", type=int, default=128, metavar="N",
                        help="board size N of the simulated device (default 128)")
    parser.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="simulator: the fastest this machine builds (auto: Verilator, "
                             "then CXXRTL, else Amaranth's), or one of them")
    parser.add_argument("--once", action="store_true",
                        help="with --tcp: stop when the first client disconnects")


#: Simulated time run between two looks at the client's side (2 ms at 24 MHz).
STEP_CYCLES = 48_000


def _serve_stream(sim, recv, send, wait, ready):
    """Bridge one byte stream and the device until ``recv`` returns b"" (end of stream).

    The simulation runs in steps of :data:`STEP_CYCLES`; after each, bytes that arrived
    meanwhile join the simulated line at once, so a line sent while the board thinks
    reaches it while it thinks (and is answered ``! busy``, as by a board).  ``wait()``
    blocks until input is available, ``ready()`` tells without blocking."""
    pending = bytearray()
    quiet = True
    while True:
        if quiet and not pending:
            wait()
        while ready():
            data = recv()
            if not data:            # the client left; what it sent still reaches the board
                while pending:
                    consumed, _, _ = sim.step(pending, cycles=STEP_CYCLES)
                    del pending[:consumed]
                return
            pending += data
        consumed, out, quiet = sim.step(pending, cycles=STEP_CYCLES)
        del pending[:consumed]
        if out:
            send(out)


def listen_tcp(host, port):
    """A listening socket on ``host:port``; ``OSError`` names the address when it fails."""
    import socket
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((host, port))
        server.listen(1)
    except (OSError, OverflowError) as e:
        server.close()
        raise OSError(f"cannot listen on {host}:{port}: "
                      f"{getattr(e, 'strerror', None) or e}") from None
    return server


def serve_tcp(sim, server, *, once=False, announce=print):
    import socket

    with server:
        host, port = server.getsockname()[:2]
        announce(f"trax-fpga serve-sim: the simulated device ({sim.backend}, capacity "
                 f"{sim.capacity}) on socket://{host}:{port}")
        while True:
            conn, peer = server.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                try:
                    _serve_stream(sim, lambda: conn.recv(4096), conn.sendall,
                                  lambda: select.select([conn], [], []),
                                  lambda: bool(select.select([conn], [], [], 0)[0]))
                except (ConnectionResetError, BrokenPipeError):
                    pass
            if once:
                return


def serve_pty(sim, *, announce=print):
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)                   # bytes as they are: no echo, no line editing
    path = os.ttyname(slave)
    announce(f"trax-fpga serve-sim: the simulated device ({sim.backend}, capacity "
             f"{sim.capacity}) on {path}")
    # Keeping the slave open ourselves means the master never reads end-of-file when a
    # client closes the port: the device stays available to the next one.
    try:
        _serve_stream(sim, lambda: os.read(master, 4096), lambda b: os.write(master, b),
                      lambda: select.select([master], [], []),
                      lambda: bool(select.select([master], [], [], 0)[0]))
    finally:
        os.close(master)
        os.close(slave)


def run(args):
    def announce(text):
        print(text, flush=True)

    def fail(message):
        print(f"trax-fpga serve-sim: {message}", file=sys.stderr)
        return 1

    if args.vcd and args.backend not in ("auto", "pysim"):
        return fail("--vcd needs the pysim backend")
    if args.pty and args.once:
        return fail("--once applies to --tcp (a pseudo-terminal has no clients to count)")
    server = None
    if not args.pty:        # the port first: a busy one fails before the simulation is built
        try:
            server = listen_tcp(args.host, DEFAULT_TCP_PORT if args.tcp is None else args.tcp)
        except OSError as e:
            return fail(str(e))
    from ..sim.device import DeviceSim
    backend = "pysim" if args.vcd else args.backend
    try:
        sim = DeviceSim(capacity=args.capacity, backend=backend, vcd=args.vcd)
    except ValueError as e:
        if server is not None:
            server.close()
        return fail(str(e))
    try:
        if args.pty:
            serve_pty(sim, announce=announce)
        else:
            serve_tcp(sim, server, once=args.once, announce=announce)
    except OSError as e:
        print(f"trax-fpga serve-sim: {e}", file=sys.stderr)
        return 1
    finally:
        sim.close()
    return 0
