"""A test HTTP server on loopback: started in a thread on entering, stopped on leaving (the fake API server of the
verify tests, the fake ARM of the rollout tests, and the plain web server)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# serve_forever's default poll interval is 0.5 s, and shutdown() waits for the next poll: every `with` paid up to
# half a second for nothing.
POLL = 0.01


class LoopbackServer:
    """`handler` served at 127.0.0.1 on a free port; `url` names it (`scheme` as the subclass serves it)."""

    scheme = "http"

    def __init__(self, handler: Callable[..., BaseHTTPRequestHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": POLL}, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Any:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
