"""The table's devices: the card shoe and the dealer's panel, behind one seam.

``drivers.seam`` is the seam the application sees: the neutral events, the ``Shoe`` and
``Panel`` protocols, the settings every backend's keys are read into, and the registry that
loads a backend by its ``[devices.X] kind`` on first use (docs/drivers.md). Each backend is a
package of its own: ``tablectl`` (docs/protocol.md's shoe and panel), ``pn532`` (a PN532 reader
at the dealing slot and the discard reader, docs/hardware.md) and ``keypad`` (a USB keypad
through evdev, docs/hardware-keypad.md); ``deck`` reads deck files, ``discovery`` finds devices
through udev and watches them come and go.

It may use the configuration's key checker (``controller.tomlcheck``) and the poker core
(cards, inputs, words); never the configuration's readers, the journal, the running table or
anything above them (pyproject.toml, the layers contract). The application never imports a
backend: it asks the registry.
"""
