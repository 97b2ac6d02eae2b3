"""Poker, pure: the cards, the dealer's inputs, the hand evaluators and their tables, the declared
games, the engine that plays them and the words it announces them in.

The bottom layer (docs/app.md, Layers): it imports nothing of the product, and does no I/O (no
port, device, log, display, clock, thread or file: the pure-core contract in pyproject.toml).
"""
