"""The messages between a study host and a joining seat: JSON text frames over a WebSocket.

Every message is an object ``{"v": PROTOCOL_VERSION, "type": ..., ...}``. A received frame is read
with the project's strict reader (``sim.inputs.parse_json``: no duplicate keys, no NaN, bounded
depth), refused when longer than its side's limit (``MAX_MESSAGE_BYTES`` from the host,
``MAX_SEAT_MESSAGE_BYTES`` from a seat), and checked against the fields its type takes
(``HOST_MESSAGES`` from the host, ``SEAT_MESSAGES`` from a seat): a missing, unknown or wrongly
typed field is a ``ProtocolError`` naming it. Nothing in a message is ever evaluated.

Join codes (``new_join_code``, ``read_join_code``) are 8 characters of Crockford's base32, 40 bits,
shown as two groups of four (``7KQM-X4PA``) and read case-insensitively, with or without
separators, ``O`` as ``0`` and ``I``/``L`` as ``1``. A seat gives its code in its first message,
``hello``; the participant's app also puts it in the URL it opens (``ws://HOST:PORT/?code=CODE``,
``JOIN_QUERY``), so the host seats it during the WebSocket handshake, before any stranger can
push the connection out (the ``hello`` that follows is then nothing new).

Versions: 1, the first; 2 added the host's ``waiting`` message (and ``feedback``'s optional
``payload``). Each side refuses a message of another version (``VersionMismatch``, saying which
side runs the older ToM Arena). The ``refused`` message has had the same fields in every
version, so the host answers a seat of an older version with a ``refused`` in that seat's
version (``refusal``): the older app shows that reason instead of a version error of its own.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from sim.inputs import InputError, parse_json

PROTOCOL_VERSION = 2
#: the first version; ``refused`` has had the same fields since
FIRST_VERSION = 1
#: the longest message the host sends and a seat accepts (a kitchen frame is about 2 KiB)
MAX_MESSAGE_BYTES = 256 * 1024
#: the longest message a seat sends and the host accepts (a questionnaire's answers are well under 2 KiB)
MAX_SEAT_MESSAGE_BYTES = 16 * 1024

#: the URL query item that carries the join code in the WebSocket handshake
JOIN_QUERY = "code"
#: Crockford's base32: digits and letters without I, L, O and U
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: characters of a join code: 8 x 5 bits = 40 bits
CODE_LENGTH = 8
_CODE_READING = str.maketrans({"O": "0", "I": "1", "L": "1"})
_CODE_SEPARATORS = " -_."


def new_join_code() -> str:
    """A join code drawn at random (40 bits), as it is shown: ``7KQM-X4PA``."""
    return show_join_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))


def show_join_code(code: str) -> str:
    """A join code (as ``read_join_code`` returns it) in two groups of four, to read aloud."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def read_join_code(text: object) -> str | None:
    """The join code ``text`` spells (upper case, separators dropped, ``O`` read as ``0`` and
    ``I``/``L`` as ``1``), or None when it is not one: anything but a short ASCII string of
    ``CODE_LENGTH`` base32 characters."""
    if not isinstance(text, str) or len(text) > 4 * CODE_LENGTH or not text.isascii():
        return None
    code = "".join(ch for ch in text.upper() if ch not in _CODE_SEPARATORS).translate(_CODE_READING)
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


class ProtocolError(InputError):
    """A frame that is not a message of this protocol; the text says what is wrong."""


class VersionMismatch(ProtocolError):
    """A message of another protocol version; ``version`` is the one it gave (any JSON value)
    and ``message`` the object it was (unchecked)."""

    def __init__(self, text: str, version: Any, message: dict[str, Any]) -> None:
        super().__init__(text)
        self.version, self.message = version, message

    @property
    def older(self) -> bool:
        """The other side speaks a known older version (it can read a ``refusal``)."""
        return type(self.version) is int and FIRST_VERSION <= self.version < PROTOCOL_VERSION


def version_words(version: Any) -> str:
    """Why a message of protocol ``version`` is refused, in words for the person at either computer."""
    if type(version) is int and FIRST_VERSION <= version < PROTOCOL_VERSION:
        return (f"the other computer runs an older ToM Arena (study protocol {version}; this one speaks "
                f"{PROTOCOL_VERSION}): install this version there")
    if type(version) is int and version > PROTOCOL_VERSION:
        return (f"the other computer runs a newer ToM Arena (study protocol {version}; this one speaks "
                f"{PROTOCOL_VERSION}): install that version here")
    return f"protocol version {version!r:.40}; expected {PROTOCOL_VERSION} (both computers must run the same ToM Arena)"


def refusal(reason: str, version: int = PROTOCOL_VERSION) -> str:
    """A ``refused`` message as the text frame to send to a seat speaking ``version`` (this one or
    an older one: the message's fields are the same in every version)."""
    if not FIRST_VERSION <= version <= PROTOCOL_VERSION:
        raise ValueError(f"no protocol version {version}")
    return json.dumps({"v": version, "type": "refused", "reason": reason}, ensure_ascii=False, separators=(",", ":"))


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


def decode(text: str, source: str, kinds: dict[str, dict[str, tuple[type, ...]]], *,
           limit: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """A received frame as a checked message, or ProtocolError with one line (``limit``: the
    longest message in bytes of UTF-8)."""
    if not isinstance(text, str):
        raise ProtocolError(f"{source}: a {type(text).__name__} frame; expected a text frame holding a JSON object")
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolError(f"{source}: a message longer than {limit // 1024} KiB; expected a shorter one")
    data = parse_json(text, source, ProtocolError)
    if not isinstance(data, dict):
        raise ProtocolError(f"{source}: expected a JSON object, got {type(data).__name__}")
    version = data.get("v")
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise VersionMismatch(f"{source}: field 'v': {version_words(version)}", version, data)
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
