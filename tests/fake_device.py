"""A stand-in for a board on a TCP socket (``socket://127.0.0.1:PORT``): it answers lines from
a script and then goes away, or never answers at all, as a board does whose cable is pulled
or whose bitstream is not loaded."""

import socket
import threading


class FakeDevice:
    """Accepts one connection on 127.0.0.1; answers each received line with the next entry of
    ``answers`` (a list of lines, or None for no answer), then closes when the script runs out
    (``close_after=True``) or keeps silent.  Use as a context manager; ``url`` is the pyserial
    URL."""

    def __init__(self, answers=(), close_after=True):
        self.answers = list(answers)
        self.close_after = close_after
        self.received = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(10)
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        try:
            conn, _ = self._server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(0.05)
            buf = b""
            while not self._stop.is_set():
                try:
                    data = conn.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self.received.append(line.decode("ascii", "replace"))
                    if self.answers:
                        answer = self.answers.pop(0)
                        if answer is not None:
                            conn.sendall(answer.encode("ascii") + b"\n")
                    elif self.close_after:
                        return          # the board goes away mid-game
            # a silent device: read on, answer nothing

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._server.close()
        self._thread.join(timeout=5)
