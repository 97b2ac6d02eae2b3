"""The command line, ``tablectl``: ``main`` builds the parser of the command run, from its
module in ``commands`` (each has ``register(subparsers)``; ``registry`` names them all, loaded
when run: docs/app.md, The command line: one command loaded), ``commands.floor`` holds the
floor's.

The top of the product (pyproject.toml, the layers contract): it may use every package below
it, the simulator included (``tablectl demo``, ``tablectl sim``); nothing imports it but
``python -m controller``.
"""
