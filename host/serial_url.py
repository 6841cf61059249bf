"""``PORT`` or ``PORT@BAUD``: a serial port as the host tools name it, one parser for all."""

#: The line speed of a board unless told otherwise (the device's default build).
DEFAULT_BAUD = 115200


class SerialSpecError(ValueError):
    """A serial port spec that names no port or a bad baud rate."""


def parse_serial(arg):
    """``(url, baud)`` from ``PORT`` or ``PORT@BAUD`` (any pyserial URL or device path; a
    tail after the last ``@`` made of digits is the baud rate, anything else belongs to the
    URL)."""
    url, baud = arg, DEFAULT_BAUD
    head, sep, tail = arg.rpartition("@")
    if sep and tail.isdigit():
        url, baud = head, int(tail)
        if baud <= 0:
            raise SerialSpecError(f"bad baud rate {tail} in {arg!r}: it must be positive")
    if not url:
        raise SerialSpecError("a serial port is needed: PORT or PORT@BAUD, e.g. "
                              "/dev/ttyUSB1 or socket://127.0.0.1:7015")
    return url, baud
