"""The service's edge: what happens to a connection before the app sees a request.

uvicorn answers some requests itself (a malformed request line is a plain-text 400), has no limit
on the size or number of request headers with httptools, and no read timeout for a request's
headers or body: a 32 MB header is read and held, and a client that sends one byte every few
seconds keeps its connection forever. So `valid serve` runs uvicorn with `EdgeProtocol`, uvicorn's
h11 protocol with these added, all answered in the one JSON error shape and then closed:

- 431 `headers_too_large`: the request line and headers together are over `max_header_bytes`, or
  there are more than `max_headers` header lines; checked on the bytes as they arrive, before they
  are parsed, so an oversized head never grows past the limit in memory.
- 408 `request_timeout`: the head did not arrive within `header_timeout_s` of its first byte, or the
  body not within `body_timeout_s` of the end of the head. (A connection that sends nothing is
  closed after `header_timeout_s` without a response.)
- 400 `bad_request`: anything h11 cannot parse (was uvicorn's plain-text 400).

In the ASGI app (see `install`):
- `HeadAsGet`: HEAD is answered wherever GET is (the GET response's status and headers, no body).
- trusted proxies: with `forwarded_allow_ips`, the client address (which the rate limit keys on) is
  taken from X-Forwarded-For when, and only when, the peer is one of those proxies; the rightmost
  address that is not a trusted proxy is the client, so a client cannot choose its own key.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# The app's security headers, on these responses too (the app module adds them to its own).
_SECURITY_HEADERS: list[tuple[bytes, bytes]] = []
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


def error_bytes(status: int, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 response in the service's error shape, closing the connection."""
    request_id = uuid.uuid4().hex
    body = json.dumps({"error": {"code": code, "message": message, "request_id": request_id}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"x-request-id", request_id.encode()),
        *_SECURITY_HEADERS,
    ]
    head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]) + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    return head + b"\r\n" + body


def head_problem(buffer: bytes, max_bytes: int, max_headers: int) -> str | None:
    """Why the request head at the start of `buffer` (complete or not) is refused, or None."""
    ends = [i for i in (buffer.find(b"\r\n\r\n"), buffer.find(b"\n\n")) if i >= 0]
    head = buffer[: min(ends)] if ends else buffer
    if len(head) > max_bytes:
        return f"the request line and headers are larger than {max_bytes} bytes"
    if head.count(b"\n") > max_headers:  # one line break per header after the request line
        return f"the request has more than {max_headers} headers"
    return None


class EdgeProtocol(H11Protocol):
    """uvicorn's h11 protocol with header limits, read timeouts and JSON errors (see the module doc).

    The limits are class attributes: `edge_protocol(limits)` makes a subclass holding them."""

    max_header_bytes = 16_384
    max_headers = 100
    header_timeout_s = 10.0
    body_timeout_s = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timer: asyncio.TimerHandle | None = None
        self._timer_for: str | None = None  # "head" or "body"

    # -- timers -------------------------------------------------------------------------------
    def _arm(self, what: str, seconds: float) -> None:
        if self._timer_for == what:
            return
        self._disarm()
        self._timer_for = what
        self._read_timer = self.loop.call_later(seconds, self._read_timed_out, what)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
        self._read_timer = None
        self._timer_for = None

    def _read_timed_out(self, what: str) -> None:
        self._read_timer = None
        self._timer_for = None
        if self.transport.is_closing():
            return
        if what == "head":
            if self.conn.their_state is not h11.IDLE:
                return
            if not self.conn.trailing_data[0]:
                self.transport.close()  # an idle connection: nothing was asked, nothing to answer
                return
            self._reject(408, "request_timeout", f"the request headers did not arrive within {self.header_timeout_s:g} s")
        elif self.conn.their_state is h11.SEND_BODY:
            if self.cycle is not None and self.cycle.response_started:
                self.transport.close()  # the app has answered already; just stop waiting
                return
            self._reject(408, "request_timeout", f"the request body did not arrive within {self.body_timeout_s:g} s")

    def _track(self) -> None:
        """Arm the timer that matches where the request is: waiting for its head or for its body."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._arm("body", self.body_timeout_s)
        elif state is h11.IDLE and self.conn.trailing_data[0]:
            self._arm("head", self.header_timeout_s)
        else:
            self._disarm()

    # -- uvicorn's protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("head", self.header_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        self.conn.receive_data(data)
        if self.conn.their_state is h11.IDLE:  # still reading a request head: check it before parsing
            problem = head_problem(self.conn.trailing_data[0], self.max_header_bytes, self.max_headers)
            if problem is not None:
                self._reject(431, "headers_too_large", problem)
                return
        self.handle_events()
        if not self.transport.is_closing():
            self._track()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._track()

    def send_400_response(self, msg: str) -> None:
        self._reject(400, "bad_request", "the request is not valid HTTP/1.1")

    def _reject(self, status: int, code: str, message: str) -> None:
        self._disarm()
        self.transport.write(error_bytes(status, code, message))
        self.transport.close()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()


def edge_protocol(limits) -> type[EdgeProtocol]:
    """An EdgeProtocol class carrying the service's limits (uvicorn instantiates it per connection)."""
    return type(
        "EdgeProtocol",
        (EdgeProtocol,),
        {
            "max_header_bytes": limits.max_header_bytes,
            "max_headers": limits.max_headers,
            "header_timeout_s": limits.header_timeout_s,
            "body_timeout_s": limits.body_timeout_s,
        },
    )


def uvicorn_options(limits) -> dict[str, Any]:
    """How `valid serve` and `LiveServer` run uvicorn: the edge protocol, h11's own buffer bounded by
    the same header limit (it guards pipelined requests), no WebSocket upgrades, and proxy headers
    off at the server (the app applies them, for trusted proxies only)."""
    return {
        "http": edge_protocol(limits),
        "h11_max_incomplete_event_size": limits.max_header_bytes + 1024,
        "ws": "none",  # no WebSocket routes: an upgrade request is served as plain HTTP, never by uvicorn itself
        "proxy_headers": False,
        "server_header": False,
        "access_log": False,
    }


class HeadAsGet:
    """ASGI middleware: a HEAD request is handled as GET and its body dropped (headers kept)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: dict) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def install(app: Any, forwarded_allow_ips: tuple[str, ...], security_headers: list[tuple[bytes, bytes]]) -> None:
    """Add the edge's ASGI middleware to the app (call last: they run outermost)."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    _SECURITY_HEADERS[:] = list(security_headers)
    if forwarded_allow_ips:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(forwarded_allow_ips))
    app.add_middleware(HeadAsGet)
