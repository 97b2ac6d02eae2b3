"""What the controller writes for people and for machines besides its journal: the log
(structlog, one event a line, to a stream or to journald) and the commands' ``--json`` reports
(docs/app.md, The log, and Machine-readable output).

It may use the configuration (the [log] settings) and nothing above it.
"""
