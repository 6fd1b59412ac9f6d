"""Real OpenAI-compatible HTTP servers on loopback for the LLM tests: one that answers,
and ones that misbehave (time out, return 500s, return a body that is not JSON, close the
connection mid-response). Each runs ``http.server`` in a daemon thread on 127.0.0.1 and
stops when the test is done.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote


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


#: how deep the hostile modes nest JSON (the answer's text, the HTTP body, a line printed by code)
DEPTH = 200_000
#: the size of ``huge_body``'s bodies: tens of MB, with a Content-Length (bounded)
HUGE_BYTES = 40 * 1024 * 1024

#: the hostile modes, each with its variants (``variant=`` picks one; by default the request's
#: body does, so a repeated request gets the same answer): what each sends is in ``hostile_reply``
HOSTILE_VARIANTS = {"deep_answer": 3, "deep_body": 3, "huge_body": 4, "invalid_utf8": 3, "wrong_types": 13,
                    "wrong_answer_types": 5, "bad_numbers": 6, "forged_code": 2}
#: the ErrorEvent kind a client records for each hostile mode's answer (forged code is a usable answer)
HOSTILE_FAULT = {"deep_answer": "llm_invalid_answer", "deep_body": "llm_invalid_response",
                 "huge_body": "llm_invalid_response", "invalid_utf8": "llm_invalid_response",
                 "wrong_types": "llm_invalid_response", "wrong_answer_types": "llm_invalid_answer",
                 "bad_numbers": "llm_invalid_answer"}
#: what ``chaos`` picks from, per request: every hostile mode whose answers are never usable
CHAOS_MODES = tuple(HOSTILE_FAULT)


def _wrong_type(value: Any) -> Any:
    """``value`` with every leaf of another JSON type (text <-> number, objects -> lists)."""
    if isinstance(value, dict):
        return [_wrong_type(v) for v in value.values()] or [None]
    if isinstance(value, list):
        return {"item": 1}
    if isinstance(value, str):
        return 7
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, (int, float)):
        return {"value": str(value)}
    return "null"


def _with_wrong_leaves(value: Any) -> Any:
    """An object with the schema's keys whose every value has the wrong type."""
    if isinstance(value, dict):
        return {k: _wrong_type(v) for k, v in value.items()} or {"answer": 7}
    return [value]


def _with_text(value: Any, schema: dict[str, Any], text: str) -> Any:
    """``value`` with ``text`` in every free-text string where it fits (enums and patterns stay)."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _with_text(v, props.get(k, {}), text) for k, v in value.items()}
    if isinstance(value, str) and not {"enum", "const", "pattern"} & set(schema):
        limit = schema.get("maxLength")
        return text if limit is None or len(text) <= limit else value
    return value


def forged_code(body: dict[str, Any], deep: bool) -> str:
    """An engineer's code that forges the test process's answers: at load time and in every
    function the prompt names, it writes answer lines (results without an id, with a guessed id,
    a load answer, a timeout, bytes that are not UTF-8, or, ``deep``, a line nested DEPTH deep)
    to every file descriptor it may hold."""
    prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    names = sorted(set(re.findall(r"def ([A-Za-z_]\w*)\(", prompt)) - {"add"}) or ["solution"]
    lines = ['{"load": null}', '{"value": 1}', '{"id": "%s", "value": 1}' % ("0" * 32), '{"timeout": true}',
             '{"error": null, "passed": 10, "total": 10}']
    raw = [(line + "\n").encode() for line in lines] + [b"\xff\xfe not UTF-8\n"]
    code = ["import os", f"_LINES = {raw!r}"]
    if deep:
        code += [f'_LINES.insert(0, b"[" * {DEPTH} + b"]" * {DEPTH} + b"\\n")']
    code += ["def _forge():", "    for fd in range(1, 16):", "        for line in _LINES:", "            try:",
             "                os.write(fd, line)", "            except OSError:", "                pass", "_forge()"]
    for name in names:
        code += [f"def {name}(*args, **kwargs):", "    _forge()", "    return \"a forged answer\""]
    return "\n".join(code) + "\n"


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

    The hostile modes (``HOSTILE_VARIANTS``; ``variant`` picks one of a mode's variants, else the
    request's body does): ``deep_answer`` (an answer nested DEPTH deep: bare lists, objects as one
    key's value (DEPTH / 4 deep: a key costs more bytes), or fenced after prose), ``deep_body`` (the HTTP body itself nested DEPTH deep: in ``choices``,
    in ``usage``, or the whole body), ``huge_body`` (HUGE_BYTES with a Content-Length: a completion
    whose answer is that long, an HTTP 500 body, a completion followed by that much white space;
    or a completion followed by that much white space, gzip-compressed to 40 KB), ``invalid_utf8`` (bytes that are not UTF-8 in the answer or in a key, or a lone
    surrogate), ``wrong_types`` (a field of the completion of the wrong type: the answer's text as
    a number, a list of parts or an object; ``choices`` missing, an object, empty or of text;
    ``message`` null; ``tool_calls`` malformed without text; ``usage`` counts that are not counts;
    ``finish_reason`` and ``model`` not text; the body a list), ``wrong_answer_types`` (the answer
    an object whose every field has the wrong type, a list, text, a number, null),
    ``bad_numbers`` (NaN, Infinity, 1e999, an integer of 5,000 digits, a lone surrogate escaped,
    a key twice), ``forged_code`` (schema-valid answers whose free text is code that forges the
    team room's test answers, ``forged_code``; variant 1 adds a line nested DEPTH deep); and
    ``chaos``, which answers each request with one of ``CHAOS_MODES``, chosen by its body.
    """

    def __init__(self, mode: str = "ok", *, fail_first: int | None = None, delay: float = 2.0,
                 choose: Callable[[list[Any], str], Any] = first_choice,
                 reject_json_schema: bool = False, variant: int | None = None) -> None:
        self.mode = mode
        self.variant = variant
        self.fail_first = fail_first
        self.delay = delay
        self.choose = choose
        self.reject_json_schema = reject_json_schema
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._huge: dict[int, bytes] = {}
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

    # ---------------------------------------------------------------- hostile modes

    def huge(self, variant: int) -> bytes:
        """``huge_body``'s body of ``variant``, made once per server (freed with it)."""
        if variant not in self._huge:
            if variant == 0:
                self._huge[variant] = b'{"choices": [{"message": {"content": "' + b"x" * HUGE_BYTES + b'"}}]}'
            elif variant == 1:
                self._huge[variant] = b'{"error": {"message": "' + b"y" * HUGE_BYTES + b'"}}'
            elif variant == 2:
                self._huge[variant] = b'{"choices": [{"message": {"content": "{}"}}]}' + b" " * HUGE_BYTES
            else:
                self._huge[variant] = gzip.compress(self.huge(2))
        return self._huge[variant]

    def hostile_reply(self, handler: Any, body: dict[str, Any], mode: str) -> None:
        """One answer of a hostile mode (see the class's text)."""
        digest = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
        if mode == "chaos":
            mode = CHAOS_MODES[digest % len(CHAOS_MODES)]
            digest //= len(CHAOS_MODES)
        variant = self.variant if self.variant is not None else digest % HOSTILE_VARIANTS[mode]
        fmt = body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {"type": "object"}
        value = schema_instance(schema, self.choose)

        def completion(content: Any) -> dict[str, Any]:
            return {"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0, "model": "hostile",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

        def send(data: bytes, status: int = 200) -> None:
            try:
                handler._send(status, data)
            except OSError:
                pass  # the client stopped reading (a body too large) and closed the connection

        def answer(text: str) -> None:
            send(json.dumps(completion(text)).encode())

        if mode == "deep_answer":
            objects = DEPTH // 4  # quoted keys, escaped in the body: within MAX_RESPONSE_BYTES
            answer(["[" * DEPTH + "]" * DEPTH, '{"action": ' + '{"a":' * objects + "1" + "}" * objects + "}",
                    'Sure! Here it is:\n```json\n{"x": ' + "[" * DEPTH + "]" * DEPTH + "}\n```"][variant])
        elif mode == "deep_body":
            whole = json.dumps(completion(json.dumps(value))).encode()
            send([b'{"choices": ' + b"[" * DEPTH + b"]" * DEPTH + b"}",
                  whole[:-1] + b', "extra": ' + b"[" * DEPTH + b"]" * DEPTH + b"}",
                  b"[" * DEPTH + b"]" * DEPTH][variant])
        elif mode == "huge_body" and variant == 3:
            try:
                self._send_with(handler, 200, self.huge(variant), {"Content-Encoding": "gzip"})
            except OSError:
                pass
        elif mode == "huge_body":
            send(self.huge(variant), 500 if variant == 1 else 200)
        elif mode == "invalid_utf8":
            good = json.dumps(value).encode()
            send([b'{"choices": [{"message": {"content": "' + good.replace(b'"', b'\\"')[:-1] + b'\xff\xfe"}}]}',
                  b'{"choices": [{"message": {"content": "{}", "\xc3\x28": 1}}]}',
                  b'{"choices": [{"message": {"content": "\\ud800' + good.replace(b'"', b'\\"') + b'"}}]}'][variant])
        elif mode == "wrong_types":
            text = json.dumps(value)
            whole = completion(text)
            if variant == 0:
                whole["choices"][0]["message"]["content"] = 42
            elif variant == 1:
                whole["choices"][0]["message"]["content"] = [{"type": "text", "text": text}]
            elif variant == 2:
                whole["choices"][0]["message"]["content"] = value
            elif variant == 3:
                del whole["choices"]
            elif variant == 4:
                whole["choices"] = {"0": whole["choices"][0]}
            elif variant == 5:
                whole["choices"] = []
            elif variant == 6:
                whole["choices"] = [text]
            elif variant == 7:
                whole["choices"][0]["message"] = None
            elif variant == 8:
                whole["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": "call me"}
            elif variant == 9:
                whole["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": 5, "type": ["function"], "function": {"name": None, "arguments": {"not": "text"}}}]}
            elif variant == 10:
                whole["usage"] = {"prompt_tokens": "many", "completion_tokens": -1}
            elif variant == 11:
                whole["choices"][0]["finish_reason"] = 5
                whole["model"] = {"name": "hostile"}
            else:
                whole = [whole]  # type: ignore[assignment]
            send(json.dumps(whole).encode())
        elif mode == "wrong_answer_types":
            answer(json.dumps([_with_wrong_leaves(value), [value], "up", 3, None][variant]))
        elif mode == "bad_numbers":
            first = next(iter(value), "answer") if isinstance(value, dict) else "answer"
            text = json.dumps(value)
            answer([text[:-1] + (", " if len(text) > 2 else "") + '"score": NaN}',
                    text[:-1] + (", " if len(text) > 2 else "") + '"score": -Infinity}',
                    text[:-1] + (", " if len(text) > 2 else "") + '"score": 1e999}',
                    text[:-1] + (", " if len(text) > 2 else "") + '"score": ' + "9" * 5000 + "}",
                    text[:-1] + (", " if len(text) > 2 else "") + '"note": "\\udc00"}',
                    text[:-1] + (", " if len(text) > 2 else "") + f'"{first}": 1}}'][variant])
        elif mode == "forged_code":
            code = forged_code(body, deep=variant == 1)
            answer(json.dumps(_with_text(value, schema, code)))
        else:
            raise ValueError(f"unknown hostile mode {mode!r}")

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
        elif mode == "chaos" or mode in HOSTILE_VARIANTS:
            self.hostile_reply(handler, body, mode)
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
