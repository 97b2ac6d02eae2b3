"""The dealer's display: the view model the screen shows, and the Textual app that shows it.

``view`` is pure (no Textual); ``app`` draws it; ``demo`` holds sample views.
"""
