"""The running table: the drivers, the journal, the engine and the outputs, wired (docs/app.md).

- ``core``: ``TableCore``, the engine plus what the controller knows of its devices (pure);
  it replays the journal and checks the decisions it recorded (``checkpointing``).
- ``loop``: ``Controller``, the loop: driver event -> journal (fsync) -> ack -> engine -> outputs;
  ``opening`` opens its journal and replays it, ``dispatch`` chooses who handles an input.
- ``devicestate``, ``devicelog``: what the controller knows of its shoe and panel, and logs.
- ``seating``: seat changes (``tablectl seat``); ``control``: the control socket.
- ``paneltext``: the one line and the light the dealer's panel shows (pure).
- ``viewbuilder``: the engine's state as the dealer's display's ``TableView`` (pure);
  ``displayfeed`` publishes it to ``tablectl display``, ``screen`` shows it beside the loop.
- ``service``: ``tablectl run``: the controller built from ``table.toml``, under systemd
  (``systemd``), with its unix sockets (``unixsocket``).

It may use the history (the software record), the display's view model, the journal, the logs,
the configuration, the drivers and the poker core; never the floor, the forwarder or the command
line (pyproject.toml, the layers contract).
"""
