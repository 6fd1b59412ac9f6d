"""Secrets (API keys) never reach a recording, a view, a report or a log.

Whatever holds a secret registers it here (the LLM layer does so for every key it is
given). Every Event passes through ``Session.emit``, which scrubs it with
``scrub_event``; log records are scrubbed by a record factory installed on first
registration. A scrubbed secret reads ``[redacted]``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any

REDACTED = "[redacted]"
#: shorter strings are not treated as secrets (they would redact ordinary words)
MIN_SECRET_LENGTH = 8

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()
_factory_installed = False


def register_secret(value: str | None) -> None:
    """Scrub ``value`` from every event and log record from now on."""
    global _secrets
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _secrets:
            # Longest first, so that a key containing another key is scrubbed whole.
            _secrets = tuple(sorted((*_secrets, value), key=len, reverse=True))
        _install_log_scrubber()


def secrets_registered() -> bool:
    return bool(_secrets)


def scrub_text(text: str) -> str:
    """``text`` with every registered secret replaced, and any piece of one that a cut left at
    either end (a truncated error body ending in ``sk-abc...``) replaced too."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
        for n in range(len(secret) - 1, MIN_SECRET_LENGTH - 1, -1):
            if text.endswith(secret[:n]):
                text = text[:-n] + REDACTED
                break
        for n in range(len(secret) - 1, MIN_SECRET_LENGTH - 1, -1):
            if text.startswith(secret[-n:]):
                text = REDACTED + text[n:]
                break
    return text


def scrub(value: Any) -> Any:
    """``value`` (JSON-like: str, dict, list, tuple) with every secret replaced; the same
    object when nothing had to change."""
    if not _secrets:
        return value
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        pairs = [(scrub(k), scrub(v)) for k, v in value.items()]
        if all(k2 is k and v2 is v for (k2, v2), (k, v) in zip(pairs, value.items())):
            return value
        return dict(pairs)
    if isinstance(value, (list, tuple)):
        items = [scrub(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return value


def scrub_event(event: Any) -> Any:
    """A dataclass Event with every secret scrubbed from its fields (the same object when
    it held none)."""
    if not _secrets:
        return event
    changes = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        clean = scrub(value)
        if clean is not value:
            changes[f.name] = clean
    return dataclasses.replace(event, **changes) if changes else event


def _install_log_scrubber() -> None:
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _secrets:
            try:
                message = record.getMessage()
            except Exception:  # a malformed log call: leave it to logging's own error report
                return record
            clean = scrub_text(message)
            if clean != message or record.exc_info:
                record.msg, record.args = clean, None
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True
