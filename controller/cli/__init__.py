"""The command line, ``tablectl``: ``main`` builds the parser from every module of ``commands``
(each has ``register(subparsers)``), ``commands.floor`` holds the floor's (docs/app.md).

The top of the product (pyproject.toml, the layers contract): it may use every package below
it, the simulator included (``tablectl demo``, ``tablectl sim``); nothing imports it but
``python -m controller``.
"""
