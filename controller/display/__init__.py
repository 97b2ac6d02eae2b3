"""The dealer's display: the view model the screen shows, and the Textual app that shows it.

``view`` is pure (no Textual); ``app`` draws it; ``demo`` holds sample views; ``wire`` and
``attach`` carry views over the display socket (docs/display.md).

It may use the poker core and nothing else of the product (pyproject.toml, the layers
contract): the running table builds its views, the history and the floor read them.
"""
