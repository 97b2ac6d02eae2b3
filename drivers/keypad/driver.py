"""The keypad panel's driver: a USB keypad read through python-evdev, on the device seam.

``KeypadPanel`` is a ``drivers.seam.device.Panel``: one reading thread opens the keypad's
evdev node, grabs it (EVIOCGRAB: no key reaches the console or another program while the
controller holds it), turns its key events into presses (``keymap.KeyFilter``) and hands
the seam's neutral events to the controller: ``ButtonPressed``, ``DeviceUp``,
``DeviceDown``, ``DeviceRefused``. The thread waits on the keypad's node, on a udev monitor
of the input subsystem (an unplug and a replug are seen at once) and on a pipe that
``stop`` and ``replugged`` write to; it never polls. A keypad numbers nothing and holds
nothing: each time it is opened it is a new session, the host makes its boot and numbers
its presses (docs/drivers.md, Devices without sequence numbers), and nothing is
acknowledged. It has no lights and no line: ``light_and_show`` does nothing, as
``features`` says (docs/hardware-keypad.md).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import select
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Final, Protocol

import evdev
import structlog

from drivers.keypad.finder import KeypadWatch, Wanted, find_node
from drivers.keypad.keymap import Chord, Dropped, KeyFilter, KeyMap, Pressed, key_name
from drivers.seam.device import PanelFeatures
from drivers.seam.events import (
    PANEL,
    SEQ_MODULUS,
    ButtonPressed,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    EventSink,
    HelloOutcome,
    LinkEvent,
    PanelEvent,
    RejectReason,
)
from drivers.seam.holders import PortHeld, PortHolder, port_holders

#: A keypad has buttons only: the dealer's display carries the seat and the options.
FEATURES: Final = PanelFeatures(lights=False, text_width=0)
#: Trying a keypad that is not there again after this long, doubling up to the maximum
#: (a replug seen by udev is tried at once).
BACKOFF_INITIAL: Final = 0.1
BACKOFF_MAX: Final = 2.0
#: An open that fails with one of these finds no keypad there.
_ABSENT: Final = frozenset({errno.ENOENT, errno.ENODEV, errno.ENXIO})


class InputEventLike(Protocol):
    """What the driver reads of a kernel input event (python-evdev's ``InputEvent``)."""

    @property
    def type(self) -> int: ...
    @property
    def code(self) -> int: ...
    @property
    def value(self) -> int: ...


class InputNode(Protocol):
    """What the driver uses of an open evdev node (python-evdev's ``InputDevice``)."""

    @property
    def name(self) -> str: ...
    @property
    def uniq(self) -> str: ...
    def fileno(self) -> int: ...
    def capabilities(self) -> dict[int, list[int]]: ...
    def grab(self) -> None: ...
    def read(self) -> Iterable[InputEventLike]: ...
    def close(self) -> None: ...


def open_evdev(path: str) -> InputNode:
    """The evdev node at ``path``, opened by python-evdev (read-write, non-blocking)."""
    return evdev.InputDevice(path)


#: Openers of a keypad named by a URL (``scheme://...``), by scheme: the simulator adds its
#: own (simulator/keypad.py), as it adds ``sim://`` to pyserial's URL handlers.
URL_OPENERS: dict[str, Callable[[str], InputNode]] = {}


def open_node(path: str) -> InputNode:
    """A device path through python-evdev; a ``scheme://`` URL through its opener."""
    scheme, sep, _ = path.partition("://")
    if not sep:
        return open_evdev(path)
    opener = URL_OPENERS.get(scheme)
    if opener is None:
        known = ", ".join(f"{name}://" for name in sorted(URL_OPENERS)) or "none here"
        raise FileNotFoundError(errno.ENOENT, f"no keypad opener for {scheme}:// ({known})")
    return opener(path)


class KeypadGrabbed(PortHeld):
    """Another program has grabbed the keypad (EVIOCGRAB: EBUSY): refused, never shared."""

    def __init__(self, path: str, holders: tuple[PortHolder, ...]) -> None:
        super().__init__(path, holders, PANEL)
        where, who = path, ""
        if "://" not in path:
            real = os.path.realpath(path)
            where = path if real == path else f"{path} ({real})"
            who = f"; as root, fuser -v {real} names the programs that have it open"
        if holders:
            who = "; it is open in " + " and ".join(map(str, holders))
        self.args = (f"the panel's keypad {where} is grabbed by another program{who}",)

    @classmethod
    def of(cls, path: str) -> KeypadGrabbed:
        """The refusal of ``path``, naming the other processes that have it open."""
        return cls(path, tuple(h for h in port_holders(path) if h.pid != os.getpid()))


class NotPlugged(OSError):
    """No keypad is there: the configured path is missing, or udev knows none matching."""


class NotTheKeypad(Exception):
    """The device found cannot send the map's keys: not the keypad the map is for."""


class KeypadPanel:
    """A USB keypad as the dealer's panel (``[devices.panel] kind = "keypad"``)."""

    device = PANEL

    def __init__(
        self,
        wanted: Wanted,
        keymap: KeyMap,
        events: EventSink[PanelEvent | LinkEvent],
        *,
        opener: Callable[[str], InputNode] = open_node,
        watch: Callable[[Wanted], KeypadWatch | None] | None = None,
    ) -> None:
        self.wanted = wanted
        self.keymap = keymap
        self.events = events
        self._opener = opener
        self._watch_factory = watch if watch is not None else _udev_watch
        self._keys = KeyFilter(keymap)
        self._node: InputNode | None = None
        self._path: str | None = None
        self._boot: str | None = None
        self._seq = 0
        self._down: str | None = None
        self._refused = False
        self._up_pending = False
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None
        self._totals: Counter[str] = Counter()
        self._log = structlog.get_logger("drivers.keypad")

    # --- The seam's Device ---------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def boot(self) -> str | None:
        return self._boot

    @property
    def features(self) -> PanelFeatures:
        return FEATURES

    @property
    def acknowledges(self) -> bool:
        return False

    def claim(self) -> None:
        """Open and grab the keypad now. One another program has grabbed raises
        ``KeypadGrabbed`` (a ``PortHeld``); one not plugged in is left to the thread (the
        table opens paused, and the keypad is taken when udev sees it come)."""
        if self._node is not None:
            return
        try:
            self._open()
        except KeypadGrabbed:
            raise
        except (OSError, NotTheKeypad) as failed:
            # The thread tries again at once, and reports it (a device down, or refused).
            self._log.warning("keypad_not_opened", reason=str(failed))

    def start(self) -> None:
        if self.running:
            return
        self._refused = False
        self.claim()
        self._stopping.clear()
        self._wake = os.pipe()
        watch = self._watch_factory(self.wanted)
        self._thread = threading.Thread(
            target=self._run, args=(watch,), name="tablectl-keypad", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        thread = self._thread
        if thread is not None:
            self._stopping.set()
            self._poke()
            thread.join()
            self._thread = None
        self._close()
        if self._wake is not None:
            for fd in self._wake:
                os.close(fd)
            self._wake = None

    def replugged(self, port: str, node: str | None) -> None:
        """udev (the application's monitor) saw the keypad come back: try it now."""
        self._poke()

    def restore(self, boot: str, last_seq: int) -> None:
        """Nothing to restore: a keypad resends nothing, so nothing can be a duplicate."""

    def commit(self, seq: int) -> None:
        """Nothing to acknowledge: a keypad holds nothing (``acknowledges`` is False)."""

    def line_totals(self) -> dict[str, object]:
        return dict(self._totals)

    def light_and_show(self, seat: int, text: str) -> None:
        """Skipped: a keypad has no lights and no line (``features``); the dealer's display
        shows the seat to act and the options."""

    def __enter__(self) -> KeypadPanel:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- The reading thread ----------------------------------------------------------------

    def _poke(self) -> None:
        if self._wake is not None:
            # A pipe full of wakes needs no more.
            with contextlib.suppress(BlockingIOError):
                os.write(self._wake[1], b"!")

    def _run(self, watch: KeypadWatch | None) -> None:
        backoff = BACKOFF_INITIAL
        assert self._wake is not None
        wake = self._wake[0]
        try:
            while not self._stopping.is_set():
                if self._node is None:
                    self._try_open()
                    if self._refused:
                        return  # for good: the seam's DeviceRefused
                if self._up_pending:
                    self._came_up()
                    backoff = BACKOFF_INITIAL
                waits = [wake] + ([watch.fileno()] if watch else [])
                if self._node is not None:
                    waits.append(self._node.fileno())
                timeout = None if self._node is not None else backoff
                ready, _, _ = select.select(waits, [], [], timeout)
                if not ready and self._node is None:
                    backoff = min(backoff * 2, BACKOFF_MAX)
                if wake in ready:
                    os.read(wake, 512)
                    backoff = BACKOFF_INITIAL
                if watch is not None and watch.fileno() in ready:
                    self._udev(watch)
                if self._node is not None and self._node.fileno() in ready:
                    self._read()
        finally:
            if watch is not None:
                watch.close()

    def _try_open(self) -> None:
        try:
            self._open()
        except NotTheKeypad as wrong:
            self._log.error("keypad_refused", reason=str(wrong))
            self.events.put(DeviceRefused(PANEL, str(wrong), RejectReason.IDENTITY))
            self._refused = True
        except OSError as failed:
            self._went_down(*self._reason(failed))

    def _open(self) -> None:
        path = self.wanted.path
        if path is None or "://" not in path:
            # udev's database names the node, by identity or by a link of it.
            path = find_node(self.wanted)
        if path is None:
            raise NotPlugged(errno.ENOENT, f"not plugged in: no keypad is {self.wanted}")
        try:
            node = self._opener(path)
        except SystemError as failed:
            # python-evdev's ioctl that failed without setting an error (EVIOCGEFFECTS, at
            # open): a node not (or no longer) answering as an input device.
            raise OSError(errno.EIO, f"{path} did not answer as an input device") from failed
        try:
            keys = set(node.capabilities().get(evdev.ecodes.EV_KEY, []))
            missing = sorted(self.keymap.codes - keys)
            if missing:
                names = ", ".join(
                    f"{key_name(code)} ({self.keymap.buttons[code].value})" for code in missing
                )
                raise NotTheKeypad(
                    f"the input device {path} ({node.name}) has no key {names}: not the "
                    "keypad [devices.panel.keys] is for (docs/hardware-keypad.md)"
                )
            try:
                node.grab()
            except OSError as failed:
                if failed.errno == errno.EBUSY:
                    raise KeypadGrabbed.of(path) from None
                raise
        except BaseException:
            node.close()
            raise
        self._node, self._path = node, path
        self._keys.reset()
        self._totals["opens"] += 1
        self._up_pending = True

    def _came_up(self) -> None:
        node = self._node
        assert node is not None
        self._up_pending = False
        self._down = None
        # A host-made boot a session (docs/drivers.md, Devices without sequence numbers).
        self._boot = "H" + secrets.token_hex(4)[:7].upper()
        self._seq = 0
        outcome = HelloOutcome.RESTARTED if self._totals["opens"] > 1 else HelloOutcome.NEW_SESSION
        self._log.info("keypad_up", path=self._path, name=node.name, boot=self._boot)
        self.events.put(
            DeviceUp(
                PANEL,
                self._boot,
                node.uniq,
                outcome,
                model=node.name,
            )
        )

    def _reason(self, failed: OSError) -> tuple[str, str]:
        """Why the keypad could not be opened, and the kind of why: ``absent``,
        ``grabbed`` or ``failed``."""
        if isinstance(failed, KeypadGrabbed):
            return str(failed), "grabbed"
        if isinstance(failed, NotPlugged):
            return str(failed.strerror), "absent"
        if failed.errno in _ABSENT:
            return f"not plugged in: {self.wanted} is not there", "absent"
        return f"cannot open the keypad {self.wanted}: {failed.strerror or failed}", "failed"

    def _went_down(self, reason: str, kind: str) -> None:
        """Report a loss once: again only when the kind of why changes (an unplugged keypad
        that is still not there is not news; one another program grabs is)."""
        if kind == self._down:
            self._log.debug("keypad_still_down", reason=reason)
            return
        self._down = kind
        self._log.warning("keypad_down", reason=reason)
        self.events.put(DeviceDown(PANEL, reason))

    def _lost(self, reason: str, kind: str = "absent") -> None:
        self._close()
        self._totals["losses"] += 1
        self._went_down(reason, kind)

    def _close(self) -> None:
        node, self._node = self._node, None
        self._up_pending = False
        self._keys.reset()
        if node is not None:
            node.close()  # the grab goes with the descriptor

    def _udev(self, watch: KeypadWatch) -> None:
        for change in watch.changes(self._path if self._node is not None else None):
            if change.action == "remove" and self._node is not None:
                self._lost(f"unplugged: udev removed {change.node}")
            elif change.action == "add" and change.wanted and self._node is None:
                self._log.info("keypad_plugged", node=change.node)
                self._poke()

    def _read(self) -> None:
        node = self._node
        assert node is not None
        try:
            for event in node.read():
                self._feed(event.type, event.code, event.value)
        except BlockingIOError:
            return
        except OSError as failed:
            if failed.errno == errno.ENODEV:
                self._lost(f"unplugged: reading {self._path} failed with ENODEV")
            else:
                self._lost(f"reading {self._path} failed: {failed.strerror or failed}", "failed")

    def _feed(self, type_: int, code: int, value: int) -> None:
        verdict = self._keys.feed(type_, code, value)
        if verdict is None:
            return
        if isinstance(verdict, Pressed) and verdict.button is not None:
            seq, self._seq = self._seq, (self._seq + 1) % SEQ_MODULUS
            self._totals["presses"] += 1
            self._log.info("button", button=verdict.button.value, key=key_name(code), seq=seq)
            self.events.put(ButtonPressed(verdict.button, seq))
        elif isinstance(verdict, Pressed):
            self._totals["unmapped"] += 1
            self._log.warning(
                "key_not_mapped",
                key=key_name(code),
                todo="this key is on no button of [devices.panel.keys]: no press",
            )
        elif isinstance(verdict, Chord):
            self._totals["chords"] += 1
            self._log.warning(
                "chord_refused",
                key=key_name(code),
                held=[key_name(held) for held in verdict.held],
                todo="a key pressed while another is held is no press: press one at a time",
            )
        elif isinstance(verdict, Dropped):
            self._totals["dropped"] += 1
            self._log.warning(
                "key_events_dropped",
                todo="the kernel dropped key events (SYN_DROPPED): a key pressed at that "
                "moment may be lost; check the table's last action and press again",
            )


def _udev_watch(wanted: Wanted) -> KeypadWatch | None:
    """udev's monitor of the input subsystem; None for a keypad named by URL (no udev), or
    where udev's netlink socket cannot be opened."""
    if wanted.path is not None and "://" in wanted.path:
        return None
    try:
        return KeypadWatch(wanted)
    except OSError as failed:
        structlog.get_logger("drivers.keypad").warning(
            "udev_not_watched",
            reason=str(failed),
            todo="a replugged keypad is found by trying again; an unplugged one by ENODEV",
        )
        return None
