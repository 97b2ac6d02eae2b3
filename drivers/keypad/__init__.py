"""The keypad panel: a USB keypad as the dealer's panel, read through the kernel's evdev.

A backend of the device seam (``[devices.panel] kind = "keypad"``): ``keymap`` (which key is
which button, and what a key event means: pure); the driver reads the keypad with
python-evdev, grabbed exclusively, and yields the seam's neutral events. A keypad has
buttons only: no seat lights, no line of text (docs/hardware-keypad.md).
"""
