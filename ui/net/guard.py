"""The study host's limits on what strangers on the network may do (docs/study.md, "Threat model").

Plain Python with the time passed in, so each rule can be checked without sockets or waiting:

- ``address_key``: whom a limit counts against: an IPv4 address, or an IPv6 address's /64 network
  (one computer is usually given a whole /64);
- ``Guesses``: wrong join codes per address, a bucket of ``GUESSES`` refilled by one every
  ``GUESS_SECONDS``;
- ``Strangers``: connections that have not joined yet, at most ``STRANGERS_PER_ADDRESS`` per address
  and ``MAX_STRANGERS`` in all; a new one past either cap pushes out the oldest;
- ``LogLimit``: lines about strangers, at most ``LOG_LINES`` every ``LOG_SECONDS``; the rest are
  counted and told in one summary line.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Generic, TypeVar

#: wrong join codes an address may try at once
GUESSES = 5
#: seconds after which an address may try one more (so at most 2 a minute once the first are spent)
GUESS_SECONDS = 30.0
#: addresses whose guesses are remembered; past it, those with their whole bucket back are forgotten
#: first, then the longest quiet
TRACKED_ADDRESSES = 4096
#: connections that have not joined yet, per address and in all
STRANGERS_PER_ADDRESS = 4
MAX_STRANGERS = 32
#: log lines about strangers in a window of LOG_SECONDS; the rest go into one summary line
LOG_LINES = 10
LOG_SECONDS = 60.0

T = TypeVar("T")


def address_key(address: str) -> str:
    """The address a limit counts against: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4),
    IPv6 as its /64 network; text that is no address (a test's name) as itself."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass
class _Bucket:
    tokens: float
    when: float


class Guesses:
    """Wrong join codes per address (see the module doc)."""

    def __init__(self, guesses: int = GUESSES, seconds: float = GUESS_SECONDS,
                 tracked: int = TRACKED_ADDRESSES) -> None:
        self.guesses, self.seconds, self.tracked = guesses, seconds, tracked
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _refilled(self, key: str, now: float) -> _Bucket | None:
        bucket = self._buckets.get(key)
        if bucket is None:
            return None
        bucket.tokens = min(float(self.guesses), bucket.tokens + max(0.0, now - bucket.when) / self.seconds)
        bucket.when = now
        if bucket.tokens >= self.guesses:
            del self._buckets[key]
            return None
        return bucket

    def left(self, key: str, now: float) -> int:
        """Wrong codes ``key`` may still try now."""
        bucket = self._refilled(key, now)
        return self.guesses if bucket is None else int(bucket.tokens)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try a code (0 when it may now)."""
        bucket = self._refilled(key, now)
        if bucket is None or bucket.tokens >= 1:
            return 0.0
        return (1 - bucket.tokens) * self.seconds

    def wrong(self, key: str, now: float) -> None:
        """``key`` tried a wrong (or taken) code."""
        bucket = self._refilled(key, now) or _Bucket(float(self.guesses), now)
        bucket.tokens = max(0.0, bucket.tokens - 1)
        self._buckets[key] = bucket
        self._buckets.move_to_end(key)
        if len(self._buckets) > self.tracked:
            for old in list(self._buckets):
                self._refilled(old, now)  # forgets those whose bucket is full again
            while len(self._buckets) > self.tracked:
                self._buckets.popitem(last=False)  # the longest quiet


@dataclass
class _Stranger(Generic[T]):
    item: T
    key: str
    opened: float


@dataclass
class Strangers(Generic[T]):
    """Connections that have not joined yet (see the module doc); ``T`` is the connection."""

    per_address: int = STRANGERS_PER_ADDRESS
    total: int = MAX_STRANGERS
    _open: dict[int, _Stranger[T]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, item: T) -> bool:
        return id(item) in self._open

    def admit(self, item: T, key: str, now: float) -> list[T]:
        """Count ``item`` (opened by ``key`` at ``now``); returns the connections to close to make
        room for it, oldest first (they are no longer counted)."""
        pushed: list[T] = []
        same = sorted((s for s in self._open.values() if s.key == key), key=lambda s: s.opened)
        while len(same) >= self.per_address:
            pushed.append(self._pop(same.pop(0)))
        if len(self._open) >= self.total:
            for s in sorted(self._open.values(), key=lambda s: s.opened)[:len(self._open) - self.total + 1]:
                pushed.append(self._pop(s))
        self._open[id(item)] = _Stranger(item, key, now)
        return pushed

    def _pop(self, s: _Stranger[T]) -> T:
        del self._open[id(s.item)]
        return s.item

    def forget(self, item: T) -> None:
        """``item`` joined or closed."""
        self._open.pop(id(item), None)

    def older_than(self, when: float) -> list[T]:
        """The connections opened before ``when``."""
        return [s.item for s in self._open.values() if s.opened < when]


class LogLimit:
    """Lines about strangers (see the module doc): ``line`` says whether to write one now;
    ``summary`` returns the line counting those held back, once their window is over."""

    def __init__(self, lines: int = LOG_LINES, seconds: float = LOG_SECONDS, *,
                 about: str = "connections that did not join", by: str | None = "address") -> None:
        self.lines, self.seconds, self.about, self.by = lines, seconds, about, by
        self._start: float | None = None
        self._written = 0
        self._held = 0
        self._addresses: set[str] = set()

    def line(self, key: str, now: float) -> bool:
        """A line about ``key`` is due at ``now``: True to write it, False when it is held back."""
        if self._start is None or now - self._start >= self.seconds:
            if self._held:
                return False  # the summary of the last window goes first (``summary``)
            self._start, self._written = now, 0
        if self._written < self.lines:
            self._written += 1
            return True
        self._held += 1
        if len(self._addresses) < 1000:
            self._addresses.add(key)
        return False

    def summary(self, now: float) -> str | None:
        """The line telling how many were held back, once the window they fell in is over."""
        if not self._held or self._start is None or now - self._start < self.seconds:
            return None
        many = len(self._addresses)
        sources = "" if self.by is None else (f" (from {many}{'+' if many >= 1000 else ''} {self.by}"
                                               f"{'es' if many != 1 and self.by.endswith('s') else 's' if many != 1 else ''})")
        text = (f"{self._held} more line{'s' if self._held != 1 else ''} about {self.about}{sources} in the last "
                f"{now - self._start:.0f} s were not written one by one")
        self._start, self._written, self._held = now, 0, 0
        self._addresses.clear()
        return text
