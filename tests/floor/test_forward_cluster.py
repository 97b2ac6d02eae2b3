"""[floor] servers with more than one server: against the 3-node cluster (simulator/
servers_nats.py, a stream of three replicas), the node the forwarder is connected to is killed
while the journal grows; the forwarder goes on through another, and no record is lost or
stored twice."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from forwardhelp import (
    create_stream,
    events_of,
    eventually,
    held,
    holds,
    start_forward,
    stop,
    table_toml,
)
from journal_support import START, StepClock, journal_lines, table_record

from controller.journal import JournalWriter
from simulator.servers_nats import NatsCluster


def test_a_killed_node_of_the_cluster_is_ridden_out_through_another(tmp_path: Path) -> None:
    cluster = NatsCluster(tmp_path / "cluster", ("T1",))
    cluster.start()
    try:
        first = cluster.nodes[0]
        create_stream(first, replicas=3)
        journal = tmp_path / "journal"
        config = table_toml(tmp_path, first, "T1", journal, servers=cluster.urls)
        with JournalWriter.open(
            journal, clock=StepClock(START + timedelta(seconds=1)), fsync=False
        ) as writer:
            for n in range(30):
                writer.append(*table_record(n))
            process = start_forward(config)
            eventually(holds(first, "T1", 30), "30 records stored", process)
            # The node it is connected to now: the last it connected to. Its first session may
            # have been lost, a stream just made on three nodes not yet heard on the one it
            # reached (test_servers.py, publish_once_the_stream_answers), and retried.
            connected = str(events_of(config, "forward_connected")[-1]["server"])
            [node] = [n for n in cluster.nodes if n.url.endswith(connected)]
            node.kill()
            for n in range(30, 60):
                writer.append(*table_record(n))
            other = next(n for n in cluster.nodes if n is not node)
            eventually(holds(other, "T1", 60), "60 records stored", process)
        assert stop(process) == 0
        lines = [raw.rstrip(b"\n") for _, _, raw in journal_lines(journal)]
        assert [m.data for m in held(other, "T1")] == lines
        servers = {str(e["server"]) for e in events_of(config, "forward_connected")}
        assert connected in servers
        assert len(servers) >= 2
    finally:
        cluster.stop()
