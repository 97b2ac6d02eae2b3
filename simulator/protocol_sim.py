"""The pyserial URL handler of ``sim://shoe`` and ``sim://panel`` (``sim://<table>/shoe``).

pyserial's ``serial_for_url`` imports ``<package>.protocol_<scheme>`` for each
package in ``serial.protocol_handler_packages``; importing ``simulator`` adds
this package there. The port reaches a device of a ``Simulator`` running in
this process with ``transport="memory"``; it fails as a real port does when
the device is unplugged (``SerialException`` on read and write, and on open
until it is plugged back in).
"""

from __future__ import annotations

import urllib.parse

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from simulator.transports import DEFAULT_TABLE, SCHEME, Connection, MemoryEndpoint, lookup

_FORM = "sim://shoe, sim://panel, or sim://<table>/<device> for a named simulator"


def parse_url(url: str) -> tuple[str, str]:
    """The table and device a ``sim://`` URL names; SerialException says the expected form."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != SCHEME:
        raise SerialException(f"URL {url!r}: expected {_FORM}")
    if parts.query or parts.fragment:
        raise SerialException(f"URL {url!r} has options; none are known. Expected {_FORM}")
    path = parts.path.strip("/")
    table, device = (parts.netloc, path) if path else (DEFAULT_TABLE, parts.netloc)
    if not device or "/" in device or not table:
        raise SerialException(f"URL {url!r}: expected {_FORM}")
    return table, device


class Serial(SerialBase):
    """A serial port whose other end is a simulated device in this process."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._endpoint: MemoryEndpoint | None = None
        self._connection: Connection | None = None
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # pyserial's own signature

    def open(self) -> None:
        """Connect to the device the URL names."""
        if self.is_open:
            raise SerialException("Port is already open.")
        if self.port is None:
            raise SerialException("Port must be configured before it can be used.")
        table, device = parse_url(self.port)
        self._endpoint = lookup(table, device)
        self._reconfigure_port()
        self._connection = self._endpoint.connect()
        self.is_open = True

    def close(self) -> None:
        """Disconnect; the device goes on running."""
        if self._connection is not None:
            self._connection.closed = True
            self._connection.cancel()
            self._connection = None
        self.is_open = False
        super().close()

    def _reconfigure_port(self) -> None:
        # A simulated line carries any rate; only a nonsense value is refused, as pyserial does.
        rate: object = self.baudrate
        if not isinstance(rate, int) or not 0 < rate < 2**32:
            raise ValueError(f"invalid baudrate: {rate!r}")

    def _open_connection(self) -> Connection:
        if not self.is_open or self._connection is None:
            raise PortNotOpenError()
        return self._connection

    @property
    def in_waiting(self) -> int:
        """Bytes waiting to be read."""
        connection = self._open_connection()
        connection.check()
        return connection.waiting

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes, within the port's timeout (pyserial's semantics)."""
        return self._open_connection().take(size, self.timeout)

    def write(self, b: object, /) -> int:
        """Send the host's bytes to the device at once."""
        connection = self._open_connection()
        connection.check()
        data = bytes(b)  # type: ignore[call-overload]  # a bytes-like, as pyserial accepts
        assert self._endpoint is not None  # set together with the connection
        self._endpoint.receive(data)
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered on the way out (io's ``close`` calls this, open or not)."""

    def reset_input_buffer(self) -> None:
        """Forget what the device sent that was not read."""
        self._open_connection().clear()

    def reset_output_buffer(self) -> None:
        """Nothing is buffered on the way out."""
        self._open_connection()

    def cancel_read(self) -> None:
        """Make a blocked read return (pyserial's ReaderThread stops this way)."""
        if self._connection is not None:
            self._connection.cancel()

    def cancel_write(self) -> None:
        """Writes never block."""

    @property
    def out_waiting(self) -> int:
        """Nothing is buffered on the way out."""
        return 0

    # Modem lines carry no meaning (docs/protocol.md, Physical link).
    def _update_break_state(self) -> None:
        return None

    def _update_rts_state(self) -> None:
        return None

    def _update_dtr_state(self) -> None:
        return None

    @property
    def cts(self) -> bool:
        """Always asserted."""
        return True

    @property
    def dsr(self) -> bool:
        """Always asserted."""
        return True

    @property
    def ri(self) -> bool:
        """Never ringing."""
        return False

    @property
    def cd(self) -> bool:
        """Always asserted."""
        return True
