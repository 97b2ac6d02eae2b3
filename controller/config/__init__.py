"""The table's configuration, ``table.toml``: its settings (data only), the checked reading of a
TOML document, each section's reader and the loading of the whole file (docs/deploy.md,
Configuration reference).

Pure but for reading the file it is given: no clock, no thread, no log. It may use the poker
core (the games and the engine's rules it checks a table against) and the drivers (the deck
files it checks); nothing above.
"""
