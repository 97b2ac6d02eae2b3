"""The table's history, read back: recall of the last hands, hand histories in and out (PHH),
hand scripts, the dispute bundle and the attestation of the software a table runs.

It reads the journal and may use the display's view model, the journal, the logs' reports, the
configuration, the drivers' data and the poker core; never the running table, the floor or the
command line (pyproject.toml, the layers contract).
"""
