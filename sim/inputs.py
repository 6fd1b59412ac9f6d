"""Safe reading of the JSON that people and other programs hand to ToM Arena.

Every input file (scenarios, TradeCraft instances and rule sets, recording headers) and every
answer of a language model (``agents/llm/client.py``: the HTTP body and the JSON answer in it) goes
through ``read_json`` or ``parse_json``, which either return plain data or raise the
caller's error type with one message naming the file, the line or field, and what was
expected. Refused, never reinterpreted:

* bytes that are not UTF-8 text (UTF-16 and UTF-32 files are named as such; a UTF-8 byte
  order mark is allowed and skipped, it carries no content);
* a key that occurs twice in one object (JSON parsers usually keep the last one silently);
* ``NaN``, ``Infinity``, numbers that overflow a float (``1e400``) and integers longer than
  ``MAX_INT_DIGITS`` digits;
* nesting deeper than ``MAX_DEPTH`` levels, files larger than ``MAX_FILE_BYTES``;
* text with lone surrogates (``"\\ud800"``), which cannot be written back as UTF-8.

``read_text`` reads the other text formats (kitchen levels, PDDL problems, ASCII maps, LLM
settings in TOML) with the same byte-level checks and a smaller size limit,
``MAX_TEXT_BYTES``, checked before the file is read whole.

``check_tree`` applies the same checks (except the byte-level ones) to data that did not
come from a file, so validators can call it on whatever they are given. The numbers are
documented in docs/limits.md.
"""

from __future__ import annotations

import json
import json.scanner
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, get_args

if TYPE_CHECKING:  # pydantic loads with the first schema that uses it, not with every JSON read
    from pydantic import BaseModel, ValidationError

#: largest input file read whole (scenarios, instances, rule-set files, experiment configs)
MAX_FILE_BYTES = 8 * 1024 * 1024
#: largest text file read whole (kitchen levels, PDDL problems, ASCII maps, LLM settings): all far smaller
MAX_TEXT_BYTES = 1024 * 1024
#: deepest nesting of objects and lists
MAX_DEPTH = 64
#: longest integer literal; amounts and ticks are far shorter (see MAX_AMOUNT in docs/limits.md)
MAX_INT_DIGITS = 30

ErrorType = Callable[[str], Exception]


class InputError(ValueError):
    """An input that ToM Arena refuses; the message names the file, where, and what was expected."""


class _Refused(Exception):
    """Raised inside the JSON parser's hooks; turned into the caller's error with a position."""

    def __init__(self, what: str, token: str | None = None, offset: int | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.token = token  # text to look for when the parser cannot tell the position
        self.offset = offset


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _encoding_of(data: bytes) -> str | None:
    """The name of a non-UTF-8 Unicode encoding the bytes evidently use, if any."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    head = data[:64]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):  # ASCII text in UTF-16/32: every other byte NUL
        return "UTF-16 or UTF-32"
    return None


def _decode(data: bytes, source: str, error: ErrorType, kind: str = "JSON file") -> str:
    encoding = _encoding_of(data)
    if encoding:
        raise error(f"{source}: the file is {encoding} text; expected UTF-8 (save it as UTF-8)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[:exc.start].decode("utf-8")
        raise error(f"{source}: {_position(good, len(good))}: byte 0x{data[exc.start]:02x} is not UTF-8 text; "
                    f"expected a UTF-8 {kind}") from None


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer with {len(digits.lstrip('-'))} digits; expected at most {MAX_INT_DIGITS} "
                       "digits", token=digits[:MAX_INT_DIGITS + 2])
    return int(digits)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"the number {text[:40]} is too large for a float; expected a finite number", token=text)
    return value


def _constant(name: str) -> float:
    raise _Refused(f"{name} is not a number JSON allows; expected a finite number", token=name)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"the key {key!r} occurs twice in one object; expected each key once")
        out[key] = value
    return out


class _Decoder(json.JSONDecoder):
    """The pure-Python scanner with a hook on objects, so a duplicate key can be placed."""

    def __init__(self, allow_nonfinite: bool, control_characters: bool = False) -> None:
        super().__init__(object_pairs_hook=_no_duplicates, parse_int=_int, parse_float=_float,
                         parse_constant=(lambda n: float(n)) if allow_nonfinite else _constant,
                         strict=not control_characters)
        inner = json.decoder.JSONObject  # type: ignore[attr-defined]  # undocumented, absent from the stubs

        def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
            try:
                return inner(s_and_end, *args)
            except _Refused as exc:
                if exc.offset is None:
                    exc.offset = s_and_end[1] - 1  # the '{' of the object holding the duplicate
                raise

        self.parse_object = parse_object
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]  # absent from the stubs


def _too_deep_at(text: str) -> int:
    """The offset of the first bracket nested deeper than MAX_DEPTH (strings skipped)."""
    depth, in_string, escaped = 0, False, False
    for offset, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return offset
        elif ch in "]}":
            depth -= 1
    return 0


def parse_json(text: str | bytes, source: str, error: ErrorType = InputError, *,
               allow_nonfinite: bool = False, control_characters: bool = False, kind: str = "JSON file") -> Any:
    """Parse JSON text strictly (see the module docs); raise ``error`` naming ``source`` and where.

    ``control_characters``: raw control characters (line breaks, tabs) inside strings are kept
    instead of refused (language models write them; JSON wants them escaped). ``kind`` names
    what bytes that are not UTF-8 were expected to be."""
    if isinstance(text, bytes):
        text = _decode(text, source, error, kind)
    elif text.startswith("\ufeff"):
        text = text[1:]
    hooks: dict[str, Any] = {"parse_int": _int, "parse_float": _float,
             "parse_constant": (lambda n: float(n)) if allow_nonfinite else _constant,
             "object_pairs_hook": _no_duplicates, "strict": not control_characters}
    try:
        try:
            data = json.loads(text, **hooks)  # the fast C scanner
        except _Refused as exc:
            if exc.token is not None:
                raise
            # only the pure-Python scanner can say where the object with the duplicate starts
            _Decoder(allow_nonfinite, control_characters).decode(text)
            raise
    except _Refused as exc:
        where = ""
        if exc.offset is not None:
            where = f"{_position(text, exc.offset)}: "
        elif exc.token is not None:
            found = re.search(r"(?<![\w.])" + re.escape(exc.token), text)
            where = f"{_position(text, found.start())}: " if found else ""
        raise error(f"{source}: {where}{exc.what}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{source}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise error(f"{source}: {_position(text, _too_deep_at(text))}: nested deeper than {MAX_DEPTH} levels; "
                    f"expected at most {MAX_DEPTH}") from None
    check_tree(data, source, error, allow_nonfinite=allow_nonfinite)
    return data


def read_json(path: str | Path, error: ErrorType = InputError, *, max_bytes: int = MAX_FILE_BYTES,
              allow_nonfinite: bool = False) -> Any:
    """Read and parse a JSON file strictly; every failure is one ``error`` naming the file."""
    data = read_bytes(path, error, max_bytes=max_bytes)
    return parse_json(data, str(path), error, allow_nonfinite=allow_nonfinite)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n % (1024 * 1024) == 0 else f"{n // 1024} KiB"


def read_bytes(path: str | Path, error: ErrorType = InputError, *, max_bytes: int = MAX_FILE_BYTES,
               kind: str = "JSON file") -> bytes:
    """At most ``max_bytes`` of a file, read without reading more: a folder, an unreadable file
    or a larger one is one ``error`` naming the file."""
    path = Path(path)
    try:
        is_dir = path.is_dir()
        if not is_dir:
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    except ValueError as exc:  # a NUL character in the name
        raise error(f"{str(path)[:200]}: cannot read the file ({exc})") from None
    if is_dir:
        raise error(f"{path}: is a folder; expected a {kind}")
    if len(data) > max_bytes:
        raise error(f"{path}: the file is larger than {_size(max_bytes)}; "
                    "expected a smaller file (see docs/limits.md)")
    return data


def read_text(path: str | Path, error: ErrorType = InputError, *, max_bytes: int = MAX_TEXT_BYTES,
              kind: str = "text file") -> str:
    """A text file read as strictly as ``read_json`` reads JSON: at most ``max_bytes`` (checked
    before the file is read whole), UTF-8 (a byte order mark is skipped; UTF-16/32 are named),
    no NUL characters (binary data); one ``error`` naming the file and where otherwise."""
    data = read_bytes(path, error, max_bytes=max_bytes, kind=kind)
    text = _decode(data, str(path), error, kind)
    nul = text.find("\0")
    if nul >= 0:
        raise error(f"{path}: {_position(text, nul)}: a NUL character (binary data); expected a {kind}")
    return text


def field_path(path: tuple[Any, ...]) -> str:
    """A field path as ``a.b[0].c``; a key with spaces or a line break stays on one line, quoted."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        name = str(part) if re.fullmatch(r"[\w:#/-]+", str(part)) else repr(str(part))
        out += f".{name}" if out else name
    return out or "(top level)"


_TYPE_WORDS = {"int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
               "float_type": "a number", "float_parsing": "a number", "string_type": "text in quotes",
               "list_type": "a list [...]", "dict_type": "an object {...}", "model_type": "an object {...}",
               "model_attributes_type": "an object {...}", "bool_type": "true or false"}


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (``X``, ``X | None``, ``list[X]``, ``dict[str, X]``)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _model_at(model: type[BaseModel], path: tuple[Any, ...]) -> type[BaseModel]:
    """The model of the object at ``path`` inside ``model`` (itself when the path leaves the models)."""
    for part in path:
        if not isinstance(part, str):
            continue  # list indices and dict keys stay in the same annotation
        fields = {f.alias or n: f for n, f in model.model_fields.items()}
        inner = _models_in(fields[part].annotation) if part in fields else []
        if not inner:
            return model
        model = inner[0]
    return model


def plain_validation_error(exc: ValidationError, model: type[BaseModel]) -> tuple[str, str]:
    """(field path, message) for the first error of a pydantic validation, in plain words:
    what was expected and what was found; an unknown field lists the fields that exist there."""
    err = exc.errors()[0]
    kind, loc, value = err["type"], tuple(err["loc"]), err.get("input")
    got = f", got {value!r:.80}"
    if kind == "missing":
        message = "missing; this field is required"
    elif kind == "extra_forbidden":
        there = _model_at(model, loc[:-1])
        message = f"unknown field; expected one of {', '.join(f.alias or n for n, f in there.model_fields.items())}"
    elif kind == "string_pattern_mismatch" and loc and loc[-1] == "name":
        message = ("expected a name of lowercase letters, digits, '-' and '_' that starts with a letter or "
                   f"digit (it becomes a file name), e.g. 'two-rooms'{got}")
    elif kind in _TYPE_WORDS:
        quoted = " (a number in quotes is text)" if isinstance(value, str) and kind.startswith(("int", "float")) else ""
        message = f"expected {_TYPE_WORDS[kind]}{quoted}{got}"
    elif kind == "literal_error":
        message = f"expected {err['msg'].removeprefix('Input should be ')}{got}"
    elif kind == "value_error":
        message = err["msg"].removeprefix("Value error, ")
    else:
        message = f"{err['msg']}{got}"
    return field_path(loc), message


def validate_model(model: type[BaseModel], data: Any, source: str, error: ErrorType = InputError) -> Any:
    """``model.model_validate(data)``, or ``error`` with one line: ``SOURCE: field 'PATH': MESSAGE``."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        where, message = plain_validation_error(exc, model)
        raise error(f"{source}: field '{where}': {message}") from None


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be kept (a lone surrogate), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate ({text[exc.start]!r} at character {exc.start}); "
                "expected Unicode text")
    return None


def check_tree(data: Any, source: str, error: ErrorType = InputError, *, allow_nonfinite: bool = False) -> None:
    """Refuse what JSON-like data must not hold: deep nesting, non-string keys, lone
    surrogates, non-finite floats and over-long integers. Iterative, so depth costs no stack."""
    def fail(path: tuple[Any, ...], what: str) -> NoReturn:
        raise error(f"{source}: field '{field_path(path)}': {what}")

    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise error(f"{source}: field '{field_path(path[:8])}...': nested deeper than {MAX_DEPTH} levels; "
                        f"expected at most {MAX_DEPTH}")
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                fail(path, problem)
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if value.bit_length() > 100 or len(str(abs(value))) > MAX_INT_DIGITS:
                fail(path, f"an integer with more than {MAX_INT_DIGITS} digits; expected a smaller number")
        elif isinstance(value, float):
            if not allow_nonfinite and not math.isfinite(value):
                fail(path, f"{value!r} is not a finite number; expected a finite number")
        elif isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    fail(path, f"key {key!r} is a {type(key).__name__}; expected text keys")
                problem = text_problem(key)
                if problem:
                    fail(path, f"a key {problem}")
                stack.append((item, (*path, key)))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, (*path, k)) for k, item in enumerate(value))
        else:
            fail(path, f"a {type(value).__name__} is not JSON data; expected text, a number, true/false, "
                       "null, a list or an object")
