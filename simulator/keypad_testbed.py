"""``tablectl sim``'s keypad panel: a USB keypad emulated by umockdev for a controller in its
own process.

There is no ``/dev/uinput`` to make a real input device with (docs/testing.md, The keypad
under umockdev), and the in-process ``sim://keypad`` (simulator/keypad.py) is reached only
from the simulator's own process. So ``tablectl sim`` hosts a umockdev testbed holding the
keypad the table.toml names: its udev record (the input subsystem, ``ID_INPUT_KEY``, its
identity, udev's by-id link and the configured path among its names), its ioctl file
(simulator/keypad_umockdev.py) and its event node, to which a press writes the kernel's
``struct input_event``s. The controller runs unchanged, with umockdev's preload library and
the testbed's folder in its environment (``run_line``): its keypad backend finds the keypad
through libudev and opens, grabs and reads its ``/dev/input/eventN`` with python-evdev, as on
a table. Nothing of the simulator is imported by the controller.

umockdev answers EVIOCGRAB itself, so the testbed cannot see the controller's grab; whether a
controller holds the keypad is read on its display feed instead (``simulator.display_watch``):
a key pressed while none holds it would wait in the node and reach the next controller late,
where a real keypad's key reaches no one, so such a press is refused (docs/simulator.md, The
keypad panel).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from controller.poker.inputs import Button
from drivers.keypad.backend import KeypadSettings
from drivers.keypad.keymap import STANDARD_17_KEYS, KeyMap
from simulator.devices import DeviceError
from simulator.keypad_umockdev import KeypadSpec, tap
from simulator.table_actions import PressWitness, TableActions

#: umockdev's preload library, as its own ``umockdev-wrapper`` names it.
PRELOAD: Final = "libumockdev-preload.so.0"
#: Why a key of an unplugged keypad reaches no one.
UNPLUGGED: Final = "the keypad is unplugged ('fault replug panel' plugs it back in)"
#: Where a path names the node itself.
_EVENT_DIR: Final = "/dev/input/"


class KeypadBenchError(ValueError):
    """The emulated keypad cannot be made; the message says what to install or write."""


def spec_for(settings: KeypadSettings) -> KeypadSpec:
    """The keypad the table.toml's ``[devices.panel]`` names: its USB identity, or the path
    among its names (a node ``/dev/input/eventN`` is its node); the standard 17 keys and any
    other key its map names."""
    spec = KeypadSpec()
    extra = tuple(key for key in settings.keymap.keys.values() if key not in STANDARD_17_KEYS)
    keys = STANDARD_17_KEYS + tuple(dict.fromkeys(extra))
    identity = settings.identity
    if identity is not None:
        return KeypadSpec(
            vendor=identity.vendor_id,
            product=identity.model_id,
            serial=identity.serial,
            keys=keys,
        )
    path = settings.path or ""
    if "://" in path or not path.startswith("/"):
        raise KeypadBenchError(
            f"[devices.panel] path = {path!r}: tablectl sim emulates a USB keypad named by a "
            'path (path = "/dev/tablectl/keypad") or by vendor_id, product_id and serial; '
            "sim://keypad is tablectl demo's keypad, in its own process"
        )
    if path.startswith(_EVENT_DIR + "event") and path[len(_EVENT_DIR) + 5 :].isdigit():
        return KeypadSpec(event=path.removeprefix(_EVENT_DIR), keys=keys)
    links = () if path == spec.by_id else (path,)
    return KeypadSpec(keys=keys, links=links)


class KeypadTestbed:
    """A umockdev testbed in this process with keypads plugged and unplugged at will:
    ``root`` is its folder (the controller's ``UMOCKDEV_DIR``), ``tap`` presses a key as the
    kernel reports it. tests/drivers/keypad_bed.py tests the driver on it."""

    def __init__(self) -> None:
        try:
            import gi  # noqa: PLC0415 -- umockdev's bindings only for a keypad panel

            gi.require_version("UMockdev", "1.0")
            from gi.repository import UMockdev  # noqa: PLC0415
        except (ImportError, ValueError) as error:
            raise KeypadBenchError(
                f"a keypad panel needs umockdev and its GObject bindings ({error}): install "
                "umockdev, gir1.2-umockdev-1.0 and PyGObject (the test extra, pyproject.toml)"
            ) from None
        self.testbed: Any = UMockdev.Testbed.new()
        self._files = tempfile.TemporaryDirectory(prefix="tablectl-keypad-")

    @property
    def root(self) -> str:
        """The testbed's folder: the controller's ``UMOCKDEV_DIR``."""
        return str(self.testbed.get_root_dir())

    def plug(self, spec: KeypadSpec | None = None) -> KeypadSpec:
        """Add the keypad (its uevent 'add' is sent) and its ioctls; returns its spec."""
        spec = spec or KeypadSpec()
        ioctl = Path(self._files.name) / f"{spec.event}.ioctl"
        ioctl.write_text(spec.ioctls(), encoding="ascii")
        if not self.testbed.add_from_string(spec.description()) or not self.testbed.load_ioctl(
            spec.node, str(ioctl)
        ):
            raise KeypadBenchError(f"umockdev could not make the keypad {spec.node}")
        return spec

    def unplug(self, spec: KeypadSpec) -> None:
        """Send 'remove' for the event node and take the keypad out of sysfs.

        umockdev keeps the node's other end: a reader that holds it open sees no more
        events, where the kernel would fail its reads with ENODEV (docs/testing.md); and
        the node's name cannot be plugged again in this testbed (plug another event node)."""
        # The kernel takes the device out of sysfs before udev hears of its removal: a
        # reader that looks again on the 'remove' must not find it. umockdev sends a uevent
        # only for a device still there, so the node stops being a device with keys first.
        self.testbed.set_property(spec.event_path, "ID_INPUT_KEY", "0")
        self.testbed.uevent(spec.event_path, "remove")
        # Child first: umockdev removes one device's sysfs entries and class links at a time.
        for path in (spec.event_path, spec.input_path, spec.usb_path):
            self.testbed.remove_device(path)

    def write(self, spec: KeypadSpec, data: bytes) -> None:
        """``data`` (kernel input events) queued on the keypad's node, for its reader."""
        fd = self.testbed.get_dev_fd(spec.node)
        if fd < 0:
            raise KeypadBenchError(f"{spec.node} has no emulated other end (unplugged?)")
        os.write(fd, data)

    def tap(self, spec: KeypadSpec, key: str, when: float | None = None) -> None:
        """Key ``key`` goes down and comes up, as a USB keyboard's reports give it."""
        self.write(spec, tap(key, time.time() if when is None else when))

    def close(self) -> None:
        self.testbed.clear()
        self._files.cleanup()


def preloaded() -> bool:
    """Whether umockdev's preload library is loaded in this process."""
    try:
        maps = Path("/proc/self/maps").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return PRELOAD.removesuffix(".so.0") in maps


def under_preload(may_exec: bool) -> None:
    """Return once this process runs under umockdev's preload library; if it does not,
    ``may_exec`` (the command line's own process, no thread started yet): run the same command
    again under it (``execve``, as ``umockdev-wrapper`` does), else KeypadBenchError.

    The testbed's uevents (the keypad's 'remove' as the simulator stops) reach another
    process's libudev only when sent from a process under the library: without it umockdev
    looks the device up in the machine's own /sys and finds nothing."""
    if preloaded():
        return
    command = ["umockdev-wrapper", *sys.orig_argv]
    if not may_exec:
        raise KeypadBenchError(
            "a keypad panel's testbed needs umockdev's preload library in this process: run "
            + shlex.join(command)
        )
    environment = dict(os.environ)
    environment["LD_PRELOAD"] = ":".join(filter(None, [PRELOAD, os.environ.get("LD_PRELOAD")]))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environment)


def run_line(root: str, config: Path) -> str:
    """The command line that runs the table.toml's controller on the emulated keypad."""
    words = [f"UMOCKDEV_DIR={root}", f"LD_PRELOAD={PRELOAD}", "tablectl", "run"]
    return shlex.join([*words, "--config", str(config)])


class KeypadCable:
    """The emulated keypad's USB cable, which the console's ``fault unplug panel`` and
    ``fault replug panel`` pull and plug (``TableActions.panel_cable``): unplugged, udev's
    'remove' is sent and a key reaches no one; plugged back, the keypad comes back at the
    next event node (umockdev keeps a removed node's name, as the kernel may give a
    replugged keypad another number), its names and identity the same."""

    def __init__(self, keypads: KeypadTestbed, spec: KeypadSpec) -> None:
        self.keypads = keypads
        self.spec = spec
        self.plugged = True

    @property
    def address(self) -> str:
        return f"{self.spec.node} (a keypad emulated by umockdev; {self.keypads.root})"

    def tap(self, key: str) -> None:
        if not self.plugged:
            raise DeviceError(UNPLUGGED)
        self.keypads.tap(self.spec, key)

    def unplug(self) -> None:
        if not self.plugged:
            raise DeviceError("the panel is unplugged already")
        self.keypads.unplug(self.spec)
        self.plugged = False

    def replug(self) -> None:
        if self.plugged:
            raise DeviceError("the panel is plugged in already")
        number = int(self.spec.event.removeprefix("event")) + 1
        self.spec = self.keypads.plug(replace(self.spec, event=f"event{number}"))
        self.plugged = True


def fit_testbed_keypad(
    sim: TableActions, cable: KeypadCable, keymap: KeyMap, witness: PressWitness
) -> None:
    """The dealer's presses on ``sim`` (the console's, the bot's) go to the emulated keypad
    from now on: a press of a button is a tap of the key ``keymap`` gives it, made while a
    controller holds the keypad (``witness``), else refused, naming why; the bot's runner
    waits on ``witness`` for the controller to take each press. The panel's unplug and replug
    are the keypad's (``cable``)."""

    def press(button: Button) -> None:
        why = UNPLUGGED if not cable.plugged else witness.ready()
        if why is not None:
            raise DeviceError(f"{button.value}: the keypad's key is not pressed: {why}")
        cable.tap(keymap.keys[button])

    sim.presses = press
    sim.press_witness = witness
    sim.panel_cable = cable
