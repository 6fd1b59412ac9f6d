"""Scrubbing by value (sim/redact.py): a registered secret is replaced in every form it may take
in a text (as it is, reversed, base64 at each byte alignment, URL-safe base64, percent-encoded,
hex), a URL's credentials are dropped, and persisted text (recordings, tables, the LLM cache)
passes through it."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest
from hypothesis import given, settings, strategies as st

from sim import redact

#: what keys are made of (the frame around them in the texts below uses none of ':[] ')
SECRET_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/+=.~%")


@pytest.fixture
def registry(monkeypatch):
    """A registry of its own: what a test registers is forgotten afterwards."""
    monkeypatch.setattr(redact, "_secrets", ())
    monkeypatch.setattr(redact, "_forms", ())
    monkeypatch.setattr(redact, "_forms_pattern", None)
    monkeypatch.setattr(redact, "_windows", frozenset())
    monkeypatch.setattr(redact, "_active", False)
    return redact


def encodings(secret: str, before: bytes, after: bytes) -> list[str]:
    """``secret`` inside longer texts, encoded as a hostile endpoint might send it back."""
    raw = before + secret.encode() + after
    return [secret, secret[::-1], quote(secret, safe=""), "".join(f"%{b:02X}" for b in secret.encode()),
            secret.encode().hex(), base64.b64encode(raw).decode(), base64.b64encode(raw).decode().rstrip("="),
            base64.urlsafe_b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode().rstrip("=")]


@settings(max_examples=150, deadline=None)
@given(secret=st.text(SECRET_CHARS, min_size=redact.MIN_SECRET_LENGTH, max_size=60),
       before=st.binary(max_size=5), after=st.binary(max_size=5),
       left=st.text(st.characters(whitelist_categories=("Zs",)), max_size=3))
def test_every_encoding_of_a_secret_is_scrubbed(secret, before, after, left):
    saved = (redact._secrets, redact._forms, redact._forms_pattern, redact._windows, redact._active)
    try:
        redact._secrets, redact._forms, redact._forms_pattern, redact._windows, redact._active = \
            (), (), None, frozenset(), False
        redact.register_secret(secret)
        raw = secret.encode()
        for form in encodings(secret, before, after):
            clean = redact.scrub_text(f"answer:{left}{form}{left}:end")
            assert secret not in clean and secret[::-1] not in clean
            # what remains of a base64 text is at most the groups the secret shares with its neighbours
            for skip in range(3):
                core = raw[skip:][:(len(raw) - skip) // 3 * 3]
                if len(core) >= 6:
                    for encode in (base64.b64encode, base64.urlsafe_b64encode):
                        assert encode(core).decode() not in clean
    finally:
        redact._secrets, redact._forms, redact._forms_pattern, redact._windows, redact._active = saved


def test_cut_pieces_and_url_credentials_are_scrubbed(registry):
    key = "sk-live-0123456789abcdefXYZ"
    assert registry.scrub_text(f"see {key}") == f"see {key}"  # nothing registered: nothing touched
    registry.register_secret(key)
    assert registry.scrub_text(f"error: bad key {key[:14]}") == "error: bad key [redacted]"
    assert registry.scrub_text(f"{key[-10:]} was the rest") == "[redacted] was the rest"
    assert registry.scrub_text("short") == "short"
    registry.register_url("https://alice-user:p%40ss-w0rd-long@api.example.com/v1?api_key=query-secret-1&v=2")
    spec = "llm:k=1,base_url=https://alice-user:p%40ss-w0rd-long@api.example.com/v1"
    assert registry.scrub_text(spec) == "llm:k=1,base_url=https://api.example.com/v1"
    basic = base64.b64encode(b"alice-user:p@ss-w0rd-long").decode()  # a Basic-auth header's value
    password = b"p@ss-w0rd-long"
    cores = [base64.b64encode(password[skip:][:(len(password) - skip) // 3 * 3]).decode() for skip in range(3)]
    assert redact.REDACTED in registry.scrub_text(basic)
    assert not [c for c in cores if c in registry.scrub_text(basic)]
    assert registry.scrub_text("query-secret-1 and p@ss-w0rd-long") == "[redacted] and [redacted]"
    # a URL elsewhere in a text loses its user-info too
    assert registry.scrub_text("see ftp://bob:pw@files.example.org/x") == "see ftp://files.example.org/x"


def test_the_environment_secrets_are_registered(registry):
    registry.register_environment({"OPENAI_API_KEY": "sk-env-key-123456", "HF_TOKEN": "hf_abcdefgh1234",
                                   "PROXY": "http://proxyuser:proxy-password@proxy:3128", "HOME": "/home/someone",
                                   "EDITOR": "vim"})
    text = registry.scrub_text("sk-env-key-123456 hf_abcdefgh1234 proxy-password /home/someone vim")
    assert text == "[redacted] [redacted] [redacted] /home/someone vim"


def test_writers_scrub_what_they_persist(registry, tmp_path):
    from experiments.llm_cache import ResponseCache
    from sim.recording import RecordingWriter

    key = "sk-writer-secret-000111222"
    registry.register_secret(key)
    rows = [{"agents": f"alice=llm:base_url=http://u:{key}@h/v1", "echo": base64.b64encode(key.encode()).decode()}]
    with open(tmp_path / "t.csv", "w", newline="") as fh:
        writer = registry.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    registry.write_text(tmp_path / "r.md", f"key {key[::-1]}")
    cache = ResponseCache(tmp_path / "cache")
    cache.put("k" * 64, {"content": f"{{\"say\": \"{key}\"}}", "model": f"m-{key}"}, {"messages": [key]})
    header = {"world": "dkg", "spec": {"description": key}, "seed": 0}
    RecordingWriter(tmp_path / "rec.jsonl", header).close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert key not in text and key[::-1] not in text and base64.b64encode(key.encode()).decode() not in text
    assert json.loads(next((tmp_path / "cache").rglob("*.json")).read_text())["reply"]["content"] == \
        '{"say": "[redacted]"}'
    first = (tmp_path / "rec.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["spec"]["description"] == "[redacted]"
