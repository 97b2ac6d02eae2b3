"""The controller application: the drivers, the journal, the engine and the outputs, wired.

- ``records``: the journal's input and decision records (pure).
- ``core``: ``TableCore``, the engine plus what the controller knows of its devices (pure);
  it replays the journal and checks the decisions it recorded.
- ``panel``: the one line and the light the dealer's panel shows (pure).
- ``view``: the engine's state as the dealer's display's ``TableView`` (pure).
- ``loop``: ``Controller``, the loop: driver event -> journal (fsync) -> ack -> engine -> outputs.

docs/app.md describes the whole.
"""
