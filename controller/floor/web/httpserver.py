"""``tablectl floor web``: the web view served by uvicorn until SIGTERM (docs/floor-web.md)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import uvicorn

from controller.floor.floortoml import FloorConfig
from controller.floor.web.bundle import make_bundle


class _Server(uvicorn.Server):
    """uvicorn's server, but a SIGTERM (the unit's stop) ends it with exit status 0: uvicorn
    itself raises the signal again after its shutdown, so the process would die of it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        stops = (signal.SIGINT, signal.SIGTERM)
        previous = {stop: signal.signal(stop, self.handle_exit) for stop in stops}
        try:
            yield
        finally:
            for stop, handler in previous.items():
                signal.signal(stop, handler)


def serve(config: FloorConfig) -> None:
    """Serve on ``[web] listen:port`` (HTTPS when tls_cert is set), the hands' dispute bundles
    made by ``make_bundle``. ConfigError if the session key cannot be read; OSError if the
    address cannot be bound."""
    from controller.floor.web.app import build  # noqa: PLC0415 -- Starlette only for the view

    app, _web = build(config, config.web.secret(), make_bundle)
    web = config.web
    server = _Server(
        uvicorn.Config(
            app,
            host=web.listen,
            port=web.port,
            ssl_certfile=str(web.tls_cert) if web.tls_cert else None,
            ssl_keyfile=str(web.tls_key) if web.tls_key else None,
            # The reverse proxy's X-Forwarded-For is believed from loopback only.
            proxy_headers=web.behind_tls_proxy,
            forwarded_allow_ips="127.0.0.1,::1",
            server_header=False,
            access_log=False,
            log_level="warning",
            # uvicorn's loggers left to the root's handler (configure_logging): its lines, an
            # unhandled exception's traceback among them, are JSON lines like the view's own,
            # where uvicorn's own logging set-up wrote them as plain text to standard error.
            log_config=None,
            # Server-sent event streams never end by themselves: a stop waits this long.
            timeout_graceful_shutdown=2,
        )
    )
    server.run()
    if not server.started:
        raise OSError(f"cannot serve on {web.listen}:{web.port} (in use, or not this host's)")
