"""Incremental token accounting for the budget check of a registration.

Deciding whether a tool result fits used to assemble the whole request with the new
block in it. :class:`TotalBound` keeps instead a running *upper bound* on the tokens
of the request that would be assembled now: exact after every assembly, then grown
by each registered block by at most

    block tokens + len(tool_call_id in UTF-8 bytes) + SLACK

where ``SLACK`` covers what one new block can add besides its own message: a ledger
row or status-board line (at most 128 ASCII characters), a new status-board section
heading (64), the dashboard header re-rendered with new numbers (at most 384 in
all), and the prefix of a result whose call is no longer visible (128). For the
bundled tokenizers (cl100k_base, whitespace, char) a token covers at least one byte
of ASCII text, so characters bound tokens. When the bound says the request fits,
the registration is decided without an assembly; otherwise (near the budget, after
a new turn, another operation, or a foreign tokenizer) the exact what-if assembly
runs as before, so every decision is the one the exact count gives. The property
test checks bound >= exact after random sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

SLACK = 128 + 64 + 384 + 128
#: tokenizers whose token count of ASCII text never exceeds its length
CHAR_BOUNDED = frozenset({"cl100k_base", "whitespace", "char"})


class TotalBound:
    """Upper bound (tokens) on the request total of ``ws``'s current state, or None
    when unknown."""

    def __init__(self, ws: "Workspace"):
        self.ws = ws
        self.total: int | None = None
        self._turn = -1
        self._tried: tuple[str, str, int] | None = None

    def exact(self, total: int) -> None:
        """An assembly of the current state measured ``total`` tokens."""
        self.total, self._turn = total, self.ws.turn

    def tried(self, op: dict[str, Any], total: int) -> None:
        """The exact what-if of register ``op`` measured ``total``."""
        self._tried = (op["id"], op["status"], total)

    def after(self, op: dict[str, Any]) -> int | None:
        """Upper bound on the total once register ``op`` is applied, or None."""
        if (self.total is None or op.get("op", "register") != "register"
                or op["turn"] != self._turn
                or self.ws.tokenizer.name not in CHAR_BOUNDED):
            return None
        cid = op["message"].get("tool_call_id") or ""
        return self.total + op["tokens"] + len(str(cid).encode()) + SLACK

    def committed(self, op: dict[str, Any]) -> None:
        """Follow a committed operation (any other than register: unknown)."""
        tried, self._tried = self._tried, None
        if op["op"] != "register":
            self.total = None
        elif tried is not None and tried[:2] == (op["id"], op["status"]):
            self.exact(tried[2])
        else:
            self.total = self.after(op)
