"""Beliefs and places in plain words, without Qt or pygame.

* ``Namer``: a world's entities as a person reads them. This generic one says ids with
  underscores as spaces ("the coffee table"); a world's belief adapter (``ui.beliefs.view``,
  ``WorldBeliefs.namer_class``) names its own: the household's "cupcake 2" and "the coffee table
  in the livingroom", the kitchen's "the top counter of the tomato room". ``namer_for(world)``
  (``ui.beliefs.view``) gives the one a world declares.
* ``sbl_in_words``: one SBL statement (``alice BELIEVE <wine>(5) ON <coffeetable>(1007)``) as a
  sentence ("alice thinks the wine is on the coffee table in the livingroom"), its things named
  by the namer (``Namer.sbl_entity``).
* ``message_words``: a message whose lines are SBL statements, in words.
"""

from __future__ import annotations

import re
from typing import Any

#: words that end a compound furniture name: "coffeetable" reads "coffee table"
_SUFFIXES = ("table", "cabinet", "counter", "shelf", "stand", "cupboard", "drawer", "sink", "rack", "box",
             "chair", "tray", "bin", "basket", "bowl", "case")
_THING = re.compile(r"<([^<>()]+)>\((\d+)\)")
#: SBL relations in words (subject ... object)
RELATION_WORDS = {"ON": "is on", "IN": "is in", "INSIDE": "is inside", "AT": "is in", "HOLD": "holds",
                  "NEAR": "is near", "WILL_FETCH": "will fetch", "WILL_EXPLORE": "will explore"}
ORDINALS = ("1st", "2nd", "3rd")


def split_compound(word: str) -> str:
    """``coffeetable`` -> ``coffee table``, ``kitchencabinet`` -> ``kitchen cabinet``; underscores
    become spaces."""
    out = []
    for part in word.replace("-", "_").split("_"):
        for suffix in _SUFFIXES:
            if part.endswith(suffix) and len(part) > len(suffix) + 2:
                part = part[:-len(suffix)] + " " + suffix
                break
        out.append(part)
    return " ".join(p for p in out if p)


def ordinal(k: int) -> str:
    return ORDINALS[k - 1] if 1 <= k <= len(ORDINALS) else f"{k}th"


class Namer:
    """Names of one world's entities in words (see the module doc): the generic namer says ids
    with underscores as spaces; a world's adapter subclasses it."""

    def __init__(self, world: Any) -> None:
        self.world = world

    def object_words(self, oid: str) -> str:
        """A thing in words: "the wine"."""
        return "the " + split_compound(oid)

    def location_words(self, at: str) -> str:
        """Where a thing is, after a verb: "held by bob", "at the coffee table"."""
        if at.startswith("agent:"):
            return f"held by {at[6:]}"
        return "at " + split_compound(at)

    def sbl_entity(self, name: str, number: int) -> str:
        """An SBL thing ``<name>(number)`` in words (a world that numbers its things resolves the
        number)."""
        return "the " + split_compound(name)

    def sbl_location(self, atom_predicate: str, name: str, number: int) -> str:
        """The object of ON / IN / INSIDE in words, with its preposition."""
        words = self.sbl_entity(name, number)
        prep = {"ON": "on", "IN": "in", "INSIDE": "inside"}.get(atom_predicate, "at")
        return f"{prep} {words}"


def sbl_in_words(text: str, namer: Namer) -> str:
    """An SBL statement as a sentence: ``alice BELIEVE bob BELIEVE <apple>(3) ON <table>(1002)``
    reads "alice thinks bob thinks the apple is on the table in the kitchen". Anything it cannot
    read is given back with its entities in words."""
    words = text.split()
    holders = []
    while len(words) >= 3 and words[1] == "BELIEVE":
        holders.append(words[0])
        words = words[2:]
    atom = " ".join(words)

    def entity(token: str) -> str:
        m = _THING.fullmatch(token)
        return namer.sbl_entity(m.group(1), int(m.group(2))) if m else token

    parts = atom.split()
    if len(parts) == 3 and re.fullmatch(r"[A-Z][A-Z0-9_]*", parts[1]):
        subject, key, obj = parts
        if key == "EXPLORATION_STATE":
            state = {"all": "explored", "part": "partly explored", "none": "not explored"}.get(obj, obj)
            clause = f"{entity(subject)} is {state}"
        elif key == "OPEN_STATE":
            clause = f"{entity(subject)} is {'open' if obj == 'opened' else 'closed' if obj == 'closed' else obj}"
        elif key == "CONTENTS":
            clause = f"{entity(subject)} holds {obj.replace('_', ' ')}"
        elif key in RELATION_WORDS:
            clause = f"{entity(subject)} {RELATION_WORDS[key]} {entity(obj)}"
        else:
            clause = f"{entity(subject)} {key.lower().replace('_', ' ')} {entity(obj)}"
    else:
        clause = _THING.sub(lambda m: namer.sbl_entity(m.group(1), int(m.group(2))), atom)
    return "".join(f"{h} thinks " for h in holders) + clause


_SBL_LINE = re.compile(r"^\S+ [A-Z][A-Z0-9_]* \S+$|BELIEVE")


def message_words(text: str, namer: Namer) -> str:
    """A message in words: each line that is an SBL statement (CoBel agents talk in SBL) read as a
    sentence, other lines as they are; lines joined with "; "."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not any(_THING.search(line) or _SBL_LINE.search(line) for line in lines):
        return text
    return "; ".join(sbl_in_words(line, namer) if (_THING.search(line) or _SBL_LINE.search(line)) else line
                     for line in lines)


