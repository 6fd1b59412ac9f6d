"""Secrets (API keys) never reach a recording, a view, a report, a log or any other file.

Whatever holds a secret registers it here: the LLM layer registers every key it is given and
the credentials in its endpoint URL (``register_url``), and importing this module registers
the secrets of the process environment (``register_environment``: variables named like
``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``, and the credentials of any URL in a
variable), so a seat that never talks to a model still cannot record a key that its code
printed. Every Event passes through ``Session.emit``, which scrubs it with ``scrub_event``;
log records are scrubbed by a record factory installed on first registration; and every
writer of a file (recordings, metrics tables, experiment results and reports, the LLM
response cache, settings files) passes what it writes through ``scrub`` / ``scrub_text``
(``dumps``, ``write_text``, ``scrub_rows`` and ``DictWriter`` here do both steps at once).

A scrubbed secret reads ``[redacted]``. Scrubbing catches the secret itself, a piece of it
that a cut left at either end of a text, and its encodings, computed once when it is
registered: reversed, base64 (standard and URL-safe, with or without padding, and inside a
longer base64 text at each of the three byte alignments), percent-encoded (only where needed
or every byte, upper or lower case hex) and hex. The user name and password of any URL
(``http://user:pass@host``) are dropped from scrubbed text as well.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import json
import logging
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

REDACTED = "[redacted]"
#: shorter strings are not treated as secrets (they would redact ordinary words)
MIN_SECRET_LENGTH = 8
#: environment variables whose values are secrets (by name)
SECRET_ENV_NAME = re.compile(r"(API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|"
                             r"CREDENTIALS?)$", re.I)
#: query parameters of a URL whose values are secrets (by name)
SECRET_QUERY_NAME = re.compile(r"key|token|secret|passw|sig|auth|credential", re.I)
#: ``scheme://user[:password]@`` in a text
_URL_CREDENTIALS = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#@\"'<>`]*@")


@dataclasses.dataclass(frozen=True)
class _Secret:
    value: str
    #: every ``MIN_SECRET_LENGTH``-long piece of the value: a text that ends (starts) with a piece
    #: of the secret cut by a truncation ends (starts) with one of these
    windows: frozenset[str]


_lock = threading.Lock()
_secrets: tuple[_Secret, ...] = ()
#: every form of every secret to replace (the secrets themselves and their encodings), longest first
_forms: tuple[str, ...] = ()
#: the same forms as one pattern: the quicker test for short texts (a loop of ``in`` is quicker
#: for long ones)
_forms_pattern: re.Pattern[str] | None = None
#: the windows of every secret together (one look-up tells that no secret was cut at an end)
_windows: frozenset[str] = frozenset()
_SHORT_TEXT = 256
#: scrubbing is on: a secret or a URL with credentials was registered
_active = False
_factory_installed = False


def encoded_forms(value: str) -> list[str]:
    """``value`` and its encodings that scrubbing replaces (each at least MIN_SECRET_LENGTH long)."""
    raw = value.encode("utf-8")
    forms = [value, value[::-1], quote(value, safe=""), quote_plus(value, safe=""),
             raw.hex(), raw.hex().upper(), "".join(f"%{b:02X}" for b in raw), "".join(f"%{b:02x}" for b in raw)]
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms += [whole, whole.rstrip("=")]
        # Inside a longer base64 text the secret starts at one of three byte offsets of a
        # 3-byte group: the characters of the whole groups it fills are the same whatever
        # surrounds it.
        for skip in range(3):
            core = raw[skip:]
            core = core[:len(core) // 3 * 3]
            forms.append(encode(core).decode("ascii"))
    return [f for f in forms if len(f) >= MIN_SECRET_LENGTH]


def register_secret(value: str | None) -> None:
    """Scrub ``value`` (and its encodings) from every event, log record and file from now on."""
    global _secrets, _forms, _forms_pattern, _windows, _active
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if any(s.value == value for s in _secrets):
            return
        windows = frozenset(value[i:i + MIN_SECRET_LENGTH] for i in range(len(value) - MIN_SECRET_LENGTH + 1))
        # Longest first, so that a key containing another key is scrubbed whole.
        _secrets = tuple(sorted((*_secrets, _Secret(value, windows)), key=lambda s: len(s.value), reverse=True))
        _forms = tuple(sorted(set(_forms) | set(encoded_forms(value)), key=lambda f: (-len(f), f)))
        _forms_pattern = re.compile("|".join(map(re.escape, _forms)))
        _windows = _windows | windows
        _active = True
        _install_log_scrubber()


def register_url(url: str | None) -> None:
    """Scrub the credentials of ``url``: its user name and password (as written and decoded)
    and the values of query parameters named like secrets (``?api_key=...``); from now on every URL's user-info is
    dropped from scrubbed text too."""
    global _active
    if not url or "://" not in url:
        return
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return
    netloc = parts.netloc
    if "@" in netloc:
        userinfo = netloc.rpartition("@")[0]
        user, _, password = userinfo.partition(":")
        for piece in (password, user):
            register_secret(piece)
            register_secret(unquote(piece))
        with _lock:
            _active = True
            _install_log_scrubber()
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if SECRET_QUERY_NAME.search(name):
            register_secret(value)


def register_environment(env: Mapping[str, str] | None = None) -> None:
    """Register the secrets of the environment: the values of variables named like secrets,
    and the credentials of every URL a variable holds."""
    env = os.environ if env is None else env
    for name, value in env.items():
        if not value:
            continue
        if SECRET_ENV_NAME.search(name):
            register_secret(value.strip())
        if "://" in value and "@" in value:
            register_url(value)


def scrub_text(text: str) -> str:
    """``text`` with every registered secret and each of its encodings replaced, any piece of a
    secret that a cut left at either end (a truncated error body ending in ``sk-abc...``)
    replaced too, and the user-info of URLs dropped."""
    if not _active:
        return text
    if "@" in text and "://" in text:
        text = _URL_CREDENTIALS.sub(r"\1", text)
    if len(text) < MIN_SECRET_LENGTH:
        return text
    if len(text) > _SHORT_TEXT or (_forms_pattern is not None and _forms_pattern.search(text)):
        for form in _forms:
            if form in text:
                text = text.replace(form, REDACTED)
    head, tail = text[:MIN_SECRET_LENGTH], text[-MIN_SECRET_LENGTH:]
    if head not in _windows and tail not in _windows:
        return text
    for secret in _secrets:
        value = secret.value
        if text[-MIN_SECRET_LENGTH:] in secret.windows:
            for n in range(len(value) - 1, MIN_SECRET_LENGTH - 1, -1):
                if text.endswith(value[:n]):
                    text = text[:-n] + REDACTED
                    break
        if text[:MIN_SECRET_LENGTH] in secret.windows:
            for n in range(len(value) - 1, MIN_SECRET_LENGTH - 1, -1):
                if text.startswith(value[-n:]):
                    text = REDACTED + text[n:]
                    break
    return text


def scrub(value: Any) -> Any:
    """``value`` (JSON-like: str, dict, list, tuple) with every secret replaced; the same
    object when nothing had to change."""
    if not _active:
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
    if not _active:
        return event
    changes = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        clean = scrub(value)
        if clean is not value:
            changes[f.name] = clean
    return dataclasses.replace(event, **changes) if changes else event


# ---------------------------------------------------------------------- writers


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of ``value`` scrubbed: what every JSON writer persists."""
    return json.dumps(scrub(value), **kwargs)


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` scrubbed to ``path``."""
    path = Path(path)
    path.write_text(scrub_text(text), encoding=encoding)
    return path


def scrub_rows(rows: Any) -> list[dict[str, Any]]:
    """Table rows (mappings) scrubbed, for CSV writers."""
    return [scrub(dict(r)) for r in rows]


class DictWriter(csv.DictWriter):
    """``csv.DictWriter`` that scrubs every row it writes."""

    def writerow(self, rowdict: Mapping[str, Any]) -> Any:
        return super().writerow(scrub(dict(rowdict)))

    def writerows(self, rowdicts: Any) -> None:
        for row in rowdicts:
            self.writerow(row)


def _install_log_scrubber() -> None:
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _active:
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


register_environment()
