"""An excepthook that reports instead of aborting.

An exception that escapes a Qt slot or ``paintEvent`` ends a PyQt6 program (SIGABRT)
unless ``sys.excepthook`` handles it. This one prints the traceback to stderr, keeps the
last reports for the window, and calls a listener (the window shows the message in its
status bar and event log). Errors in other threads are reported the same way.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType

Listener = Callable[[str, str], None]  # (one-line summary, full traceback)

_listeners: list[Listener] = []
reports: list[str] = []


def add_listener(listener: Listener) -> None:
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    summary = f"{exc_type.__name__}: {exc}"
    reports.append(text)
    del reports[:-20]
    print(f"ToM Arena: unexpected error (the program goes on):\n{text}", file=sys.stderr)
    for listener in list(_listeners):
        try:
            listener(summary, text)
        except Exception:  # a broken listener must not hide the original error
            traceback.print_exc()


def install() -> None:
    """Route uncaught exceptions of the GUI thread and of worker threads to ``report``."""
    sys.excepthook = report

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        report(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)

    threading.excepthook = thread_hook
