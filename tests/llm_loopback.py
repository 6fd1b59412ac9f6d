"""Real OpenAI-compatible HTTP servers on loopback for the LLM tests: one that answers,
and ones that misbehave (time out, return 500s, return a body that is not JSON, close the
connection mid-response). Each runs ``http.server`` in a daemon thread on 127.0.0.1 and
stops when the test is done.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Callable
from urllib.parse import quote
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def schema_instance(schema: dict[str, Any], choose: Callable[[list[Any], str], Any], path: str = "") -> Any:
    """A value that follows ``schema`` (objects, enums, strings, numbers)."""
    if "enum" in schema:
        return choose(list(schema["enum"]), path)
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: schema_instance(sub, choose, f"{path}/{name}") for name, sub in props.items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return 0
    if kind == "boolean":
        return False
    return f"text for {path.rsplit('/', 1)[-1] or 'answer'}"


def first_choice(options: list[Any], path: str) -> Any:
    return options[0]


def _with_key(value: Any, schema: dict[str, Any], key: str) -> Any:
    """``value`` with ``key`` appended to every free-text string (enums and patterns stay valid)."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _with_key(v, props.get(k, {}), key) for k, v in value.items()}
    if isinstance(value, str) and "enum" not in schema and "const" not in schema and "pattern" not in schema:
        limit = schema.get("maxLength")
        text = f"{value} {key}"
        return text if limit is None or len(text) <= limit else text[: max(0, int(limit))]
    return value


def echoed_forms(secret: str) -> list[str]:
    """How a hostile endpoint sends ``secret`` back: as it is, reversed, base64 (standard and
    URL-safe, padded or not, after 0, 1 or 2 other bytes), percent-encoded and hex."""
    raw = secret.encode()
    forms = [secret, secret[::-1], quote(secret, safe=""), "".join(f"%{b:02X}" for b in raw), raw.hex()]
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(prefix + raw).decode()
            forms += [text, text.rstrip("=")]
    return forms


def received_secrets(headers: Any) -> list[str]:
    """The credentials a request carried: a Bearer key, or a Basic user name and password (and
    the header value itself)."""
    auth = str(headers.get("Authorization", "")).strip()
    kind, _, value = auth.partition(" ")
    if kind.lower() == "bearer" and value:
        return [value]
    if kind.lower() == "basic" and value:
        user, _, password = base64.b64decode(value).decode("utf-8", "replace").partition(":")
        return [s for s in (password, user, f"{user}:{password}", value) if s]
    return []


def _with_forms(value: Any, schema: dict[str, Any], forms: list[str], counter: Any) -> Any:
    """``value`` with the next of ``forms`` in every free-text string where it fits (enums and
    patterns stay valid)."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _with_forms(v, props.get(k, {}), forms, counter) for k, v in value.items()}
    if isinstance(value, str) and "enum" not in schema and "const" not in schema and "pattern" not in schema:
        form = forms[next(counter) % len(forms)]
        limit = schema.get("maxLength")
        for text in (f"{value} {form}", form):
            if limit is None or len(text) <= limit:
                return text
    return value


class LoopbackLLM:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 with a chosen behaviour.

    ``mode``: ``ok`` (answers a schema-valid JSON object), ``timeout`` (answers after
    ``delay`` seconds), ``error500`` (HTTP 500 whose body echoes the request headers),
    ``invalid_json`` (HTTP 200 with a body that is not JSON), ``drop`` (closes the
    connection halfway through the body), ``not_json_answer`` (a completion whose text is
    not JSON), ``echo_key`` (a hostile endpoint that sends the caller's API key back in every
    field it can: in turn an error body cut in the middle of the key, a non-JSON answer
    quoting it, then schema-valid answers with the key in every free-text field, in the tool
    call arguments, in the model name and in a response header), ``hostile`` (every credential
    the request carried, Bearer key or Basic user-info, sent back in each form of
    ``echoed_forms`` in every field: free-text answer fields, completion id, model name, tool
    calls, non-JSON answers, HTTP 500 error bodies and response headers; which of these a request
    gets depends only on its body, so a repeated request gets the same answer). ``fail_first``
    makes only the first N requests misbehave, then answers ok.
    """

    def __init__(self, mode: str = "ok", *, fail_first: int | None = None, delay: float = 2.0,
                 choose: Callable[[list[Any], str], Any] = first_choice,
                 reject_json_schema: bool = False) -> None:
        self.mode = mode
        self.fail_first = fail_first
        self.delay = delay
        self.choose = choose
        self.reject_json_schema = reject_json_schema
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, json.dumps({"object": "list", "data": [{"id": "loopback"}]}).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    outer.headers.append(dict(self.headers.items()))
                    number = len(outer.requests)
                outer.handle(self, body, number)

            def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name=f"loopback-{mode}", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> "LoopbackLLM":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def __enter__(self) -> "LoopbackLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- behaviour

    def completion(self, body: dict[str, Any], content: str) -> bytes:
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        return json.dumps({
            "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": max(1, len(content) // 4),
                      "total_tokens": prompt_words + max(1, len(content) // 4)}}).encode()

    def answer(self, body: dict[str, Any]) -> str:
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        if schema is None:
            return "{}"
        return json.dumps(schema_instance(schema, self.choose))

    def echo_key(self, handler: Any, body: dict[str, Any], number: int) -> None:
        key = str(handler.headers.get("Authorization", "")).removeprefix("Bearer ").strip()
        phase = number % 3
        if phase == 1:  # an error body whose detail is long enough to be cut inside the key
            padding = "x" * (300 - 40)
            handler._send(500, json.dumps({"error": {"message": f"{padding} key {key} rejected"}}).encode())
            return
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        if phase == 2:  # an answer that is not JSON and quotes the key: the repair re-ask sends it back
            content = f"I cannot answer, your key {key} is wrong"
        else:
            value = schema_instance(schema or {"type": "object"}, self.choose)
            content = json.dumps(_with_key(value, schema or {}, key))
        completion = json.loads(self.completion(body, content))
        completion["model"] = f"model-for-{key}"
        completion["choices"][0]["message"]["tool_calls"] = [{
            "id": f"call-{key}", "type": "function",
            "function": {"name": "echo", "arguments": json.dumps({"key": key})}}]
        data = json.dumps(completion).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("X-Echoed-Key", key)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def hostile(self, handler: Any, body: dict[str, Any]) -> None:
        secrets = received_secrets(handler.headers)
        forms = [f for secret in secrets for f in echoed_forms(secret)] or ["no-credentials"]
        digest = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
        phase, start = digest % 4, digest // 4
        every = " ".join(forms)
        headers = {"X-Echoed-Key": secrets[0] if secrets else "",
                   "X-Echoed-Authorization": str(handler.headers.get("Authorization", "")),
                   "X-Echoed-Forms": every}
        if phase == 0:  # an error whose body holds every form, twice (before and after a long detail)
            data = json.dumps({"error": {"message": f"{every} rejected {'x' * 200} {every}", "type": every,
                                         "code": forms[start % len(forms)], "headers": dict(handler.headers)}})
            self._send_with(handler, 500, data.encode(), headers)
            return
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {"type": "object"}
        if phase == 1:  # not JSON, quoting every form (the client's repair re-ask sends it back)
            content = f"I will not answer. Your credentials: {every}"
        else:
            counter = iter(range(start, start + 1_000_000))
            content = json.dumps(_with_forms(schema_instance(schema, self.choose), schema, forms, counter))
        completion = json.loads(self.completion(body, content))
        completion["id"] = f"chatcmpl-{forms[start % len(forms)]}"
        completion["model"] = f"model-{forms[(start + 1) % len(forms)]}"
        completion["system_fingerprint"] = every
        completion["choices"][0]["message"]["tool_calls"] = [{
            "id": f"call-{form}", "type": "function",
            "function": {"name": "echo", "arguments": json.dumps({"secret": form})}} for form in forms]
        self._send_with(handler, 200, json.dumps(completion).encode(), headers)

    @staticmethod
    def _send_with(handler: Any, status: int, data: bytes, headers: dict[str, str]) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def handle(self, handler: Any, body: dict[str, Any], number: int) -> None:
        fmt = (body.get("response_format") or {}).get("type")
        if self.reject_json_schema and fmt == "json_schema":
            handler._send(400, json.dumps({"error": {"message": "response_format json_schema is not supported",
                                                     "type": "invalid_request_error"}}).encode())
            return
        misbehave = self.fail_first is None or number <= self.fail_first
        mode = self.mode if misbehave else "ok"
        if mode == "ok":
            handler._send(200, self.completion(body, self.answer(body)))
        elif mode == "not_json_answer":
            handler._send(200, self.completion(body, "I think I should go up."))
        elif mode == "timeout":
            self._stopping.wait(self.delay)  # longer than the client waits
            try:
                handler._send(200, self.completion(body, self.answer(body)))
            except OSError:
                pass  # the client gave up and closed the connection
        elif mode == "echo_key":
            self.echo_key(handler, body, number)
        elif mode == "hostile":
            self.hostile(handler, body)
        elif mode == "error500":
            echo = json.dumps({"error": {"message": "internal error", "request_headers": dict(handler.headers.items())}})
            handler._send(500, echo.encode())
        elif mode == "invalid_json":
            handler._send(200, b'{"choices": [ {"message": {"content": "not closed')
        elif mode == "drop":
            data = self.completion(body, self.answer(body))
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            handler.connection.shutdown(2)
        else:
            raise ValueError(f"unknown loopback mode {mode!r}")
