"""The NXP PN532 reader as a shoe's read point (docs/hardware.md).

``frames`` is the pure codec of the chip's HSU frames, ``commands`` the commands the shoe
uses and their answers (both without I/O: the simulator shares them), ``driver`` the host's
end: one reader thread a PN532 polls for ISO/IEC 14443-A tags.
"""
