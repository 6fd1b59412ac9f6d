"""A response cache for LLM calls in sweeps: a re-run or a resumed sweep does not pay twice.

``CachingTransport`` wraps the transport of an ``LLMClient`` (``agents/llm/client.py``): a
request whose key is already in the cache is answered from disk, and the endpoint is not
contacted (the embedded server is not even started); any other request goes to the endpoint,
and its answer is stored. Faults are never stored.

The key is a hash of the whole request body (model, messages, response format with the schema,
temperature, max_tokens, seed) and of where it goes (the endpoint without credentials, or the
embedded model), so two endpoints serving models of one name do not share answers. Entries are
one small JSON file each (``<dir>/<2 hex>/<key>.json``, written to a temporary file and renamed),
so several worker processes can share one cache folder without locks.

Entries are scrubbed of secrets before they are written (``sim.redact``): an endpoint that
echoes the API key leaves no key in the cache. The reply a miss returns is the scrubbed one
that was stored, so a run that asked the endpoint and a run answered from the cache see the
same text.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from sim.inputs import InputError, read_json
from sim.redact import dumps, scrub

CACHE_FORMAT = 1


def request_key(scope: str, body: dict[str, Any]) -> str:
    text = json.dumps({"format": CACHE_FORMAT, "scope": scope, "body": body}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseCache:
    """Replies by request key, in a folder shared by processes."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        if not path.is_file():
            return None
        try:  # the project's strict reader: an entry cut by a crash, or edited, is asked again
            data = read_json(path)
        except InputError:
            return None
        return data.get("reply") if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, reply: dict[str, Any], request: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(dumps({"key": key, "request": request, "reply": reply}, ensure_ascii=False))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.json")) if self.folder.exists() else 0


def settings_scope(settings: Any) -> str:
    """Where a client's requests go, without credentials: part of every key."""
    public = settings.public_dict()
    if settings.uses_embedded:
        return f"embedded:{public.get('model')}:{(public.get('embedded') or {}).get('model_path') or 'default'}"
    return str(public.get("base_url"))


class CachingTransport:
    """A ``Transport`` that answers from a ``ResponseCache`` and otherwise asks ``client``'s own
    transport (obtained only on the first miss, so a fully cached run starts no server)."""

    def __init__(self, cache: ResponseCache, inner_client: Any) -> None:
        self.cache = cache
        self._inner_client = inner_client
        self.scope = settings_scope(inner_client.settings)
        self.endpoint = f"cache:{self.scope}"

    def send(self, body: dict[str, Any], *, agent: str, module: str) -> Any:
        from agents.llm.client import Reply

        key = request_key(self.scope, body)
        hit = self.cache.get(key)
        try:
            cached = Reply.from_dict(hit) if hit is not None else None
        except ValueError:
            cached = None  # not a reply: asked again, and stored over
        if cached is not None:
            with self.cache._lock:
                self.cache.hits += 1
            return Reply(cached.content, cached.finish_reason, cached.model, cached.prompt_tokens,
                         cached.completion_tokens, seconds=0.0)
        reply = self._inner_client.transport.send(body, agent=agent, module=module)  # faults propagate
        with self.cache._lock:
            self.cache.misses += 1
        raw = reply.to_dict()
        stored = scrub(raw)
        self.cache.put(key, stored, body)
        if stored is raw:
            return reply
        clean = Reply.from_dict(stored)  # what a cached run will read back
        return Reply(clean.content, clean.finish_reason, clean.model, clean.prompt_tokens,
                     clean.completion_tokens, seconds=reply.seconds)


def install_cache(minds: list[Any], cache: ResponseCache) -> int:
    """Give every seat or mechanism that talks to a model (an ``LLMClient`` in ``.client``) a
    client whose transport goes through ``cache``; returns how many were wrapped."""
    wrapped = 0
    for mind in minds:
        client = getattr(mind, "client", None)
        if client is None or type(client).__name__ != "LLMClient":
            continue
        from agents.llm.client import LLMClient

        if not isinstance(client, LLMClient) or isinstance(getattr(client, "_transport", None), CachingTransport):
            continue
        mind.client = LLMClient(client.settings, transport=CachingTransport(cache, client))
        wrapped += 1
    return wrapped
