"""The ``tablectl`` backend: the shoe and the panel of docs/protocol.md (NMEA-style sentences
over a serial line, numbered, acknowledged and resent), the device seam's default kind.

``nmea`` and ``sentences`` are the pure codec, ``session`` the pure delivery rules, ``link``
the port, ``transport`` a device's reading thread, ``shoe`` and ``panel`` the two devices, and
``backend`` their entries in the registry (drivers/seam/registry.py). Nothing above
``drivers/`` imports it: the application opens it through the registry.
"""
