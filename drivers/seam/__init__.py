"""The device seam: what the application knows of a shoe and a panel, whatever they are.

``drivers.seam.events`` (the neutral events), ``drivers.seam.device`` (the ``Shoe`` and
``Panel`` protocols and the backend classes), ``drivers.seam.settings`` (how a device is
configured and found), ``drivers.seam.registry`` (the backends by role and kind, imported
lazily), and what backends share: ``keys`` (a port's table.toml keys), ``tags`` (tag UIDs,
the repeat filter) and ``holders`` (who holds a device). Importing the seam imports no
backend. docs/drivers.md describes it.
"""
