"""Run the service on 127.0.0.1 in a background thread (tests, notebooks, benchmarks).

    with LiveServer(create_app(source)) as server:
        httpx.get(server.url + "/healthz")

The socket is bound before the server starts (port 0: the kernel picks a free port), so `url` is
known at once and nothing races for the port.
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn


class LiveServer:
    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"):
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        from valid.serve.edge import uvicorn_options
        from valid.serve.limits import Limits

        served = getattr(getattr(app, "state", None), "config", None)
        limits = served.limits if served is not None else Limits()
        config = uvicorn.Config(app, log_level=log_level, lifespan="on", **uvicorn_options(limits))
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self._socket]}, name="valid-serve", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 30.0) -> "LiveServer":
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 30.0) -> None:
        self.server.should_exit = True
        self._thread.join(timeout_s)
        self._socket.close()

    def __enter__(self) -> "LiveServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def wait_ready(url: str, timeout_s: float = 60.0) -> dict:
    """Poll GET /healthz until 200; returns its body. Raises with the last error on timeout."""
    import httpx

    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            response = httpx.get(url + "/healthz", timeout=5)
            if response.status_code == 200:
                return response.json()
            last = response.text
        except httpx.HTTPError as err:
            last = str(err)
        time.sleep(0.05)
    raise RuntimeError(f"{url} not ready after {timeout_s:g} s: {last}")
