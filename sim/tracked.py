"""A dict and a set that record which keys were changed since they were last
drained: what :class:`sim.program_context.ProgramContext` needs to rebuild only the
view entries whose call text or hiding changed (issue 35: a view made from what
changed, not from every item).

Every mutating method records the keys it may change (``clear`` and ``popitem``
record every key they drop), so no writer can change an entry without it being
recorded; :meth:`drain` returns the recorded keys and forgets them.
"""

from __future__ import annotations

from typing import Any, Iterable


class TrackedDict(dict):
    """A dict whose changed keys since the last :meth:`drain` are in ``changed``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changed: set = set(self)

    def drain(self) -> set:
        """The keys changed since the last drain (then forgotten)."""
        out, self.changed = self.changed, set()
        return out

    def __setitem__(self, key, value) -> None:
        self.changed.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key) -> None:
        self.changed.add(key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        self.changed.add(key)
        return dict.pop(self, key, *default)

    def popitem(self):
        item = dict.popitem(self)
        self.changed.add(item[0])
        return item

    def setdefault(self, key, default=None):
        self.changed.add(key)
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        other = dict(*args, **kwargs)
        self.changed.update(other)
        dict.update(self, other)

    def __ior__(self, other):
        self.update(other)
        return self

    def clear(self) -> None:
        self.changed.update(self)
        dict.clear(self)


class TrackedSet(set):
    """A set whose added or removed elements since the last :meth:`drain` are in
    ``changed``."""

    def __init__(self, items: Iterable = ()) -> None:
        super().__init__(items)
        self.changed: set = set(self)

    def drain(self) -> set:
        """The elements changed since the last drain (then forgotten)."""
        out, self.changed = self.changed, set()
        return out

    def add(self, x) -> None:
        self.changed.add(x)
        set.add(self, x)

    def discard(self, x) -> None:
        self.changed.add(x)
        set.discard(self, x)

    def remove(self, x) -> None:
        self.changed.add(x)
        set.remove(self, x)

    def pop(self):
        x = set.pop(self)
        self.changed.add(x)
        return x

    def clear(self) -> None:
        self.changed.update(self)
        set.clear(self)

    def update(self, *others: Iterable) -> None:
        for o in others:
            o = set(o)
            self.changed.update(o)
            set.update(self, o)

    def difference_update(self, *others: Iterable) -> None:
        for o in others:
            o = set(o)
            self.changed.update(o)
            set.difference_update(self, o)

    def intersection_update(self, *others: Iterable) -> None:
        keep = set(self).intersection(*others)
        self.changed.update(set(self) - keep)
        set.intersection_update(self, keep)

    def symmetric_difference_update(self, other: Iterable) -> None:
        other = set(other)
        self.changed.update(other)
        set.symmetric_difference_update(self, other)

    def __ior__(self, other):
        self.update(other)
        return self

    def __isub__(self, other):
        self.difference_update(other)
        return self

    def __iand__(self, other):
        self.intersection_update(other)
        return self

    def __ixor__(self, other):
        self.symmetric_difference_update(other)
        return self
