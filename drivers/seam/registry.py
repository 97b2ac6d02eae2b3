"""The backends, by role and kind, imported only when a table names them.

python-can's shape (its ``can.interfaces.BACKENDS``): a name maps to ``"module:Class"``,
and the module is imported the first time a table's ``[devices.<role>] kind`` asks for
it, so the controller never imports a backend it does not run (and a backend's own
libraries are needed only where it is fitted). Adding a backend is one entry here
(docs/drivers.md, Adding a backend).
"""

from __future__ import annotations

import importlib
from typing import Final

from drivers.seam.device import Backend, PanelBackend, ShoeBackend
from drivers.seam.events import PANEL, SHOE

#: The kind a section without ``kind`` is: today's protocol devices (docs/protocol.md).
DEFAULT_KIND: Final = "tablectl"

#: role -> kind -> "module:Class". The one place a backend is named.
BACKENDS: Final[dict[str, dict[str, str]]] = {
    SHOE: {
        "tablectl": "drivers.tablectl.backend:ProtocolShoe",
        "pn532": "drivers.pn532.backend:Pn532ShoeBackend",
    },
    PANEL: {
        "tablectl": "drivers.tablectl.backend:ProtocolPanel",
        "keypad": "drivers.keypad.backend:KeypadBackend",
    },
}


class UnknownBackend(LookupError):
    """No backend of that kind for that role."""

    def __init__(self, role: str, kind: str) -> None:
        self.role, self.kind = role, kind
        known = ", ".join(repr(k) for k in kinds(role)) or "none"
        super().__init__(f"no {role} backend of kind {kind!r}: expected one of {known}")


def kinds(role: str) -> tuple[str, ...]:
    """The kinds registered for ``role``, the default first."""
    names = BACKENDS.get(role, {})
    return tuple(sorted(names, key=lambda name: (name != DEFAULT_KIND, name)))


def _load(role: str, kind: str) -> type[Backend]:
    try:
        target = BACKENDS[role][kind]
    except KeyError:
        raise UnknownBackend(role, kind) from None
    module_name, _, class_name = target.partition(":")
    backend = getattr(importlib.import_module(module_name), class_name)
    if not (
        isinstance(backend, type)
        and issubclass(backend, Backend)
        and backend.role == role
        and backend.kind == kind
    ):
        raise TypeError(f"{target}: expected the {role} backend of kind {kind!r}")
    return backend


def backend(role: str, kind: str) -> type[Backend]:
    """The backend class of ``kind`` for ``role``, its module imported now if not yet.
    Raises ``UnknownBackend``."""
    return _load(role, kind)


def shoe_backend(kind: str) -> type[ShoeBackend]:
    """The shoe backend of ``kind``."""
    found = _load(SHOE, kind)
    if not issubclass(found, ShoeBackend):
        raise TypeError(f"{BACKENDS[SHOE][kind]}: expected a ShoeBackend")
    return found


def panel_backend(kind: str) -> type[PanelBackend]:
    """The panel backend of ``kind``."""
    found = _load(PANEL, kind)
    if not issubclass(found, PanelBackend):
        raise TypeError(f"{BACKENDS[PANEL][kind]}: expected a PanelBackend")
    return found
