"""Hand histories in the PHH format (the poker hand history standard PokerKit reads and writes):
``parse`` reads a PHH file, ``convert`` (with ``convert_draw`` and ``convert_stud``) turns its
hand into the inputs of a table of its game, ``export`` writes each finished hand of a journal
as one PHH file (docs/app.md, Hand histories).
"""
