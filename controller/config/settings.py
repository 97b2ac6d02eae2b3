"""The table's settings, as ``controller.config.tabletoml`` reads them from ``table.toml``: data
only.

Frozen dataclasses and the defaults they take; docs/deploy.md (Configuration
reference) documents each key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

from controller.poker.engine.tablesetup import HouseRules, Stakes, TableSetup
from controller.poker.games.spec import GameSpec
from drivers.seam.settings import DeviceSettings

# --- Defaults (docs/deploy.md, Configuration reference) ----------------------------------

#: Where the service's table.toml lives (docs/deploy.md): every command's --config default.
DEFAULT_CONFIG: Final = Path("/etc/tablectl/table.toml")
#: StateDirectory=tablectl in docs/examples/tablectl.service.
DEFAULT_JOURNAL_DIR: Final = Path("/var/lib/tablectl/journal")
#: The table's Ed25519 private key (``tablectl keys init``; docs/deploy.md, The table's key).
DEFAULT_PRIVATE_KEY: Final = Path("/var/lib/tablectl/keys/table.key")
#: The journal writer's own defaults (controller/journal/writer.py).
DEFAULT_HANDS_PER_FILE: Final = 100
DEFAULT_MAX_BYTES: Final = 16 * 1024 * 1024
#: ``[journal] keep_days``: 13:69E-1.31(b) keeps game history at least one year (365 days; the
#: default 366 covers a leap year). Retention: controller/journal/retention.py.
DEFAULT_KEEP_DAYS: Final = 366
MINIMUM_KEEP_DAYS: Final = 365

#: RuntimeDirectory=tablectl in docs/examples/tablectl.service: the control socket's folder.
DEFAULT_CONTROL_DIR: Final = Path("/run/tablectl")
#: A unix socket's path is at most 107 bytes on Linux (sun_path, with its terminating NUL).
MAX_SOCKET_PATH: Final = 107

DECK_NAMES: Final = ("a", "b")


class LogLevel(StrEnum):
    """How much the controller logs."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class LogFormat(StrEnum):
    """How log lines are written: JSON lines, a person's console, or by the output."""

    #: Console at a terminal, JSON lines otherwise (journald, a file, a pipe).
    AUTO = "auto"
    JSON = "json"
    CONSOLE = "console"


# --- Settings -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckSettings:
    """The enrollment files of the table's two decks (rules-interpretation.md, Integrity) and the
    one in play."""

    a: Path
    b: Path
    #: "a" or "b": the deck in play when the table opens; afterwards the journal knows.
    active: str = "a"
    #: Each new hand puts the other deck in play (rules-interpretation.md, Shuffle, cut and decks:
    #: where a shuffler is used the decks alternate, one in play while the other is shuffled).
    #: False keeps the deck in play for every hand.
    alternate: bool = True

    @property
    def active_file(self) -> Path:
        """The enrollment file of the deck in play at opening."""
        return self.a if self.active == "a" else self.b


@dataclass(frozen=True, slots=True)
class JournalSettings:
    """Where and how the journal is written (docs/journal.md)."""

    dir: Path = DEFAULT_JOURNAL_DIR
    #: False only for tests and benchmarks: a power cut may then lose acknowledged records.
    fsync: bool = True
    hands_per_file: int = DEFAULT_HANDS_PER_FILE
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Rotated files whose last record is older are deleted (docs/journal.md, Retention).
    keep_days: int = DEFAULT_KEEP_DAYS


@dataclass(frozen=True, slots=True)
class KeySettings:
    """``[keys]``: the table's Ed25519 key that signs its checkpoints (docs/journal.md, Signed
    checkpoints). No file there: the table runs unsigned and says so at start."""

    private_key: Path = DEFAULT_PRIVATE_KEY

    @property
    def public_key(self) -> Path:
        """``table.pub`` beside the private key: its public key as 64 hex digits."""
        return self.private_key.with_suffix(".pub")

    @property
    def old_private_key(self) -> Path:
        """Where ``tablectl keys rotate`` keeps the key it replaced until the controller has
        journaled the hand-over (``table.key.old``)."""
        return self.private_key.with_name(self.private_key.name + ".old")


@dataclass(frozen=True, slots=True)
class ControlSettings:
    """Where the running controller takes the floor's requests (``tablectl seat``)."""

    #: A unix socket; by default ``/run/tablectl/<table id>.sock``.
    socket: Path


@dataclass(frozen=True, slots=True)
class DisplaySettings:
    """Where the running controller publishes the dealer's display (``tablectl display``)."""

    #: A unix socket; by default ``<table id>.display.sock`` beside the control socket.
    socket: Path


@dataclass(frozen=True, slots=True)
class LogSettings:
    """The log's level, format and destination (None: standard error, for journald)."""

    level: LogLevel = LogLevel.INFO
    format: LogFormat = LogFormat.AUTO
    file: Path | None = None


#: ``[floor] ack_timeout`` by default: seconds.
ACK_TIMEOUT: Final = 5.0


@dataclass(frozen=True, slots=True)
class FloorLinkSettings:
    """``[floor]``: how ``tablectl forward`` reaches the floor's NATS servers (docs/floor.md,
    The forwarder). Every table authenticates as itself: a user and a password, never
    anonymous; the password is in a file of its own, not in table.toml."""

    #: ``nats://host:port`` or ``tls://host:port`` URLs (all of one scheme), tried in turn.
    servers: tuple[str, ...]
    user: str
    password_file: Path
    #: The CA that signed the servers' certificates (tls:// only); None: the system's CAs.
    tls_ca: Path | None = None
    #: This table's own certificate and key, for servers that ask for one (mutual TLS).
    tls_cert: Path | None = None
    tls_key: Path | None = None
    #: How long a publish waits for the stream's acknowledgement, and a direct get for its
    #: answer, before the forwarder ends the connection and retries (docs/floor.md, The
    #: forwarder): longer for a slow link to the floor.
    ack_timeout: float = ACK_TIMEOUT

    @property
    def tls(self) -> bool:
        return self.servers[0].startswith("tls://")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """A whole, checked ``table.toml``: the devices, the journal, the log, the floor and the
    game; ``table_setup()`` is the part the engine deals by (``TableSetup``)."""

    source: str
    table_id: str
    game: GameSpec
    seats: tuple[int, ...]
    #: The dealer's position (stud) or the button's seat (button games): TableSetup.dealer.
    dealer: int
    stakes: Stakes
    stacks: Mapping[int, int]
    #: ``[devices.shoe]`` and ``[devices.panel]``, as their backends read them (each its
    #: own subclass: drivers/seam/settings.py).
    shoe: DeviceSettings
    panel: DeviceSettings
    decks: DeckSettings
    journal: JournalSettings = field(default_factory=JournalSettings)
    log: LogSettings = field(default_factory=LogSettings)
    #: None: the default socket for the table id (``control_socket``).
    control: ControlSettings | None = None
    #: None: the default socket beside the control socket (``display_socket``).
    display: DisplaySettings | None = None
    #: ``[rules]``: the house rules posted with the stakes (rules-interpretation.md, House rules).
    rules: HouseRules = field(default_factory=HouseRules)
    #: ``[floor]``: where ``tablectl forward`` sends the journal; None: the table forwards
    #: nothing.
    floor: FloorLinkSettings | None = None
    #: ``[keys]``: the table's signing key.
    keys: KeySettings = field(default_factory=KeySettings)

    @property
    def control_socket(self) -> Path:
        """The control socket's path: ``[control] socket`` or the table id's default."""
        if self.control is not None:
            return self.control.socket
        return DEFAULT_CONTROL_DIR / f"{self.table_id}.sock"

    @property
    def display_socket(self) -> Path:
        """The display feed's path: ``[display] socket``, or ``<table id>.display.sock`` in
        the control socket's folder (the unit's RuntimeDirectory, /run/tablectl)."""
        if self.display is not None:
            return self.display.socket
        return self.control_socket.parent / f"{self.table_id}.display.sock"

    def table_setup(self) -> TableSetup:
        """The engine's configuration of this table (checked against the game on load)."""
        return TableSetup(
            seats=self.seats,
            stakes=self.stakes,
            dealer=self.dealer,
            stacks=self.stacks,
            rules=self.rules,
        )
