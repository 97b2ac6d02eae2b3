"""The casino floor's server (docs/floor.md): it takes every table's records from NATS JetStream,
stores them in PostgreSQL (``store``, ``ingest``), witnesses every table's chain (``witness``,
``chainwalk``, ``chainwatch``), reads ``floor.toml`` (``floortoml``) and serves the floor's web
view (``web/``, docs/floor-web.md).

It may use the forwarder's subjects, the history (recall, disputes), the journal, the logs, the
configuration's reading and the poker core; never the running table or the command line
(pyproject.toml, the layers contract).
"""
