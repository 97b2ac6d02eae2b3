"""Sub-commands of ``tablectl``; each module has ``register(subparsers)``."""
