"""The table's forwarder, ``tablectl forward`` (docs/floor.md, The forwarder): it follows the
table's journal as the controller writes it (``follow``, woken by ``watch``) and sends every
record to the floor over NATS JetStream (``forward``), on the subjects the floor reads
(``subjects``).

A program of the table's own, beside the controller: it may use the journal, the logs, the
configuration and the poker core; never the running table, the floor's server or the command line
(pyproject.toml, the layers contract).
"""

from typing import Final

#: The one logger name of every event the forwarder logs (docs/app.md, The log).
LOGGER: Final = "controller.forwarder"
