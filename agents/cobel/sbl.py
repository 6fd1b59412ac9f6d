"""The Symbolic Belief Language of CoBel-World (Appendix C.1): values, parser and printer.

Grammar (the paper's, with its names)::

    statement ::= atom | agent BELIEVE statement        # BELIEVE nests: zero-, first-, ... order
    atom      ::= entity PREDICATE entity                # e.g. <apple>(12) IN <kitchen>(2000)
               |  entity ATTRIBUTE state                 # e.g. <kitchen>(2000) EXPLORATION_STATE all
    entity    ::= agent | thing
    agent     ::= bare identifier, e.g. Alice            # agents only
    thing     ::= '<' name '>' '(' id ')', e.g. <apple>(12)   # every non-agent entity
    state     ::= word, e.g. none, part, all, opened, closed

A statement may end with a '.', as the paper writes them; the printer leaves it out.
``A BELIEVE b`` is a zero-order belief of A, ``A BELIEVE B BELIEVE b`` a first-order one.
Keywords (BELIEVE, predicates, attributes) are upper case; an agent may not be named like one.

The predicate and attribute vocabulary is a data table (:class:`Vocabulary`); a world
extends it with :meth:`Vocabulary.extend` and passes it to the parser.

Every malformed input raises :class:`SBLError` (never anything else), which says where
(offset, line, column), what was expected and what was found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal, Union

__all__ = [
    "Agent", "Thing", "Entity", "Relation", "Property", "Atom", "Belief", "Statement",
    "PredicateSpec", "AttributeSpec", "Vocabulary", "DEFAULT_VOCABULARY", "BELIEVE",
    "SBLError", "parse", "parse_atom", "parse_document", "to_text", "format_document",
    "validate",
]

BELIEVE = "BELIEVE"
MAX_ID_DIGITS = 18  # ids are entity numbers; a longer run of digits is a typo or an attack
_QUOTE_LIMIT = 24   # how much of an offending token an error message quotes

EntityKind = Literal["agent", "thing", "any"]


# --------------------------------------------------------------------------- vocabulary

_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _is_word(text: str) -> bool:
    return bool(text) and all(ch in _WORD_CHARS for ch in text)


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    """One PREDICATE of the language.

    ``locates`` names the argument whose place this predicate states ("subject" for
    ``<apple>(1) IN <kitchen>(2)``, "object" for ``Alice HOLD <apple>(1)``); an entity has one
    place at a time, so two beliefs that place it differently contradict each other.
    ``None`` means the predicate is not about places (``NEAR``) and never contradicts.
    """

    name: str
    meaning: str
    subject: EntityKind = "any"
    object: EntityKind = "any"
    locates: Literal["subject", "object"] | None = None
    source: str = "paper, Appendix C.1"


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """One ATTRIBUTE: a unary property with one state at a time (``states=None``: any word)."""

    name: str
    meaning: str
    states: tuple[str, ...] | None = None
    source: str = "paper, Appendix C.1"


def _is_keyword_form(text: str) -> bool:
    return bool(text) and text[0].isascii() and text[0].isupper() and all(
        ch in _UPPER_KEYWORD_CHARS for ch in text)


_UPPER_KEYWORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The predicates and attributes a parser accepts; immutable, extended by copying."""

    predicates: tuple[PredicateSpec, ...]
    attributes: tuple[AttributeSpec, ...]
    _predicate_index: dict[str, PredicateSpec] = field(init=False, repr=False, compare=False)
    _attribute_index: dict[str, AttributeSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = {BELIEVE}
        for spec in (*self.predicates, *self.attributes):
            if not _is_keyword_form(spec.name):
                raise ValueError(f"vocabulary keyword {spec.name!r}: expected upper case letters, "
                                 "digits and '_', starting with a letter")
            if spec.name in seen:
                raise ValueError(f"vocabulary keyword {spec.name!r} is defined twice "
                                 f"(or clashes with {BELIEVE})")
            seen.add(spec.name)
        for spec in self.attributes:
            for state in spec.states or ():
                if not _is_word(state):
                    raise ValueError(f"attribute {spec.name}: state {state!r} is not a word "
                                     "(letters, digits, '_')")
        object.__setattr__(self, "_predicate_index", {p.name: p for p in self.predicates})
        object.__setattr__(self, "_attribute_index", {a.name: a for a in self.attributes})

    def predicate(self, name: str) -> PredicateSpec | None:
        return self._predicate_index.get(name)

    def attribute(self, name: str) -> AttributeSpec | None:
        return self._attribute_index.get(name)

    def is_keyword(self, word: str) -> bool:
        return word == BELIEVE or word in self._predicate_index or word in self._attribute_index

    def extend(self, predicates: Iterable[PredicateSpec] = (),
               attributes: Iterable[AttributeSpec] = ()) -> "Vocabulary":
        """A new vocabulary with these entries added (a name may not be redefined)."""
        return Vocabulary((*self.predicates, *predicates), (*self.attributes, *attributes))


DEFAULT_VOCABULARY = Vocabulary(
    predicates=(
        PredicateSpec("IN", "located in a room or in a receptacle (C-WAH's IN(x, y))",
                      object="thing", locates="subject",
                      source="paper, Appendix C.1 and Table 6"),
        PredicateSpec("ON", "located on a surface (C-WAH's ON(x, y))",
                      object="thing", locates="subject", source="paper, Table 6"),
        PredicateSpec("INSIDE", "contained in a container", object="thing", locates="subject"),
        PredicateSpec("AT", "an agent's (or an entity's) current room or place",
                      object="thing", locates="subject"),
        PredicateSpec("NEAR", "close to an entity"),
        PredicateSpec("HOLD", "an agent holds an object in a hand",
                      subject="agent", object="thing", locates="object"),
    ),
    attributes=(
        AttributeSpec("EXPLORATION_STATE", "how much of a room has been explored",
                      states=("none", "part", "all")),
        AttributeSpec("CONTENTS", "what a container or receptacle holds (e.g. none, part, all)"),
        AttributeSpec("OPEN_STATE", "whether a receptacle is open", states=("opened", "closed"),
                      source="tom-arena (the paper's states opened/closed need an attribute)"),
    ),
)


# --------------------------------------------------------------------------- values

_NAME_FORBIDDEN = frozenset("<>()#")


def _is_identifier(text: str) -> bool:
    return _is_word(text) and not text[0].isdigit()


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot stand between '<' and '>' (None if it can)."""
    if not name:
        return "a name is empty"
    if name != name.strip(" "):
        return "a name starts or ends with a space"
    for ch in name:
        if ch in _NAME_FORBIDDEN:
            return f"{ch!r} is not allowed in a name"
        if not ch.isprintable():
            return f"character U+{ord(ch):04X} is not allowed in a name"
    return None


@dataclass(frozen=True, slots=True, order=True)
class Agent:
    """An agent, written as a bare identifier: ``Alice``."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _is_identifier(self.name) or self.name == BELIEVE:
            raise ValueError(f"agent name {self.name!r}: expected letters, digits and '_', "
                             f"not starting with a digit, and not {BELIEVE}")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, order=True)
class Thing:
    """A non-agent entity (object, container, room), written ``<name>(id)``: ``<apple>(12)``."""

    name: str
    id: int

    def __post_init__(self) -> None:
        problem = _name_problem(self.name) if isinstance(self.name, str) else "a name is not a str"
        if problem:
            raise ValueError(f"thing name {self.name!r}: {problem}")
        if (not isinstance(self.id, int) or isinstance(self.id, bool) or self.id < 0
                or len(str(self.id)) > MAX_ID_DIGITS):
            raise ValueError(f"thing id {self.id!r}: expected an int from 0 with at most "
                             f"{MAX_ID_DIGITS} digits")

    def __str__(self) -> str:
        return f"<{self.name}>({self.id})"


Entity = Union[Agent, Thing]


@dataclass(frozen=True, slots=True)
class Relation:
    """``subject PREDICATE object``."""

    subject: Entity
    predicate: str
    object: Entity

    def __post_init__(self) -> None:
        if not _is_keyword_form(self.predicate) or self.predicate == BELIEVE:
            raise ValueError(f"predicate {self.predicate!r}: expected an upper-case keyword")

    def __str__(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


@dataclass(frozen=True, slots=True)
class Property:
    """``subject ATTRIBUTE state``."""

    subject: Entity
    attribute: str
    state: str

    def __post_init__(self) -> None:
        if not _is_keyword_form(self.attribute) or self.attribute == BELIEVE:
            raise ValueError(f"attribute {self.attribute!r}: expected an upper-case keyword")
        if not isinstance(self.state, str) or not _is_word(self.state):
            raise ValueError(f"state {self.state!r}: expected a word (letters, digits, '_')")

    def __str__(self) -> str:
        return f"{self.subject} {self.attribute} {self.state}"


Atom = Union[Relation, Property]


@dataclass(frozen=True, slots=True)
class Belief:
    """``holders[0] BELIEVE holders[1] BELIEVE ... atom``.

    Kept flat (a tuple of holders, not nested values) so that no depth of BELIEVE can exhaust
    the stack; ``order`` is 0 for ``A BELIEVE b`` and 1 for ``A BELIEVE B BELIEVE b``.
    """

    holders: tuple[Agent, ...]
    atom: Atom

    def __post_init__(self) -> None:
        if not isinstance(self.holders, tuple) or not self.holders:
            raise ValueError("a belief needs at least one holder (a tuple of Agent)")
        for holder in self.holders:
            if not isinstance(holder, Agent):
                raise ValueError(f"belief holder {holder!r}: only an Agent can BELIEVE")
        if not isinstance(self.atom, (Relation, Property)):
            raise ValueError(f"belief content {self.atom!r}: expected a Relation or Property")

    @property
    def order(self) -> int:
        return len(self.holders) - 1

    @property
    def holder(self) -> Agent:
        return self.holders[0]

    def inner(self) -> "Statement":
        """What the outermost holder believes: a belief one order lower, or the atom."""
        return Belief(self.holders[1:], self.atom) if len(self.holders) > 1 else self.atom

    def __str__(self) -> str:
        return "".join(f"{h} {BELIEVE} " for h in self.holders) + str(self.atom)


Statement = Union[Atom, Belief]


def to_text(statement: Statement | Entity) -> str:
    """The canonical SBL text of a value: ``parse(to_text(x)) == x`` for every valid x."""
    return str(statement)


def format_document(statements: Iterable[Statement]) -> str:
    """Statements one per line, as :func:`parse_document` reads them."""
    return "\n".join(to_text(s) for s in statements)


# --------------------------------------------------------------------------- errors

class SBLError(ValueError):
    """Malformed SBL: where it is, what was expected there and what was found."""

    def __init__(self, *, offset: int, line: int, column: int, expected: str, found: str,
                 after: str | None = None, hint: str | None = None, source: str | None = None):
        self.offset, self.line, self.column = offset, line, column
        self.expected, self.found, self.after, self.hint, self.source = (
            expected, found, after, hint, source)
        where = f"line {line}, column {column}"
        if source:
            where = f"{source}: {where}"
        message = f"{where}: expected {expected}"
        if after is not None:
            message += f" after {_quote(after)}"
        message += f", found {found}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


def _quote(text: str) -> str:
    short = text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT] + "..."
    if all(ch.isprintable() for ch in short):
        return f"'{short}'"
    return repr(short)


# --------------------------------------------------------------------------- lexer

@dataclass(frozen=True, slots=True)
class _Token:
    kind: Literal["word", "thing", "dot", "end"]
    text: str
    offset: int
    value: Thing | None = None


class _Lexer:
    """Splits one statement (a line of a document, or a whole string) into tokens."""

    def __init__(self, text: str, start: int, stop: int, where: "_Where", end_name: str):
        self.text, self.pos, self.stop, self.where, self.end_name = text, start, stop, where, end_name

    def error(self, offset: int, expected: str, found: str, hint: str | None = None,
              after: str | None = None) -> SBLError:
        return self.where.error(offset, expected, found, hint=hint, after=after)

    def tokens(self) -> list[_Token]:
        out: list[_Token] = []
        text, stop = self.text, self.stop
        while True:
            while self.pos < stop and text[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < stop and text[self.pos] == "#":  # a comment runs to the end
                self.pos = stop
            if self.pos >= stop:
                out.append(_Token("end", "", stop))
                return out
            ch, start = text[self.pos], self.pos
            if ch in _WORD_CHARS:
                while self.pos < stop and text[self.pos] in _WORD_CHARS:
                    self.pos += 1
                out.append(_Token("word", text[start:self.pos], start))
            elif ch == "<":
                out.append(self._thing())
            elif ch == ".":
                self.pos += 1
                out.append(_Token("dot", ".", start))
            else:
                previous = out[-1].text if out else None
                raise self.error(start, "a keyword, an agent name or <name>(id)",
                                 _describe_char(ch), after=previous)

    def _thing(self) -> _Token:
        text, stop, start = self.text, self.stop, self.pos
        close = start + 1
        while close < stop and text[close] not in "<>()#\n":
            close += 1
        if close >= stop or text[close] != ">":
            found = "end of input" if close >= stop else _describe_char(text[close])
            raise self.error(close, "'>' closing the name", found, after=text[start:close])
        raw_name = text[start + 1:close]
        name = raw_name.strip(" ")
        problem = _name_problem(name)
        if problem:
            bad = next((i for i, ch in enumerate(raw_name) if not ch.isprintable()), None)
            offset = start + 1 + (bad if bad is not None else 0)
            raise self.error(offset, "a name between '<' and '>'", _quote(raw_name) if raw_name else "'<>'",
                             hint=problem)
        pos = close + 1
        if pos >= stop or text[pos] != "(":
            raise self.error(pos, "'(' and the id of the thing",
                             self._found_at(pos), after=text[start:pos],
                             hint="every non-agent entity is written <name>(id)")
        digits_start = pos + 1
        pos = digits_start
        while pos < stop and text[pos] in "0123456789":
            pos += 1
        digits = text[digits_start:pos]
        if not digits:
            raise self.error(digits_start, "an id (digits)", self._found_at(digits_start),
                             after=text[start:digits_start])
        if len(digits.lstrip("0") or "0") > MAX_ID_DIGITS:
            raise self.error(digits_start, f"an id of at most {MAX_ID_DIGITS} digits",
                             f"{len(digits)} digits")
        if pos >= stop or text[pos] != ")":
            raise self.error(pos, "')' closing the id", self._found_at(pos), after=text[start:pos])
        self.pos = pos + 1
        thing = Thing(name, int(digits.lstrip("0") or "0"))  # int() refuses > 4300 digits
        return _Token("thing", text[start:self.pos], start, thing)

    def _found_at(self, pos: int) -> str:
        if pos >= self.stop:
            return self.end_name
        return _describe_char(self.text[pos])


def _describe_char(ch: str) -> str:
    if ch == "\n":
        return "end of line"
    if ch == " ":
        return "a space"
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    return f"character U+{ord(ch):04X}"


@dataclass(frozen=True, slots=True)
class _Where:
    """Turns offsets into line and column for messages."""

    text: str
    source: str | None

    def error(self, offset: int, expected: str, found: str, *, hint: str | None = None,
              after: str | None = None) -> SBLError:
        line = self.text.count("\n", 0, offset) + 1
        line_start = self.text.rfind("\n", 0, offset) + 1
        return SBLError(offset=offset, line=line, column=offset - line_start + 1,
                        expected=expected, found=found, after=after, hint=hint,
                        source=self.source)


# --------------------------------------------------------------------------- parser

def _keyword_list(names: Iterable[str], limit: int = 8) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (", ..." if len(names) > limit else "")


class _Parser:
    """Recursive descent without recursion: BELIEVE chains are read in a loop."""

    def __init__(self, tokens: list[_Token], lexer: _Lexer, vocabulary: Vocabulary,
                 allow_belief: bool):
        self.tokens, self.lexer, self.vocabulary = tokens, lexer, vocabulary
        self.allow_belief = allow_belief
        self.index = 0

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def found(self, token: _Token) -> str:
        if token.kind == "end":
            return self.lexer.end_name
        return _quote(token.text)

    def previous_text(self) -> str | None:
        return self.tokens[self.index - 1].text if self.index else None

    def fail(self, expected: str, hint: str | None = None) -> SBLError:
        token = self.token
        return self.lexer.error(token.offset, expected, self.found(token), hint=hint,
                                after=self.previous_text())

    def statement(self) -> Statement:
        holders: list[Agent] = []
        subject = self.entity()
        while self.token.kind == "word" and self.token.text == BELIEVE:
            if not isinstance(subject, Agent):
                raise self.fail(self.relation_expected(subject), hint="only an agent can BELIEVE")
            if not self.allow_belief:
                raise self.fail(self.relation_expected(None), hint="an atomic belief has no BELIEVE")
            holders.append(subject)
            self.index += 1
            subject = self.entity()
        atom = self.atom_after(subject)
        if self.token.kind == "dot":
            self.index += 1
        if self.token.kind != "end":
            raise self.fail(self.lexer.end_name)
        return Belief(tuple(holders), atom) if holders else atom

    def entity(self) -> Entity:
        token = self.token
        if token.kind == "thing":
            self.index += 1
            assert token.value is not None
            return token.value
        if token.kind == "word" and _is_identifier(token.text) and not self.vocabulary.is_keyword(token.text):
            self.index += 1
            return Agent(token.text)
        hint = None
        if token.kind == "word" and self.vocabulary.is_keyword(token.text):
            hint = f"{token.text} is a keyword, not an agent name"
        elif token.kind == "word" and token.text[0].isdigit():
            hint = "an agent name cannot start with a digit; things are written <name>(id)"
        raise self.fail("an entity (an agent name or <name>(id))", hint=hint)

    def relation_expected(self, subject: Entity | None) -> str:
        predicates = _keyword_list(p.name for p in self.vocabulary.predicates)
        attributes = _keyword_list(a.name for a in self.vocabulary.attributes)
        options = f"a predicate ({predicates}) or an attribute ({attributes})"
        if isinstance(subject, Agent) and self.allow_belief:
            options += f" or {BELIEVE}"
        return options

    def atom_after(self, subject: Entity) -> Atom:
        token = self.token
        word = token.text if token.kind == "word" else None
        predicate = self.vocabulary.predicate(word) if word else None
        attribute = self.vocabulary.attribute(word) if word else None
        if predicate is None and attribute is None:
            hint = None
            if word and self.vocabulary.is_keyword(word.upper()):
                hint = f"keywords are upper case: {word.upper()}"
            raise self.fail(self.relation_expected(subject), hint=hint)
        if predicate is not None:
            if not _kind_fits(subject, predicate.subject):
                raise self.lexer.error(token.offset, f"{_KIND_PHRASE[predicate.subject]} before "
                                       f"{predicate.name}", _quote(str(subject)),
                                       hint=f"{predicate.name}: {predicate.meaning}")
            self.index += 1
            obj = self.entity()
            if not _kind_fits(obj, predicate.object):
                self.index -= 1
                raise self.fail(_KIND_PHRASE[predicate.object],
                                hint=f"{predicate.name}: {predicate.meaning}")
            return Relation(subject, predicate.name, obj)
        assert attribute is not None
        self.index += 1
        state_token = self.token
        states = attribute.states
        if state_token.kind != "word" or (states is not None and state_token.text not in states):
            choices = f" ({', '.join(states)})" if states else ""
            raise self.fail(f"a state of {attribute.name}{choices}")
        self.index += 1
        return Property(subject, attribute.name, state_token.text)


_KIND_PHRASE = {"agent": "an agent name", "thing": "a thing <name>(id)",
                "any": "an entity (an agent name or <name>(id))"}


def _kind_fits(entity: Entity, kind: EntityKind) -> bool:
    return kind == "any" or (kind == "agent") == isinstance(entity, Agent)


def _parse_span(text: str, start: int, stop: int, where: _Where, vocabulary: Vocabulary,
                end_name: str, allow_belief: bool = True) -> Statement:
    lexer = _Lexer(text, start, stop, where, end_name)
    tokens = lexer.tokens()
    if tokens[0].kind == "end":
        raise where.error(tokens[0].offset, "a statement", end_name)
    return _Parser(tokens, lexer, vocabulary, allow_belief).statement()


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise SBLError(offset=0, line=1, column=1, expected="SBL text (a str)",
                       found=type(text).__name__)
    return text


def parse(text: str, *, vocabulary: Vocabulary = DEFAULT_VOCABULARY,
          source: str | None = None) -> Statement:
    """One statement (an atom or a BELIEVE chain); line breaks count as spaces."""
    text = _check_text(text)
    return _parse_span(text, 0, len(text), _Where(text, source), vocabulary, "end of input")


def parse_atom(text: str, *, vocabulary: Vocabulary = DEFAULT_VOCABULARY,
               source: str | None = None) -> Atom:
    """One atomic belief (no BELIEVE)."""
    text = _check_text(text)
    atom = _parse_span(text, 0, len(text), _Where(text, source), vocabulary, "end of input",
                       allow_belief=False)
    assert not isinstance(atom, Belief)
    return atom


def parse_document(text: str, *, vocabulary: Vocabulary = DEFAULT_VOCABULARY,
                   source: str | None = None) -> tuple[Statement, ...]:
    """Statements one per line; blank lines and '#' comments are skipped."""
    text = _check_text(text)
    where = _Where(text, source)
    statements: list[Statement] = []
    start = 0
    while start <= len(text):
        stop = text.find("\n", start)
        stop = len(text) if stop < 0 else stop
        line = text[start:stop]
        content = line.split("#", 1)[0]
        if content.strip(" \t\r"):
            statements.append(_parse_span(text, start, stop, where, vocabulary, "end of line"))
        start = stop + 1
    return tuple(statements)


def validate(statement: Statement, vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> None:
    """Raise SBLError if ``statement`` is not valid under ``vocabulary`` (by parsing its text)."""
    text = to_text(statement)
    if parse(text, vocabulary=vocabulary) != statement:  # names that the printer cannot carry
        raise SBLError(offset=0, line=1, column=1, expected="a value that prints as it parses",
                       found=_quote(text))
