"""Throwaway TLS for the floor's tests (docs/floor.md, Servers and credentials): a certificate
authority and a server certificate for 127.0.0.1 and localhost, made with ``openssl`` in a folder,
valid for a day. A client that trusts ``ca`` reaches a NatsServer(tls=...)
(simulator/servers_nats.py); one that does not is refused. The certificate serves clients and proves
a cluster's node to the others (serverAuth and clientAuth: the routes of
docs/examples/floor-nats-server.conf). Never for production: the keys lie unencrypted in the
folder."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from simulator.servers import ServerError, binary

OPENSSL_PACKAGE: Final = "openssl"
#: Names the server certificate is valid for (subjectAltName): what a test connects to.
SERVER_NAMES: Final = "IP:127.0.0.1,DNS:localhost"


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The files of a throwaway TLS setup: the CA's certificate (what a client trusts), the
    server's certificate and its key."""

    ca: Path
    cert: Path
    key: Path


def make_tls(directory: Path) -> TlsFiles:
    """Make a CA and a server certificate signed by it in ``directory`` (created if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    openssl = binary("openssl", OPENSSL_PACKAGE)
    ca_key, ca = directory / "ca.key", directory / "ca.pem"
    key, request, cert = (
        directory / "server.key",
        directory / "server.csr",
        directory / "server.pem",
    )
    extensions = directory / "server.ext"
    extensions.write_text(
        f"subjectAltName={SERVER_NAMES}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n"
    )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(
        [
            openssl,
            "req",
            "-x509",
            *ec,
            "-keyout",
            str(ca_key),
            "-out",
            str(ca),
            "-days",
            "1",
            "-subj",
            "/CN=tablectl throwaway test CA",
        ]
    )
    _run([openssl, "req", *ec, "-keyout", str(key), "-out", str(request), "-subj", "/CN=127.0.0.1"])
    _run(
        [
            openssl,
            "x509",
            "-req",
            "-in",
            str(request),
            "-CA",
            str(ca),
            "-CAkey",
            str(ca_key),
            "-CAcreateserial",
            "-out",
            str(cert),
            "-days",
            "1",
            "-extfile",
            str(extensions),
        ]
    )
    return TlsFiles(ca=ca, cert=cert, key=key)


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServerError(f"openssl {command[1]} failed ({done.returncode}): {done.stderr.strip()}")
