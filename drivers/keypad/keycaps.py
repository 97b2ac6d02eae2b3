"""The printable keycap sheet of a key map: an SVG of the 17-key keypad at full size.

Each key is drawn where it stands on a standard keypad, at the keyboard's pitch of 19.05 mm
(ISO/IEC 9995-1's 19 mm), its face 15 mm: a key on a button carries the button's label in
capitals above the key's own legend; a key on no button is dashed and blank. Printed at 100 %
on A4, each face is cut out and laid in a relabelable keycap (docs/hardware-keypad.md,
Relabelling). Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from xml.sax.saxutils import escape

from controller.poker.inputs import Button
from drivers.keypad.keymap import KEYCAP_LABELS, KeyMap

PITCH: Final = 19.05
FACE: Final = 15.0
MARGIN: Final = 20.0

#: Where each key of a standard 17-key keypad stands: column, row, width, height in keys,
#: and the legend printed on it.
LAYOUT: Final[Mapping[str, tuple[int, int, int, int, str]]] = {
    "KEY_NUMLOCK": (0, 0, 1, 1, "Num"),
    "KEY_KPSLASH": (1, 0, 1, 1, "/"),
    "KEY_KPASTERISK": (2, 0, 1, 1, "*"),
    "KEY_KPMINUS": (3, 0, 1, 1, "-"),
    "KEY_KP7": (0, 1, 1, 1, "7"),
    "KEY_KP8": (1, 1, 1, 1, "8"),
    "KEY_KP9": (2, 1, 1, 1, "9"),
    "KEY_KPPLUS": (3, 1, 1, 2, "+"),
    "KEY_KP4": (0, 2, 1, 1, "4"),
    "KEY_KP5": (1, 2, 1, 1, "5"),
    "KEY_KP6": (2, 2, 1, 1, "6"),
    "KEY_KP1": (0, 3, 1, 1, "1"),
    "KEY_KP2": (1, 3, 1, 1, "2"),
    "KEY_KP3": (2, 3, 1, 1, "3"),
    "KEY_KPENTER": (3, 3, 1, 2, "Enter"),
    "KEY_KP0": (0, 4, 2, 1, "0"),
    "KEY_KPDOT": (2, 4, 1, 1, "."),
}


def _key(name: str, button: Button | None) -> list[str]:
    column, row, width, height, legend = LAYOUT[name]
    x = MARGIN + column * PITCH + (PITCH - FACE) / 2
    y = MARGIN + 16 + row * PITCH + (PITCH - FACE) / 2
    w = FACE + (width - 1) * PITCH
    h = FACE + (height - 1) * PITCH
    if button is None:
        return [
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" rx="1.5" '
            'fill="none" stroke="#999" stroke-width="0.2" stroke-dasharray="1,1"/>',
            f'<text x="{x + w / 2:.2f}" y="{y + h / 2 + 1:.2f}" font-size="3" fill="#999" '
            f'text-anchor="middle">{escape(legend)}</text>',
        ]
    words = KEYCAP_LABELS[button].split()
    top = y + h / 2 - 1.9 * (len(words) - 1) - 0.5
    out = [
        f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" rx="1.5" '
        'fill="none" stroke="#000" stroke-width="0.3"/>'
    ]
    # A bold capital is about 0.7 of its size wide: a long word is set smaller to fit.
    size = min(3.4, (w - 2) / (0.7 * max(map(len, words))))
    out += [
        f'<text x="{x + w / 2:.2f}" y="{top + 3.8 * i:.2f}" font-size="{size:.2f}" '
        f'font-weight="bold" text-anchor="middle">{escape(word)}</text>'
        for i, word in enumerate(words)
    ]
    out.append(
        f'<text x="{x + w / 2:.2f}" y="{y + h - 1.5:.2f}" font-size="2.2" fill="#555" '
        f'text-anchor="middle">{escape(legend)}</text>'
    )
    return out


def keycap_sheet(keymap: KeyMap, title: str = "tablectl keypad panel") -> str:
    """The SVG sheet (A4, millimetres) of ``keymap`` on a standard 17-key keypad.

    Raises ValueError if the map uses a key that is not on a standard keypad (its sheet
    cannot show where that key is)."""
    by_key = {name: button for button, name in keymap.keys.items()}
    elsewhere = sorted(set(by_key) - set(LAYOUT))
    if elsewhere:
        raise ValueError(
            f"keys {', '.join(elsewhere)} are not on a standard 17-key keypad: the sheet "
            "shows only those"
        )
    lines = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" '
        'viewBox="0 0 210 297" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<text x="{MARGIN}" y="{MARGIN}" font-size="5" font-weight="bold">{escape(title)}</text>',
        f'<text x="{MARGIN}" y="{MARGIN + 6}" font-size="3">Print at 100 % (actual size): '
        f"faces {FACE:g} mm, pitch {PITCH} mm.</text>",
        f'<text x="{MARGIN}" y="{MARGIN + 10}" font-size="3">Cut each solid square out and lay '
        "it in its key's cap; dashed keys are on no button.</text>",
    ]
    for name in LAYOUT:
        lines += _key(name, by_key.get(name))
    lines.append("</svg>")
    return "\n".join(lines) + "\n"
