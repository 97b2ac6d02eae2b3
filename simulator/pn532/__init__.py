"""Simulated NXP PN532 readers (docs/hardware.md): the chip byte for byte (``chip``) and its
ptys (``serve``), test equipment for drivers/pn532."""
