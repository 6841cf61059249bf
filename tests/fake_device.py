"""A stand-in for a board on a TCP socket (``socket://127.0.0.1:PORT``): it answers lines from
a script and then goes away, or never answers at all, as a board does whose cable is pulled
or whose bitstream is not loaded."""

import socket
import threading


class LineServer:
    """One TCP connection on 127.0.0.1 (``url``, ``port``), served line by line in a thread:
    ``handle(line)`` returns the bytes to send back, or None to hang up.  Use as a context
    manager."""

    def __init__(self, handle):
        self._handle = handle
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(10)
        self.port = self._server.getsockname()[1]
        self.url = f"socket://127.0.0.1:{self.port}"
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
                    out = self._handle(line.decode("ascii", "replace"))
                    if out is None:
                        return
                    conn.sendall(out)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._server.close()
        self._thread.join(timeout=5)
        assert not self._thread.is_alive()


class FakeDevice(LineServer):
    """Accepts one connection on 127.0.0.1; answers each received line with the next entry of
    ``answers`` (a list of lines, or None for no answer), then closes when the script runs out
    (``close_after=True``) or keeps silent.  Use as a context manager; ``url`` is the pyserial
    URL."""

    def __init__(self, answers=(), close_after=True):
        self.answers = list(answers)
        self.close_after = close_after
        self.received = []
        super().__init__(self._answer_line)

    def _answer_line(self, line):
        self.received.append(line)
        if self.answers:
            answer = self.answers.pop(0)
            return b"" if answer is None else answer.encode("ascii") + b"\n"
        if self.close_after:
            return None                 # the board goes away mid-game
        return b""                      # a silent device: read on, answer nothing


class RefPort:
    """A pyserial-like port whose device is the reference engine speaking the engine-mode
    commands (``:reset``, ``:play``, ``:undo``, ``:board``, ``:status``): a correct device
    that costs no simulation, for testing host tools' own behaviour."""

    def __init__(self):
        from traxfpga.host.reference.trax import Game
        self.timeout = 1.0
        self.game = Game()
        self._out = bytearray()
        self._undone = []           # tiles placed by each move, to report at :undo

    def _result(self, placed):
        g = self.game
        return (f"= ok {placed} {g.width} {g.height} {g.ply} {g.winner or '-'} "
                f"{g.reason or '-'}")

    def _answer(self, line):
        from traxfpga.host.reference.trax import Game, Illegal
        word, _, arg = line.partition(" ")
        if word == ":reset":
            self.game, self._undone = Game(arg or self.game.variant), []
            return [f"= {self.game.variant}"]
        if word == ":play":
            try:
                step = self.game.play(arg)
            except Illegal as e:
                return [f"! {e.code}"]
            self._undone.append(step.placed)
            return [self._result(step.placed)]
        if word == ":undo":
            if not self._undone:
                return ["! no-undo"]
            self.game.undo()
            return [self._result(self._undone.pop())]
        if word == ":board":
            return list(self.game.board_rows()) + [f"= ok {self.game.width} {self.game.height}"]
        if word == ":status":
            g = self.game
            return [f"= {g.variant} {g.width} {g.height} {g.ply} {g.winner or '-'} "
                    f"{g.reason or '-'} -"]
        return ["! unknown"] if line else []            # an empty line: no answer

    def write(self, data):
        for line in bytes(data).decode("ascii").split("\n")[:-1]:
            for answer in self._answer(line.rstrip("\r")):
                self._out += answer.encode("ascii") + b"\n"
        return len(data)

    def read_until(self, expected=b"\n", size=None):
        i = self._out.find(expected)
        if i < 0:
            out, self._out = bytes(self._out), bytearray()
            return out
        out = bytes(self._out[:i + 1])
        del self._out[:i + 1]
        return out

    def reset_input_buffer(self):
        self._out.clear()

    def close(self):
        pass
