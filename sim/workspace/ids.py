"""Block-id spec grammar (DESIGN.md "Block-id specs"; VISTA context-tool appendix).

::

    spec  := item ( "," item )*          whitespace around items tolerated
    item  := "B" n | "B" n "-" "B" n | "B" n "-" n | "G" n
    n     := [1-9][0-9]*                 (ids start at 1; no leading zeros, no sign)

Examples: ``"B3"``, ``"B3, B4"``, ``"B10-B20"``, ``"B6-9"`` (the paper's figure form),
``"G2"``. Anything else raises :class:`~sim.workspace.errors.BlockIdError` naming the
bad token. Parsing is pure; resolving ids against a workspace happens there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import BlockIdError

_N = r"[1-9][0-9]*"
_ITEM = re.compile(rf"^(?:B(?P<b>{_N})(?:-B?(?P<e>{_N}))?|G(?P<g>{_N}))$")
#: refuse absurd specs before any work is done (characters)
MAX_SPEC_LENGTH = 10_000
_BLOCK_ID = re.compile(rf"^B{_N}$")
_GROUP_ID = re.compile(rf"^G{_N}$")


@dataclass(frozen=True)
class SpecItem:
    """One parsed item: a block range ``B<start>..B<end>`` (inclusive; a single id has
    ``start == end``) or a group ``G<group>`` (then ``start == end == 0``)."""

    kind: str  # "block" or "group"
    start: int = 0
    end: int = 0
    group: int = 0
    text: str = ""


def parse_spec(spec: str) -> list[SpecItem]:
    """Parse a block-id spec into items, in the order written.

    Raises :class:`BlockIdError` for a non-string, empty or over-long spec, an empty
    item (``"B3,,B4"``), a malformed token (``"B"``, ``"X7"``, ``"B-1"``, ``"B0"``)
    or a reversed range (``"B10-B3"``); the error's ``token`` is the offending token.
    """
    if not isinstance(spec, str):
        raise BlockIdError(f"block-id spec must be a string, got {spec!r}", repr(spec))
    if len(spec) > MAX_SPEC_LENGTH:
        raise BlockIdError(f"block-id spec is {len(spec)} characters, over the limit "
                           f"{MAX_SPEC_LENGTH}", spec[:40])
    if not spec.strip():
        raise BlockIdError(f"empty block-id spec {spec!r}", spec)
    items: list[SpecItem] = []
    for raw in spec.split(","):
        token = raw.strip()
        if not token:
            raise BlockIdError(f"empty item in block-id spec {spec!r}", raw)
        m = _ITEM.match(token)
        if m is None:
            raise BlockIdError(f"bad block-id token {token!r} in spec {spec!r} "
                               "(expected B<n>, B<n>-B<m> or G<n>)", token)
        if m.group("g") is not None:
            items.append(SpecItem("group", group=int(m.group("g")), text=token))
            continue
        start = int(m.group("b"))
        end = int(m.group("e")) if m.group("e") is not None else start
        if end < start:
            raise BlockIdError(f"reversed range {token!r} in spec {spec!r}", token)
        items.append(SpecItem("block", start=start, end=end, text=token))
    return items


def is_block_id(text: object) -> bool:
    """True if ``text`` is exactly one well-formed block id ``B<n>``."""
    return isinstance(text, str) and _BLOCK_ID.match(text) is not None


def is_group_id(text: object) -> bool:
    """True if ``text`` is exactly one well-formed group id ``G<n>``."""
    return isinstance(text, str) and _GROUP_ID.match(text) is not None


def format_ids(ids: list[str]) -> str:
    """Compress a list of block ids into a spec, runs as ranges (``B3-B5,B9,G2``).
    Round-trips through :func:`parse_spec` to the same id list (for sorted input)."""
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if run:
            out.append(f"B{run[0]}" if len(run) == 1 else f"B{run[0]}-B{run[-1]}")
            run.clear()

    for ident in ids:
        if is_block_id(ident):
            n = int(ident[1:])
            if run and n != run[-1] + 1:
                flush()
            run.append(n)
        else:
            flush()
            out.append(ident)
    flush()
    return ",".join(out)
