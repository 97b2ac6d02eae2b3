"""Sub-commands of ``tablectl``; each module has ``register(subparsers)`` (controller/cli/main.py
finds them); the floor's are the subpackage ``floor``."""
