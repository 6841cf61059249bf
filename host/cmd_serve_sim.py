"""``trax-fpga serve-sim``: the simulated device on a TCP socket or a pseudo-terminal.

The whole device (:class:`~traxfpga.sim.device.DeviceSim`: UART, protocol, engine, bit-level
serial line) runs in simulation; bytes from the client are sent on the simulated line and the
device's answers are sent back, so host tools connect to it exactly as to a board:

    trax-fpga serve-sim --tcp 7015        # pyserial URL socket://127.0.0.1:7015
    trax-fpga serve-sim --pty             # prints a path such as /dev/pts/5

The simulation runs only while there is something to do (input to send, an answer being
computed or printed) and waits for input otherwise.  One TCP client at a time; the device
keeps its state between connections, like a board on a cable.
"""

import os
import select
import sys

DEFAULT_TCP_PORT = 7015


def add_arguments(parser):
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tcp", type=int, metavar="PORT", default=None,
                       help=f"listen on 127.0.0.1:PORT (default {DEFAULT_TCP_PORT}; 0 picks a "
                            f"free port)")
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on with --tcp (default 127.0.0.1)")
    parser.add_argument("--vcd", metavar="FILE", default=None,
                        help="write a waveform of the whole session (Amaranth's simulator: slow)")
    parser.add_argument("--capacity", type=int, default=128, metavar="N",
                        help="board size N of the simulated device (default 128)")
    parser.add_argument("--backend", choices=("auto", "cxxrtl", "pysim"), default="auto",
                        help="simulator: compiled CXXRTL (default when a C++ compiler is "
                             "present) or Amaranth's")
    parser.add_argument("--once", action="store_true",
                        help="with --tcp: stop when the first client disconnects")


def _serve_stream(sim, recv, send, wait):
    """Bridge one byte stream and the device until ``recv`` returns b"" (end of stream).

    ``wait()`` blocks until input is available."""
    while True:
        wait()
        data = recv()
        if not data:
            return
        out = sim.run(data)
        if out:
            send(out)


def serve_tcp(sim, host, port, *, once=False, announce=print):
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((host, port))
        server.listen(1)
        port = server.getsockname()[1]
        announce(f"trax-fpga serve-sim: the simulated device ({sim.backend}, capacity "
                 f"{sim.capacity}) on socket://{host}:{port}")
        while True:
            conn, peer = server.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                try:
                    _serve_stream(sim, lambda: conn.recv(4096), conn.sendall,
                                  lambda: select.select([conn], [], []))
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
                      lambda: select.select([master], [], []))
    finally:
        os.close(master)
        os.close(slave)


def run(args):
    from ..sim.device import DeviceSim

    def announce(text):
        print(text, flush=True)

    if args.vcd and args.backend == "cxxrtl":
        print("trax-fpga serve-sim: --vcd needs the pysim backend", file=sys.stderr)
        return 1
    backend = "pysim" if args.vcd else args.backend
    try:
        sim = DeviceSim(capacity=args.capacity, backend=backend, vcd=args.vcd)
    except ValueError as e:
        print(f"trax-fpga serve-sim: {e}", file=sys.stderr)
        return 1
    try:
        if args.pty:
            serve_pty(sim, announce=announce)
        else:
            port = DEFAULT_TCP_PORT if args.tcp is None else args.tcp
            serve_tcp(sim, args.host, port, once=args.once, announce=announce)
    except OSError as e:
        print(f"trax-fpga serve-sim: {e}", file=sys.stderr)
        return 1
    finally:
        sim.close()
    return 0
