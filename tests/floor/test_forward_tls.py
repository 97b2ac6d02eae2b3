"""[floor] tls_ca, tls_cert and tls_key against a real nats-server with TLS (the throwaway CA of
simulator/servers_tls.py): the CA is what makes the server trusted, and a server that asks for
a client certificate takes the table's own."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from confighelp import to_toml
from forwardhelp import (
    create_stream,
    events_of,
    eventually,
    forward,
    held,
    retried_more_than,
    start_forward,
    stop,
    table_toml,
)
from journal_support import write_journal
from servershelp import NatsFactory

from simulator.servers_nats import NatsServer
from simulator.servers_tls import TlsFiles


@dataclass(slots=True)
class _AsksForCertificates(NatsServer):
    """A nats-server that refuses a client without a certificate its CA signed."""

    def render_config(self) -> str:
        config = json.loads(NatsServer.render_config(self))
        assert self.tls is not None
        config["tls"].update({"ca_file": str(self.tls.ca), "verify": True})
        return json.dumps(config, indent=2) + "\n"


def _client_certificate(tls: TlsFiles) -> tuple[Path, Path]:
    """A certificate for the table, signed by the throwaway CA, and its key (mode 0600)."""
    key, request, cert = (tls.ca.parent / name for name in ("t1.key", "t1.csr", "t1.pem"))
    extensions = tls.ca.parent / "t1.ext"
    extensions.write_text("extendedKeyUsage=clientAuth\n", encoding="utf-8")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    commands = [
        ["openssl", "req", *ec, "-keyout", key, "-out", request, "-subj", "/CN=table-T1"],
        [
            "openssl",
            "x509",
            "-req",
            "-in",
            request,
            "-CA",
            tls.ca,
            "-CAkey",
            tls.ca.parent / "ca.key",
            "-CAcreateserial",
            "-out",
            cert,
            "-days",
            "1",
            "-extfile",
            extensions,
        ],
    ]
    for command in commands:
        subprocess.run([str(part) for part in command], check=True, capture_output=True)
    os.chmod(key, 0o600)
    return cert, key


def _with_keys(config: Path, **keys: str) -> Path:
    """``config`` again with more [floor] keys (``to_toml`` of the data it was written from)."""
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    data["floor"].update(keys)
    config.write_text(to_toml(data), encoding="utf-8")
    return config


def test_tls_with_the_floors_ca_forwards_every_record(
    tmp_path: Path, nats_factory: NatsFactory, tls_files: TlsFiles
) -> None:
    server = nats_factory(("T1",), tls=tls_files)
    create_stream(server)
    records = write_journal(tmp_path / "journal", 12)
    config = table_toml(tmp_path, server, "T1", tmp_path / "journal", tls=tls_files)
    done = forward(config, "--until-caught-up")
    assert done.returncode == 0, done.stderr
    assert [m.message_id for m in held(server, "T1")] == [
        f"T1:{records[0].hash}:{n}" for n in range(1, 13)
    ]


def test_without_the_floors_ca_the_server_is_not_trusted(
    tmp_path: Path, nats_factory: NatsFactory, tls_files: TlsFiles
) -> None:
    """No tls_ca: the system's CAs, which never signed the throwaway server's certificate."""
    server = nats_factory(("T1",), tls=tls_files)
    create_stream(server)
    write_journal(tmp_path / "journal", 3)
    config = table_toml(tmp_path, server, "T1", tmp_path / "journal")  # tls:// but no tls_ca
    process = start_forward(config)
    eventually(retried_more_than(config, 1), "two retries", process)
    assert stop(process) == 0
    reasons = [str(e["reason"]) for e in events_of(config, "forward_retrying")]
    assert any("CERTIFICATE_VERIFY_FAILED" in reason for reason in reasons), reasons
    assert held(server, "T1") == []


def test_a_server_that_asks_for_a_certificate_takes_the_tables_own(
    tmp_path: Path, tls_files: TlsFiles
) -> None:
    """Mutual TLS: without tls_cert and tls_key the server refuses the table; with them it is
    forwarded."""
    certificate = _client_certificate(tls_files)
    server = _AsksForCertificates(tmp_path / "nats", ("T1",), tls=tls_files)
    server.start()
    try:
        create_stream(server, certificate=certificate)
        records = write_journal(tmp_path / "journal", 4)
        config = table_toml(tmp_path, server, "T1", tmp_path / "journal", tls=tls_files)
        process = start_forward(config)
        eventually(retried_more_than(config, 1), "two retries", process)
        assert stop(process) == 0
        assert held(server, "T1", certificate) == []
        cert, key = certificate
        _with_keys(config, tls_cert=str(cert), tls_key=str(key))
        done = forward(config, "--until-caught-up")
        assert done.returncode == 0, done.stderr
        assert [m.message_id for m in held(server, "T1", certificate)] == [
            f"T1:{records[0].hash}:{n}" for n in range(1, 5)
        ]
    finally:
        server.stop()
