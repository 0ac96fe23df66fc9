"""The top-level items of a workspace in stream order: what a request renders.

A block is top-level until it is archived into a group or deleted; a group while it
is archived and not inside another group. Kept by every operation (:mod:`ops`), so
assembly walks these items, not every block ever registered: with old blocks
archived into groups its cost follows the request's size, not the session's.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace


class TopLevel:
    """Ids ordered by stream position (a block's number; a group's first block)."""

    def __init__(self) -> None:
        self._keys: list[int] = []
        self._ids: dict[int, str] = {}
        #: the ids in order, kept while items are only added or removed at the end
        #: (registration, a what-if measure undone); None: made again when iterated.
        #: Why: a request walks every item several times, and walking a list is
        #: several times cheaper than looking each id up by its key
        self._order: list[str] | None = []
        #: bumped by every change but an append at the end, so a reader that saw the
        #: order at some generation knows the order now is that one plus what
        #: :meth:`appended` returns (:class:`~sim.workspace.incremental.Gathered`)
        self.generation = 0

    def add(self, key: int, ident: str) -> None:
        """Insert ``ident`` at position ``key`` (appending is O(1))."""
        if not self._keys or key > self._keys[-1]:
            self._keys.append(key)
            if self._order is not None:
                self._order.append(ident)
        else:
            insort(self._keys, key)
            self._order = None
            self.generation += 1
        self._ids[key] = ident

    def appended(self, generation: int, n: int) -> list[str] | None:
        """The ids added at the end since the order held ``n`` items at
        ``generation``; None if anything else changed since (an insertion before
        the end, a removal)."""
        if generation != self.generation:
            return None
        return list(self)[n:] if self._order is None else self._order[n:]

    def remove(self, key: int) -> None:
        """Drop the item at position ``key`` if present."""
        if self._ids.pop(key, None) is not None:
            self.generation += 1
            keys = self._keys
            if key == keys[-1]:
                keys.pop()
                if self._order is not None:
                    self._order.pop()
            else:
                del keys[bisect_left(keys, key)]
                self._order = None

    def __iter__(self) -> Iterator[str]:
        if self._order is None:
            ids = self._ids
            self._order = [ids[k] for k in self._keys]
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._keys)


def position(ws: "Workspace", ident: str) -> int:
    """Stream position of a block or group id."""
    return int(ident[1:]) if ident[0] == "B" else ws.groups[ident].first


def top_group(ws: "Workspace", ident: str, memo: dict[str, str] | None = None
              ) -> str | None:
    """:meth:`Workspace.top_group`: the outermost archived group holding ``ident``."""
    path = []
    top = None
    while ident in ws.group_of:
        if memo is not None and ident in memo:
            top = memo[ident]
            break
        path.append(ident)
        ident = top = ws.group_of[ident]
    if memo is not None and top is not None:
        for p in path:
            memo[p] = top
    return top
