"""The messages between a study host and a joining seat: JSON text frames over a WebSocket.

Every message is an object ``{"v": PROTOCOL_VERSION, "type": ..., ...}``. A received frame is read
with the project's strict reader (``sim.inputs.parse_json``: no duplicate keys, no NaN, bounded
depth), refused when longer than ``MAX_MESSAGE_BYTES``, and checked against the fields its type
takes (``HOST_MESSAGES`` from the host, ``SEAT_MESSAGES`` from a seat): a missing, unknown or
wrongly typed field is a ``ProtocolError`` naming it. Nothing in a message is ever evaluated.
"""

from __future__ import annotations

import json
from typing import Any

from sim.inputs import InputError, parse_json

PROTOCOL_VERSION = 1
#: the longest frame either side accepts (a kitchen frame is about 2 KiB)
MAX_MESSAGE_BYTES = 256 * 1024


class ProtocolError(InputError):
    """A frame that is not a message of this protocol; the text says what is wrong."""


_INT, _STR, _BOOL, _DICT, _LIST = (int,), (str,), (bool,), (dict,), (list,)
#: a field that may be left out (or null): a newer host's addition an older reader does without
_OPT_DICT = (dict, type(None))

#: type -> {field: allowed Python types}; every field is required unless its types allow None
HOST_MESSAGES: dict[str, dict[str, tuple[type, ...]]] = {
    "welcome": {"participant": _STR, "seat": _STR, "study": _STR, "pair": _INT},
    "page": {"page": _DICT},           # consent, instructions, questionnaire, reveal, wait, done
    "frame": {"frame": _DICT},         # the seat's own view (``seat_view.seat_frame``)
    # text and explanation in the world's words; payload: the suggestion's data (the places it names, ringed on the map)
    "feedback": {"feedback_id": _INT, "text": _STR, "explanation": _STR, "facilitator": _STR, "payload": _OPT_DICT},
    "feedback_status": {"feedback_id": _INT, "status": _STR},
    "message": {"sender": _STR, "text": _STR},
    "paused": {"reason": _STR},
    "resumed": {},
    "note": {"text": _STR},
    # whose move the game waits for (seat names) or which assistant is thinking, for how many seconds so far
    "waiting": {"players": _LIST, "assistant": _STR, "seconds": _INT},
    "refused": {"reason": _STR},
}
SEAT_MESSAGES: dict[str, dict[str, tuple[type, ...]]] = {
    "hello": {"code": _STR},
    "key": {"action": _STR},
    "decide": {"feedback_id": _INT, "accept": _BOOL},
    "continue": {"page_id": _STR},
    "answer": {"page_id": _STR, "answers": _DICT},
}


def encode(kind: str, **fields: Any) -> str:
    """A message as the text frame to send."""
    return json.dumps({"v": PROTOCOL_VERSION, "type": kind, **fields}, ensure_ascii=False, separators=(",", ":"))


def decode(text: str, source: str, kinds: dict[str, dict[str, tuple[type, ...]]]) -> dict[str, Any]:
    """A received frame as a checked message, or ProtocolError with one line."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"{source}: a message longer than {MAX_MESSAGE_BYTES // 1024} KiB; expected a shorter one")
    data = parse_json(text, source, ProtocolError)
    if not isinstance(data, dict):
        raise ProtocolError(f"{source}: expected a JSON object, got {type(data).__name__}")
    version = data.get("v")
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        raise ProtocolError(f"{source}: field 'v': protocol version {version!r}; expected {PROTOCOL_VERSION} "
                            "(both computers must run the same ToM Arena)")
    kind = data.get("type")
    if kind not in kinds:
        raise ProtocolError(f"{source}: field 'type': {kind!r:.60}; expected one of {', '.join(kinds)}")
    fields = kinds[kind]
    for name, types in fields.items():
        if name not in data:
            if type(None) in types:
                continue
            raise ProtocolError(f"{source}: {kind} message: field '{name}' is missing")
        value = data[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ProtocolError(f"{source}: {kind} message: field '{name}': expected {types[0].__name__}, "
                                f"got {type(value).__name__}")
    extra = sorted(set(data) - set(fields) - {"v", "type"})
    if extra:
        raise ProtocolError(f"{source}: {kind} message: unknown field {extra[0]!r:.60}; expected "
                            f"{', '.join(fields) or 'none'}")
    return data
