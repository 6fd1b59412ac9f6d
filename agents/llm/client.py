"""The one way ToM Arena talks to a language model: schema-checked JSON answers, with
timeouts, retries, repairs, token accounting and a recorded transcript.

Layers:

- a *transport* sends one chat request and returns the model's text or raises a
  ``TransportFault`` (``OpenAITransport`` over the ``openai`` package; ``TranscriptTransport``
  in ``agents.llm.transcript`` serves a recording instead);
- ``LLMClient.ask_json`` builds the request (structured output where the endpoint has it),
  retries transient faults with exponential backoff, parses and validates the answer
  against a JSON schema, re-asks with the validation error a bounded number of times, and
  returns a ``CallOutcome``: the value (or the failure) together with the Events that
  describe every attempt (one ``LLMCallEvent`` each, an ``ErrorEvent`` per fault).

The client never emits Events itself: the caller emits them on the Session's thread,
which keeps the Session single-threaded even when the call ran in a worker thread.
Requests are recorded without headers, so the API key never reaches a recording; any
text that comes back (error bodies included) is scrubbed of the key as well.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import jsonschema

from agents.llm.config import LLMSettings, public_url
from sim.events import ErrorEvent, Event, LLMCallEvent
from sim.inputs import parse_json
from sim.redact import REDACTED, scrub_text

log = logging.getLogger("tom_arena.llm")

#: how structured output degrades when an endpoint rejects a response_format (HTTP 400)
DEGRADE = {"json_schema": "json_object", "json_object": "none"}


# ---------------------------------------------------------------------- transport


@dataclass(frozen=True, slots=True)
class Reply:
    """A model's answer to one request."""

    content: str
    finish_reason: str | None = None
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float | None = None  # set by transports that know better than the wall clock (replay)

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "finish_reason": self.finish_reason, "model": self.model,
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}}

    @classmethod
    def from_dict(cls, d: Any) -> "Reply":
        """A recorded or cached reply (``to_dict``'s form); ``ValueError`` naming the field when
        ``d`` is not one."""
        if not isinstance(d, Mapping):
            raise ValueError(f"a reply must be an object, not {_json_type(d)}")
        content = d.get("content")
        return make_reply("" if content is None else content, d.get("finish_reason"), d.get("model"), d.get("usage"),
                          ValueError)


def _json_type(value: Any) -> str:
    """What a JSON value is, in words (for messages about answers of the wrong type)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {str: "text", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__)


def _tokens(usage: Mapping[str, Any], name: str, error: Callable[[str], Exception]) -> int:
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise error(f"usage.{name} is {_json_type(value)} ({str(value)[:40]}), not a count of tokens")
    return value


def make_reply(content: Any, finish_reason: Any, model: Any, usage: Any,
               error: Callable[[str], Exception]) -> Reply:
    """A ``Reply`` from the fields of a completion, each of the type it must have; ``error``
    naming the first field that is not."""
    if not isinstance(content, str):
        raise error(f"the answer has no text content (message.content is {_json_type(content)})")
    for name, value in (("finish_reason", finish_reason), ("model", model)):
        if value is not None and not isinstance(value, str):
            raise error(f"{name} is {_json_type(value)}, not text")
    if usage is None:
        usage = {}
    if not isinstance(usage, Mapping):
        raise error(f"usage is {_json_type(usage)}, not an object")
    return Reply(content=content, finish_reason=finish_reason, model=model,
                 prompt_tokens=_tokens(usage, "prompt_tokens", error),
                 completion_tokens=_tokens(usage, "completion_tokens", error))


class TransportFault(Exception):
    """One request that produced no usable answer.

    ``kind``: timeout | connection | http_status | invalid_response | rejected_format.
    """

    def __init__(self, kind: str, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retryable = retryable

    def describe(self) -> str:
        return f"{self.kind}: {self.message}"


class Transport(Protocol):
    #: where requests go, without credentials (recorded with each call)
    endpoint: str

    def send(self, body: dict[str, Any], *, agent: str, module: str) -> Reply:
        """Send one chat-completions request body; raise ``TransportFault`` on any fault."""


def _short(text: str, limit: int = 300) -> str:
    text = scrub_text(" ".join(text.split()))  # before cutting: a cut must not leave half a key
    return text if len(text) <= limit else text[:limit] + "..."


#: the largest response body read from an endpoint, as sent: a chat completion is far smaller (an
#: answer of max_tokens = 32,768 tokens is about 130 KB); a larger one is refused unread
MAX_RESPONSE_BYTES = 1024 * 1024


class ResponseRefused(Exception):
    """A response body refused before it was read whole: larger than ``MAX_RESPONSE_BYTES``, or
    compressed (so that its size once decoded is unknown)."""


def _bounded_client(timeout: float) -> Any:
    """The HTTP client of ``OpenAITransport``: the ``openai`` package's own (``httpx2``, with the
    package's connection limits), whose responses are read at most ``MAX_RESPONSE_BYTES`` far (answers
    and error bodies alike; a declared ``Content-Length`` beyond it is refused before reading).
    It asks for bodies without compression and refuses a compressed one, so the bound holds for
    what is decoded too."""
    import httpx2
    import openai

    class Bounded(httpx2.SyncByteStream):
        def __init__(self, stream: Any) -> None:
            self.stream = stream

        def __iter__(self) -> Any:
            seen = 0
            for chunk in self.stream:
                seen += len(chunk)
                if seen > MAX_RESPONSE_BYTES:
                    raise ResponseRefused(f"the response body is larger than {MAX_RESPONSE_BYTES:,} bytes")
                yield chunk

        def close(self) -> None:
            self.stream.close()

    class BoundedClient(httpx2.Client):
        def send(self, request: Any, *, stream: bool = False, **kwargs: Any) -> Any:
            response = super().send(request, stream=True, **kwargs)
            declared = response.headers.get("content-length", "")
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
                response.close()
                raise ResponseRefused(f"the response body is larger than {MAX_RESPONSE_BYTES:,} bytes "
                                      f"(Content-Length: {int(declared):,})")
            if encoding not in ("", "identity"):
                response.close()
                raise ResponseRefused(f"the response body is compressed ({_short(encoding, 40)}) although none was "
                                      "asked for; its size once decoded cannot be bounded")
            response.stream = Bounded(response.stream)
            if not stream:
                try:
                    response.read()
                finally:
                    response.close()
            return response

    return BoundedClient(timeout=timeout, limits=openai.DEFAULT_CONNECTION_LIMITS, follow_redirects=True,
                         headers={"Accept-Encoding": "identity"})


class OpenAITransport:
    """Chat completions through the ``openai`` package (its own retries off: we retry and record)."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        import openai

        self.endpoint = public_url(base_url)
        self.timeout = timeout
        # Local servers need no key, but the package insists on one.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "no-key", timeout=timeout,
                                     max_retries=0, http_client=_bounded_client(timeout))
        self._openai = openai

    def send(self, body: dict[str, Any], *, agent: str, module: str) -> Reply:
        openai = self._openai
        standard = {k: body[k] for k in ("model", "messages", "temperature", "max_tokens") if k in body}
        extra = {k: v for k, v in body.items() if k not in standard}
        try:
            raw = self._client.chat.completions.with_raw_response.create(**standard, extra_body=extra or None)
            data = raw.http_response.content
        except ResponseRefused as exc:
            raise TransportFault("invalid_response", str(exc), retryable=True) from None
        except openai.APITimeoutError:
            raise TransportFault("timeout", f"no answer within {self.timeout:g} s", retryable=True) from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise TransportFault("connection", f"{type(cause).__name__}: {_short(str(cause)) or 'connection failed'}",
                                 retryable=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            detail = _short(exc.response.text if exc.response is not None else str(exc))
            if status == 400 and "response_format" in body and (
                    "response_format" in detail or "json_schema" in detail or "schema" in detail):
                raise TransportFault("rejected_format", f"HTTP 400: {detail}", status=status) from None
            raise TransportFault("http_status", f"HTTP {status}: {detail}", status=status,
                                 retryable=status == 429 or status >= 500) from None
        except Exception as exc:  # the package may raise its own decoding errors
            raise TransportFault("invalid_response", f"{type(exc).__name__}: {_short(str(exc))}",
                                 retryable=True) from None
        return parse_completion(data)


class SlotTransport:
    """Chat completions spread over the slots of an embedded ``EmbeddedPool``: each request
    goes to a free slot (the one this transport used last when it is free), and waits while
    every slot answers. Every slot serves the same model with the same settings, so which slot
    answers does not change the request, and the endpoint recorded with it names them all."""

    def __init__(self, pool: Any, timeout: float) -> None:
        self.pool = pool
        self.timeout = timeout
        self.endpoint = " ".join(pool.base_urls)
        self._transports: dict[str, OpenAITransport] = {}
        self._last: int | None = None
        self._lock = threading.Lock()

    def send(self, body: dict[str, Any], *, agent: str, module: str) -> Reply:
        with self.pool.slot(self._last) as (index, server):
            self._last = index
            try:
                url = server.base_url
            except Exception as exc:  # the slot was stopped (the program is closing)
                raise TransportFault("connection", f"slot {index + 1} of {len(self.pool)} does not run: {exc}",
                                     retryable=True) from None
            with self._lock:
                transport = self._transports.get(url)
                if transport is None:
                    transport = self._transports[url] = OpenAITransport(url, None, self.timeout)
            return transport.send(body, agent=agent, module=module)


def parse_completion(body: bytes | str) -> Reply:
    """A chat-completions response body -> Reply, or ``TransportFault('invalid_response')``.

    The body is read by the project's strict reader (``sim.inputs.parse_json``: UTF-8, nesting
    at most ``MAX_DEPTH`` deep, no duplicate keys, no NaN, no over-long integers), and every
    field used must have its type; whatever else the body holds (tool calls, ids) is not read."""
    def unreadable(problem: str) -> TransportFault:
        return TransportFault("invalid_response", problem, retryable=True)

    def bad(problem: str) -> TransportFault:
        return unreadable(f"the response body is not a chat completion: {problem}")

    data = parse_json(body, "the response body", unreadable, kind="chat completion")
    if not isinstance(data, dict):
        raise bad(f"it is {_json_type(data)}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise bad(f"choices is {_json_type(choices)}, not a list of at least one choice")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise bad(f"choices[0] is {_json_type(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise bad(f"choices[0].message is {_json_type(message)}, not an object")
    return make_reply(message.get("content"), choice.get("finish_reason"), data.get("model"), data.get("usage"), bad)


# ---------------------------------------------------------------------- answers


class AnswerError(ValueError):
    """A model's answer that is not JSON ToM Arena reads; the message says where and why."""


def extract_json(text: str, source: str = "the answer") -> Any:
    """Parse a JSON answer, forgiving code fences, prose around one object, and raw control
    characters (newlines, tabs) inside strings, which llama.cpp's JSON grammar lets through.

    Otherwise as strict as every input: the project's reader (``sim.inputs.parse_json``)
    refuses nesting deeper than ``MAX_DEPTH``, duplicate keys, NaN and infinities, over-long
    integers and lone surrogates, each as one ``AnswerError`` naming where; nothing a model
    writes raises anything else."""
    text = text.strip()
    if len(text) >= 6 and text.startswith("```") and text.endswith("```"):
        text = text[3:-3]
        text = (text[4:] if text.startswith("json") else text).strip()
    try:
        return parse_json(text, source, AnswerError, control_characters=True)
    except AnswerError:
        start, end = text.find("{"), text.rfind("}")
        if start >= 0 and end > start and (start, end) != (0, len(text) - 1):
            return parse_json(text[start:end + 1], source, AnswerError, control_characters=True)
        raise


def validation_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """None when ``value`` follows ``schema``, else the first problem in words."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.absolute_path) or "the answer"
    return f"{where}: {_short(err.message, 240)}"


def strict_schema(schema: Any) -> Any:
    """``schema`` without the keywords OpenAI's strict mode refuses (string lengths)."""
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in ("maxLength", "minLength")}
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    return schema


@dataclass
class CallOutcome:
    """What one ``ask_json`` produced: the value or the failure, and the Events to emit."""

    value: dict[str, Any] | None
    events: list[Event] = field(default_factory=list)
    failure: str | None = None
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.value is not None


# ---------------------------------------------------------------------- tokens


class TokenLedger:
    """Prompt and completion tokens per agent and module (planning, messaging, beliefs...)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.usage: dict[str, dict[str, dict[str, int]]] = defaultdict(
            lambda: defaultdict(lambda: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}))

    def add(self, agent: str, module: str, prompt: int, completion: int) -> None:
        with self._lock:
            entry = self.usage[agent][module]
            entry["calls"] += 1
            entry["prompt_tokens"] += prompt
            entry["completion_tokens"] += completion

    def as_dict(self) -> dict[str, dict[str, dict[str, int]]]:
        with self._lock:
            return {a: {m: dict(v) for m, v in mods.items()} for a, mods in self.usage.items()}


def token_usage(events: Sequence[Event]) -> dict[str, dict[str, dict[str, int]]]:
    """Tokens per agent and module from an episode's LLMCallEvents (live or recorded)."""
    ledger = TokenLedger()
    for e in events:
        if isinstance(e, LLMCallEvent):
            ledger.add(e.agent, e.module, e.prompt_tokens, e.completion_tokens)
    return ledger.as_dict()


# ---------------------------------------------------------------------- client


#: longest string bound sent to a server that turns the schema into a grammar (llama.cpp): its
#: grammar compiler refuses bounds of about 1,000 characters and more, and its server then dies
GRAMMAR_MAX_LENGTH = 500


def grammar_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` for ``json_object`` mode: string bounds above ``GRAMMAR_MAX_LENGTH`` left out
    (the answer is still checked against the whole schema here, and a too-long one repaired)."""
    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {k: walk(v) for k, v in node.items()
                    if not (k == "maxLength" and isinstance(v, int) and v > GRAMMAR_MAX_LENGTH)}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return walk(schema)


class LLMClient:
    """Schema-checked JSON answers from any OpenAI-compatible endpoint.

    ``transport`` defaults to the endpoint of ``settings`` (the embedded server, started
    on first use, when no base URL is set). ``sleep`` is how backoff waits.
    """

    def __init__(self, settings: LLMSettings, *, transport: Transport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self._transport = transport
        self._sleep = sleep
        self._lock = threading.Lock()
        self._mode: str | None = None
        self._server: Any = None  # the embedded server behind the transport, when it is one
        self.ledger = TokenLedger()
        self._secrets = [s for s in (settings.api_key_value(),) if s]

    # -------------------------------------------------------------- endpoint

    @property
    def transport(self) -> Transport:
        with self._lock:
            # A stopped embedded server (the app closed it, or it crashed) is started again.
            if self._transport is None or (self._server is not None and not self._server.running):
                self._transport = self._connect()
            return self._transport

    def _connect(self) -> Transport:
        settings = self.settings
        if settings.uses_embedded:
            from agents.llm.server import shared_pool

            self._server = shared_pool(settings.embedded)
            self._server.start()
            if len(self._server) == 1:
                return OpenAITransport(self._server.base_url, None, settings.timeout)
            return SlotTransport(self._server, settings.timeout)
        return OpenAITransport(settings.base_url or "", settings.api_key_value(), settings.timeout)

    def structured_mode(self) -> str:
        if self._mode is None:
            mode = self.settings.structured_output
            if mode == "auto":
                # llama.cpp servers refuse json_schema but constrain json_object to a schema.
                mode = "json_object" if self.settings.uses_embedded else "json_schema"
            self._mode = mode
        return self._mode

    def describe(self) -> dict[str, Any]:
        return self.settings.public_dict()

    # -------------------------------------------------------------- calls

    def request_body(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any], *,
                     schema_name: str, mode: str, seed: int | None) -> dict[str, Any]:
        s = self.settings
        if s.uses_embedded and s.embedded.chat_format == "gemma":
            messages = fold_system(messages)
        body: dict[str, Any] = {"model": s.model_name, "messages": [dict(m) for m in messages],
                                "temperature": s.temperature, "max_tokens": s.max_tokens}
        if mode == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema_name, "schema": strict_schema(schema), "strict": True}}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": grammar_schema(schema)}
        if s.send_seed and seed is not None:
            body["seed"] = int(seed)
        return body

    def ask_json(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any], *,
                 agent: str, module: str, tick: int, schema_name: str = "answer",
                 seed: int | None = None,
                 check: Callable[[dict[str, Any]], str | None] | None = None) -> CallOutcome:
        """Ask until an answer is valid JSON for ``schema`` (and passes ``check``), within the
        retry and repair budgets. Never raises for model or network faults."""
        outcome = CallOutcome(value=None)
        conversation = [dict(m) for m in messages]
        retries = repairs = 0
        try:
            transport = self.transport
        except Exception as exc:  # the embedded server could not start
            message = self.scrub(f"{type(exc).__name__}: {exc}")
            outcome.events.append(ErrorEvent(tick=tick, source=agent, kind="llm_unavailable", message=message))
            outcome.failure = message
            return outcome
        recorded_mode = getattr(transport, "recorded_mode", None)
        while True:
            mode = self.structured_mode()
            if recorded_mode is not None:  # a transcript replays the mode the original call used
                mode = recorded_mode(agent, module) or mode
            body = self.request_body(conversation, schema, schema_name=schema_name, mode=mode, seed=seed)
            outcome.attempts += 1
            request = {"endpoint": transport.endpoint, "mode": mode, "attempt": outcome.attempts, "body": body}
            started = time.perf_counter()
            try:
                reply = transport.send(body, agent=agent, module=module)
            except TransportFault as fault:
                seconds = getattr(fault, "seconds", None)
                seconds = time.perf_counter() - started if seconds is None else seconds
                message = self.scrub(fault.describe())
                crashed = self._server.crash_report() if self._server is not None else None
                if crashed:  # a dead server answers no retry; say why it died
                    message = f"{message.rstrip('.')}: {crashed}"
                fault_info = {"fault": {"kind": fault.kind, "status": fault.status, "retryable": fault.retryable}}
                outcome.events.append(LLMCallEvent(tick=tick, agent=agent, module=module, request=request,
                                                   response=fault_info, seconds=round(seconds, 4), error=message))
                outcome.events.append(ErrorEvent(tick=tick, source=agent, kind=f"llm_{fault.kind}",
                                                 message=f"{module} call {outcome.attempts}: {message}"))
                log.info("%s/%s: %s", agent, module, message)
                if fault.kind == "rejected_format" and mode in DEGRADE:
                    self._mode = DEGRADE[mode]  # remember: this endpoint lacks that mode
                    continue
                if fault.retryable and not crashed and retries < self.settings.max_retries:
                    self._sleep(self.settings.backoff * 2 ** retries)
                    retries += 1
                    continue
                outcome.failure = message
                return outcome
            seconds = time.perf_counter() - started if reply.seconds is None else reply.seconds
            response = reply.to_dict()
            response["content"] = self.scrub(response["content"])
            outcome.events.append(LLMCallEvent(
                tick=tick, agent=agent, module=module, request=request, response=response,
                prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                seconds=round(seconds, 4)))
            self.ledger.add(agent, module, reply.prompt_tokens, reply.completion_tokens)
            try:  # the scrubbed text: what a recording, a transcript re-run and the cache hold
                value = extract_json(response["content"])
                problem = (validation_problem(value, schema) if isinstance(value, dict)
                           else f"the answer must be a JSON object, not {_json_type(value)}")
            except AnswerError as exc:
                value, problem = None, str(exc)
            if problem is None and check is not None:
                problem = check(value)
            if problem is None:
                outcome.value = value
                return outcome
            if reply.finish_reason == "length":
                problem += f" (the answer was cut off at max_tokens={self.settings.max_tokens})"
            message = self.scrub(problem)
            outcome.events.append(ErrorEvent(tick=tick, source=agent, kind="llm_invalid_answer",
                                             message=f"{module} call {outcome.attempts}: {message}"))
            if repairs >= self.settings.repair_attempts:
                outcome.failure = message
                return outcome
            repairs += 1
            # The reply goes back scrubbed: the next request is recorded too.
            conversation += [{"role": "assistant", "content": response["content"]},
                             {"role": "user", "content": repair_prompt(message)}]

    def scrub(self, text: str) -> str:
        """``text`` without any secret (this client's key and any other registered one)."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return scrub_text(text)


def fold_system(messages: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """``messages`` for a chat template without a system role (Gemma's): the system messages
    lead the first user message, as Gemma's own template places them. llama.cpp's ``gemma``
    format would otherwise drop them unread. The system text stays first, so prompts that share
    it share a prefix, which the server evaluates once and reuses."""
    system = [m["content"] for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    lead = "\n\n".join(system)
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{lead}\n\n{m['content']}"
            return rest
    return [{"role": "user", "content": lead}] + rest


def repair_prompt(problem: str) -> str:
    return (f"That answer cannot be used: {problem}. Answer again with only the JSON object, "
            "following the format exactly.")
