"""Sub-commands of ``tablectl``; each module has ``register(subparsers)``
(controller/cli/registry.py names them, controller/cli/main.py loads the one run); the floor's
are the subpackage ``floor``."""
