"""The devices of the table: the device seam (``seam``: events, the Shoe and Panel protocols, the
registry of backends by kind) and its backends (``tablectl``, ``pn532``, ``keypad``), the decks
and discovery (docs/drivers.md).

It may use ``controller.tomlcheck`` (each backend checks its own keys) and the poker core
(cards, inputs, words); nothing else of the product (pyproject.toml, the layers contract).
"""
