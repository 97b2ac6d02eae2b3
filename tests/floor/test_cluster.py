"""The 3-node cluster (simulator/servers_nats.py, NatsCluster): records published in order through
one node while another is killed with SIGKILL and restarted are, at the end, each held once, in
order, by every node (docs/floor.md, Servers and credentials)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path

import nats
import nats.errors
import nats.js.errors
import pytest
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg, StreamConfig

from controller.forwarder.subjects import STREAM, STREAM_SUBJECTS, RecordId, subject_of
from simulator.servers_nats import NatsCluster, NatsServer, NatsUser

#: How long one request may wait for its answer (a leader's election included).
PATIENCE = 30.0
#: How long one direct get waits before it is asked again (direct_get).
ASK = 2.0
RECORDS = 60
JOURNAL = "ab" * 32
#: The failures a publish meets while a node is down or a stream leader is being elected: the
#: same message is sent again, and its message id makes the stream keep it once.
_RETRIED = (nats.errors.TimeoutError, nats.js.errors.NoStreamResponseError, nats.js.errors.APIError)


async def connect(node: NatsServer, user: NatsUser) -> nats.NATS:
    return await nats.connect(
        node.url,
        user=user.user,
        password=user.password,
        inbox_prefix=user.inbox_prefix,
        allow_reconnect=False,
        connect_timeout=PATIENCE,
    )


def payload(seq: int) -> bytes:
    return json.dumps({"seq": seq}).encode()


async def publish_while_a_node_dies(cluster: NatsCluster) -> int:
    """Publish every record through the first node, each acknowledged before the next; the
    stream's leader (or the second node, when the first leads) is killed a third of the way in
    and started again at two thirds. The number of resends."""
    first = cluster.nodes[0]
    floor = await connect(first, cluster.floor_user)
    try:
        await floor.jetstream(timeout=PATIENCE).add_stream(
            StreamConfig(name=STREAM, subjects=[STREAM_SUBJECTS], allow_direct=True, num_replicas=3)
        )
    finally:
        await floor.close()
    leader = stream_leader(first)
    victim = next(n for n in cluster.nodes[1:] if n.name == leader or n is cluster.nodes[1])
    table = await connect(first, cluster.table_user("T1"))
    resends = 0
    try:
        js = table.jetstream()
        for seq in range(1, RECORDS + 1):
            if seq == RECORDS // 3:
                victim.kill()
            if seq == 2 * RECORDS // 3:
                victim.start()
            message_id = RecordId("T1", JOURNAL, seq).message_id()
            while True:
                try:
                    await js.publish(
                        subject_of("T1"),
                        payload(seq),
                        timeout=PATIENCE,
                        headers={"Nats-Msg-Id": message_id},
                    )
                    break
                except _RETRIED:
                    resends += 1
    finally:
        await table.close()
    return resends


def stream_state(node: NatsServer) -> dict[str, object]:
    """The stream as this node holds it (its monitoring port: the node's own copy)."""
    url = f"http://127.0.0.1:{node.monitor_port}/jsz?streams=true"
    with urllib.request.urlopen(url, timeout=PATIENCE) as answer:
        report = json.load(answer)
    [stream] = [s for a in report.get("account_details", []) for s in a.get("stream_detail", [])]
    return dict(stream)


def wait_caught_up(node: NatsServer) -> None:
    """Wait until the node holds RECORDS messages, 1 to RECORDS (a restarted node catches up
    from the leader on its own time); its first and last seq and count then say: each once."""
    deadline = time.monotonic() + PATIENCE
    while True:
        state = stream_state(node)["state"]
        assert isinstance(state, dict)
        held = (state["messages"], state["first_seq"], state["last_seq"])
        if held == (RECORDS, 1, RECORDS):
            return
        assert time.monotonic() < deadline, f"{node.name} holds {held}, not {RECORDS} from 1"
        time.sleep(0.05)


def wait_all_current(cluster: NatsCluster) -> None:
    """Wait until the stream's leader counts every other replica current, nothing to catch up:
    a node cut off from the others while still catching up would hold back its direct gets."""
    deadline = time.monotonic() + PATIENCE
    while True:
        leader = stream_leader(cluster.nodes[0])
        found = [node for node in cluster.nodes if node.name == leader]
        view = stream_state(found[0]).get("cluster") if found else None
        replicas = view.get("replicas", []) if isinstance(view, dict) else []
        if len(replicas) == len(cluster.nodes) - 1 and all(
            r.get("current") and not r.get("lag") for r in replicas
        ):
            return
        assert time.monotonic() < deadline, f"replicas not current within {PATIENCE} s: {view}"
        time.sleep(0.05)


def stream_leader(node: NatsServer) -> str:
    cluster = stream_state(node).get("cluster")
    assert isinstance(cluster, dict)
    return str(cluster.get("leader"))


async def held_by(node: NatsServer, user: NatsUser) -> list[tuple[bytes, str]]:
    """Every message of the stream, by direct get: with the other nodes stopped, this node's
    own copy answers."""
    client = await connect(node, user)
    try:
        js = client.jetstream(timeout=ASK)  # each get; direct_get asks again
        held = []
        for seq in range(1, RECORDS + 1):
            message = await direct_get(js, seq)
            held.append((message.data or b"", (message.headers or {}).get("Nats-Msg-Id", "")))
        return held
    finally:
        await client.close()


async def direct_get(js: JetStreamContext, seq: int) -> RawStreamMsg:
    """Record ``seq`` by direct get, asked again while the lone node does not answer yet (it
    may still be settling after the others went); PATIENCE in all."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            return await js.get_msg(STREAM, seq=seq, direct=True)
        except nats.errors.TimeoutError:
            assert time.monotonic() < deadline, f"no answer for record {seq} in {PATIENCE} s"


#: Slow: 30 to 40 s here, nearly all of it the cluster electing its JetStream leaders again each
#: time two nodes come back (5 to 10 s a time); .ci/run runs it after make test.
@pytest.mark.slow
def test_every_node_holds_every_record_once_in_order_after_a_node_was_killed(
    tmp_path: Path,
) -> None:
    cluster = NatsCluster(tmp_path / "cluster", ("T1",))
    cluster.start()
    try:
        asyncio.run(publish_while_a_node_dies(cluster))
        expected = [
            (payload(seq), RecordId("T1", JOURNAL, seq).message_id())
            for seq in range(1, RECORDS + 1)
        ]
        for node in cluster.nodes:
            others = [n for n in cluster.nodes if n is not node]
            wait_caught_up(node)
            wait_all_current(cluster)
            for other in others:
                other.stop()
            assert asyncio.run(held_by(node, cluster.floor_user)) == expected, node.name
            for other in others:
                other.launch()
            for other in others:
                other.wait_ready()
    finally:
        cluster.stop()
