"""The state a format-3 checkpoint opens into without per-block Python work
(issue 35): blocks made on first access, maps derived on first use.

:class:`LazyBlocks` is the ``blocks`` dict of a reopened workspace: a ``dict``
whose entries are the blocks made so far and the ones registered since, over the
checkpoint's block table (:mod:`sim.workspace.checkpoint`); looking a block up
makes it (one :class:`~sim.workspace.blocks.Block`, kept, so later changes stick);
iterating makes every one, in id order, as the plain dict would hold them.
:class:`ShaOverlay` is a map over a sorted table (sha256-keyed: the payload
owners, their live counts, the pack index; and ``results`` by call block) with the
changes since the open in a dict;
:class:`LazyDict` is a dict filled by a function on its first use (``group_of``,
``call_owner``); :class:`ZeroVersions` answers 0 for an item no
operation has touched since the open (what a full replay's counters start at).
Workspaces made or replayed in memory keep plain dicts: nothing here costs them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np


class ZeroVersions(dict):
    """``versions`` of a reopened workspace: 0 for every id not bumped since."""

    def __missing__(self, key: str) -> int:
        return 0


#: the one entry of an unfilled lazy map's own dict storage: C code that checks
#: a dict's size before asking for its items (``json.dumps``) then asks for them
PENDING = object()


class LazyDict(dict):
    """A dict filled by ``fill(self)`` on its first read or write (then a dict).

    Every method a caller uses checks the flag first (the storage holds only
    :data:`PENDING` until then)."""

    __slots__ = ("_fill", "note")

    def __init__(self, fill: Callable[[dict], None], note: Any = None):
        super().__init__()
        dict.__setitem__(self, PENDING, None)
        self._fill = fill
        #: what its maker wants kept beside it (``group_of``: the groups whose
        #: members map to them, while it is unfilled)
        self.note = note

    @property
    def filled(self) -> bool:
        """True once filled (its own storage then holds every entry)."""
        return self._fill is None

    def _ready(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            dict.pop(self, PENDING, None)
            fill(self)


def _wrap(name: str) -> Callable:
    base = getattr(dict, name)

    def method(self, *args, **kwargs):
        if self._fill is not None:
            self._ready()
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("__getitem__", "__setitem__", "__delitem__", "__contains__", "__iter__",
              "__len__", "__eq__", "__repr__", "get", "pop", "setdefault", "keys",
              "values", "items", "update", "copy", "clear", "popitem"):
    setattr(LazyDict, _name, _wrap(_name))
LazyDict.__hash__ = None  # type: ignore[assignment]


class ShaOverlay(dict):
    """A mapping (sha256 hex, or block id for ``results``) -> value whose entries
    as of the open come from
    ``lookup(key)`` (None: no entry; a binary search over a sorted table) and
    ``every()`` (every key it has, maybe repeated); what changed since (set,
    deleted, or taken out to be changed in place) lives in ``self.changed``
    (None: deleted). Only :meth:`__iter__` (and what uses it) walks the table."""

    __slots__ = ("lookup", "every", "changed", "base_has", "table")

    def __init__(self, lookup: Callable[[str], Any], every: Callable[[], Any]):
        super().__init__()
        dict.__setitem__(self, PENDING, None)  # its own storage is never used
        self.lookup = lookup
        self.every = every
        self.changed: dict[str, Any] = {}
        #: optional: many keys' presence as of the open at once (list of bool)
        self.base_has: Callable[[list[str]], list[bool]] | None = None
        #: optional: the table the entries as of the open come from
        self.table: Any = None

    def get(self, key: str, default: Any = None) -> Any:
        changed = self.changed
        if key in changed:
            got = changed[key]
            return default if got is None else got
        got = self.lookup(key) if isinstance(key, str) else None
        if got is None:
            return default
        changed[key] = got  # a list handed out may be changed in place: keep it
        return got

    def __getitem__(self, key: str) -> Any:
        got = self.get(key)
        if got is None:
            raise KeyError(key)
        return got

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, value: Any) -> None:
        self.changed[key] = value

    def __delitem__(self, key: str) -> None:
        if self.get(key) is None:
            raise KeyError(key)
        self.changed[key] = None

    def pop(self, key: str, *default: Any) -> Any:
        got = self.get(key)
        if got is None:
            if default:
                return default[0]
            raise KeyError(key)
        self.changed[key] = None
        return got

    def setdefault(self, key: str, default: Any) -> Any:
        got = self.get(key)
        if got is None:
            self.changed[key] = got = default
        return got

    def __iter__(self) -> Iterator[str]:
        seen = set()
        for key in self.every():
            if key not in seen:
                seen.add(key)
                if self.get(key) is not None:
                    yield key
        for key, value in list(self.changed.items()):
            if key not in seen and value is not None:
                yield key

    def keys(self) -> list[str]:
        return list(self)

    def items(self) -> list[tuple[str, Any]]:
        return [(k, self[k]) for k in self]

    def values(self) -> list[Any]:
        return [self[k] for k in self]

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == (dict(other.items()) if hasattr(other, "items")
                                      else other)

    def copy(self) -> dict[str, Any]:
        return dict(self.items())

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    __hash__ = None  # type: ignore[assignment]


def sorted_find(table: np.ndarray, key: str) -> tuple[int, int]:
    """The rows ``[lo, hi)`` of ``table`` (an ascending ``S32`` array) holding the
    raw sha256 of hex ``key``; ``lo == hi`` if none (or ``key`` is no sha256)."""
    try:
        raw = bytes.fromhex(key)
    except (ValueError, TypeError):
        return 0, 0
    if len(raw) != 32:
        return 0, 0
    lo = int(table.searchsorted(raw))
    n = len(table)
    # an S32 element comes back without its trailing NUL bytes: compare it so
    raw = raw.rstrip(b"\0")
    hi = lo
    while hi < n and table[hi] == raw:  # a payload has few records: walk them
        hi += 1
    return lo, hi


def hexes(table: np.ndarray) -> Iterator[str]:
    """The sha256 hex of every element of an ``S32`` array."""
    for raw in table.tolist():
        yield raw.ljust(32, b"\0").hex()


class LazyBlocks(dict):
    """``blocks`` of a workspace opened from a format-3 checkpoint (module doc).

    ``nums``: the block numbers of the table, ascending; ``make(row)`` builds the
    :class:`Block` of table row ``row``. Registering sets a new id as on a dict;
    ``pop`` and iteration first make every block (then entries are in id order)."""

    __slots__ = ("nums", "make", "left", "complete", "source")

    def __init__(self, nums: np.ndarray, make: Callable[[int], Any]):
        super().__init__()
        self.nums = nums
        self.make = make
        self.left = len(nums)  # table rows not made yet
        self.complete = len(nums) == 0
        #: what the rows come from (a checkpoint's table: its writer copies
        #: the rows not made since)
        self.source: Any = None

    def _row(self, key: object) -> int:
        """The table row of block id ``key`` not made yet, else -1."""
        if self.complete or not isinstance(key, str) or key[:1] != "B" or \
                not key[1:].isdigit() or key[1:2] == "0":
            return -1
        n = int(key[1:])
        nums = self.nums
        i = int(np.searchsorted(nums, n))
        if i == len(nums) or int(nums[i]) != n or dict.__contains__(self, key):
            return -1
        return i

    def _made(self, key: str, row: int) -> Any:
        b = self.make(row)
        dict.__setitem__(self, key, b)
        self.left -= 1
        return b

    def __missing__(self, key: str) -> Any:
        row = self._row(key)
        if row < 0:
            raise KeyError(key)
        return self._made(key, row)

    def get(self, key: str, default: Any = None) -> Any:
        got = dict.get(self, key)
        if got is not None:
            return got
        row = self._row(key)
        return default if row < 0 else self._made(key, row)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._row(key) >= 0

    def __len__(self) -> int:
        return dict.__len__(self) + self.left

    def __bool__(self) -> bool:
        return len(self) > 0

    def everything(self) -> None:
        """Make every block and hold them in id order (the plain dict's order)."""
        if self.complete:
            return
        later = {k: v for k, v in dict.items(self)}
        dict.clear(self)
        make, setitem = self.make, dict.__setitem__
        for row, n in enumerate(self.nums.tolist()):
            key = f"B{n}"
            b = later.pop(key, None)
            setitem(self, key, b if b is not None else make(row))
        for key, b in later.items():  # registered since the open: higher ids
            setitem(self, key, b)
        self.left = 0
        self.complete = True

    def recovered_from(self, source: str, code: int) -> list[Any]:
        """The blocks whose ``recovered_from`` is ``source`` (table code ``code``:
        :func:`~sim.workspace.columns.link`), in id order, making only those."""
        if self.complete or self.source is None:
            return [b for b in dict.values(self) if b.recovered_from == source]
        found = {b.id: b for b in dict.values(self) if b.recovered_from == source}
        rows = self.source.rows
        for row in np.flatnonzero(rows["rfrom"] == code).tolist():
            key = f"B{int(self.nums[row])}"
            if key not in found and not dict.__contains__(self, key):
                found[key] = self._made(key, row)
        return sorted(found.values(), key=lambda b: int(b.id[1:]))

    def made(self) -> list[Any]:
        """The blocks made or registered so far (no table row is made here)."""
        return list(dict.values(self))

    def __iter__(self) -> Iterator[str]:
        self.everything()
        return dict.__iter__(self)

    def keys(self):  # type: ignore[override]
        self.everything()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self.everything()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self.everything()
        return dict.items(self)

    def _in_table(self, key: str) -> bool:
        n = int(key[1:]) if isinstance(key, str) and key[1:].isdigit() else -1
        i = int(self.nums.searchsorted(n))
        return i < len(self.nums) and int(self.nums[i]) == n

    def pop(self, key: str, *default: Any) -> Any:
        if not self.complete and (self._in_table(key) or not dict.__contains__(
                self, key)):  # a table row: every block made first (rows stay put)
            self.everything()
        return dict.pop(self, key, *default)  # registered since: O(1), as a dict

    def __delitem__(self, key: str) -> None:
        self.everything()
        dict.__delitem__(self, key)

    def __eq__(self, other: object) -> bool:
        self.everything()
        return dict.__eq__(self, other)

    def __repr__(self) -> str:
        return f"LazyBlocks({len(self)} blocks, {self.left} not made yet)"

    __hash__ = None  # type: ignore[assignment]
