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

A new root turn (every assistant message starts one) changes nothing in a request
but the ages its dashboard rows show, so the bound survives it, grown by
:meth:`TotalBound.turn_shift`: nothing for the "none" dashboard; nothing for the
ledger while every age ``<n>r`` from 0 to the new turn costs what ``0r`` costs (each
counted once; ages run from 0 to the turn; for cl100k_base all of 0r-999r are 2
tokens): the ledger counts the age apart from the rest of its row, so the rows,
hence the header's numbers and the whole request, are unchanged; for the
bounded ledger, whose whole dashboard never exceeds its cap, the cap less the
dashboard of the last exact total. Elsewhere (the status board, an age that costs
more, a foreign tokenizer) the bound is dropped as before and the what-if assembles.
(Issue 35: before this, every tool result after its call's new turn needed an exact
what-if assembly.)

With a budget and no policy the request soon stays over budget, and every tool
result used to need two exact assemblies (inline and offloaded: O(blocks) each, 11
to 40 ms a registration at 2k-6k blocks; issue 22). The guard is decided instead by
a *lower* bound and a local difference:

* ``floor``: the last exact total. Registering a block never lowers the total (its
  ledger row alone outweighs the few tokens by which its call's answer can shrink
  from ``[no result registered]``), nor does a new turn (an age ``<n>r`` never
  takes fewer tokens as n grows: checked for cl100k_base up to 10^6); only the
  header's numbers (used, conversation and dashboard totals, percentage, the
  bar's fill and the fixed point's padding) may lose tokens, by at most
  ``HEADER_SLACK``. So ``floor - HEADER_SLACK`` bounds every later total from below
  until an operation other than register or turn. The ledger and "none"
  dashboards only: a bounded ledger may drop a row.
* when the request is surely over budget, the inline and offloaded requests differ
  only in the result's own message (its tokens against its placeholder's) and
  ledger row (status and level), both counted exactly, and the header's numbers.
  The guard offloads when that local saving exceeds ``LOCAL_SLACK`` (the request
  then surely shrinks) and keeps the result inline otherwise: offloading never
  makes a request larger, and a result whose placeholder would save 16 tokens or
  fewer stays readable in place. No assembly, whatever the workspace's size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .messages import wire_safe

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

SLACK = 128 + 64 + 384 + 128
#: tokens the dashboard header's numbers, percentage, bar and padding can lose
HEADER_SLACK = 32
#: what besides the result's message and ledger row can differ between its inline
#: and offloaded requests: the header's numbers (used, conversation, dashboard: 2
#: tokens each where one crosses a power of 1,000), percentage (1), bar (2) and the
#: fixed point's padding (3), with room to spare
LOCAL_SLACK = 16
_FLOOR_DASHBOARDS = frozenset({"ledger", "none"})
#: tokenizers whose token count of ASCII text never exceeds its length
CHAR_BOUNDED = frozenset({"cl100k_base", "whitespace", "char"})


class TotalBound:
    """Upper bound (tokens) on the request total of ``ws``'s current state, or None
    when unknown."""

    def __init__(self, ws: "Workspace"):
        self.ws = ws
        self.total: int | None = None
        #: lower bound on the current total (the last exact one), or None
        self.floor: int | None = None
        #: dashboard tokens of the last exact total (None: not known), what a bounded
        #: ledger's cap can add beyond it (:meth:`turn_shift`)
        self.dash: int | None = None
        self._turn = -1
        self._tried: tuple[str, str, int] | None = None
        #: the largest turn t for which every age 0r..<t>r costs what 0r costs
        self._flat_to = -1

    def exact(self, total: int, dash: int | None = None) -> None:
        """An assembly of the current state measured ``total`` tokens, ``dash`` of
        them its dashboard's (None: not known)."""
        self.total, self._turn = total, self.ws.turn
        self.floor = total
        self.dash = dash

    def turn_shift(self, turn: int) -> int | None:
        """Tokens by which the request of the current items can grow when the root
        turn moves from the bound's turn to ``turn`` (later), or None when not known
        (see the module doc)."""
        ws = self.ws
        dash = ws.assembler.dashboard
        if turn < self._turn:
            return None
        if dash.name == "none":
            return 0
        if dash.name == "bounded_ledger":
            return max(0, dash.cap - (self.dash or 0))
        if dash.name == "ledger":
            # every age 0..turn counted once, as the ledger counts it (apart from
            # its row): O(1) per new turn, and no assumption on how counts grow
            count, zero = ws.tokenizer.count, None
            while self._flat_to < turn:
                zero = count("0r") if zero is None else zero
                if count(f"{self._flat_to + 1}r") != zero:
                    return None
                self._flat_to += 1
            return 0
        return None

    def tried(self, op: dict[str, Any], total: int) -> None:
        """The exact what-if of register ``op`` measured ``total``."""
        self._tried = (op["id"], op["status"], total)

    def after(self, op: dict[str, Any]) -> int | None:
        """Upper bound on the total once register ``op`` is applied, or None."""
        if (self.total is None or op.get("op", "register") != "register"
                or self.ws.tokenizer.name not in CHAR_BOUNDED):
            return None
        shift = 0 if op["turn"] == self._turn else self.turn_shift(op["turn"])
        if shift is None:
            return None
        # the id as sent: a lone surrogate goes out as its escape (and cannot be
        # encoded as UTF-8 as it is)
        cid = wire_safe(str(op["message"].get("tool_call_id") or ""))
        return self.total + shift + op["tokens"] + len(cid.encode()) + SLACK

    def committed(self, op: dict[str, Any]) -> None:
        """Follow a committed operation (any other than register: unknown)."""
        tried, self._tried = self._tried, None
        if op["op"] == "turn":
            shift = None if self.total is None else self.turn_shift(op["turn"])
            self._moved(None if shift is None else self.total + shift, op["turn"])
        elif op["op"] != "register":
            self.total = self.floor = None
        elif tried is not None and tried[:2] == (op["id"], op["status"]):
            self.exact(tried[2])
        else:
            self._moved(self.after(op), op["turn"])

    def _moved(self, total: int | None, turn: int) -> None:
        """The bound grew to ``total`` (None: unknown) at root turn ``turn``; a
        bounded ledger's shift has then been added once: its dashboard is counted
        at its cap from here on."""
        if total is not None and turn != self._turn:
            dash = self.ws.assembler.dashboard
            if dash.name == "bounded_ledger":
                self.dash = dash.cap
        self.total, self._turn = total, turn

    def floor_after(self, op: dict[str, Any]) -> int | None:
        """Lower bound on the total once register ``op`` is applied, or None."""
        ws = self.ws
        if self.floor is None or ws.tokenizer.name not in CHAR_BOUNDED or \
                ws.assembler.dashboard.name not in _FLOOR_DASHBOARDS:
            return None
        return self.floor - HEADER_SLACK

    def saving(self, op: dict[str, Any], ws: "Workspace") -> int | None:
        """Tokens offloading register ``op`` saves in its own message and ledger row
        (exact), or None where that is not all that differs but the header (a
        result rendered with its call's prefix, a recovered block, a foreign
        tokenizer, a bounded ledger): then assemble both. Above
        :data:`LOCAL_SLACK` the whole request surely shrinks."""
        from .assembly import message_tokens
        from .blocks import BlockStatus

        if ws.tokenizer.name not in CHAR_BOUNDED or op.get("recovered_from") or \
                ws.assembler.dashboard.name not in _FLOOR_DASHBOARDS:
            return None
        cb = op.get("call_block")
        if cb is not None and not ws.blocks[cb].in_stream:
            return None  # rendered with a prefix naming its call: assemble
        handle = op["handle"]
        off = BlockStatus.OFFLOADED.value
        text = (f"[{off} {op['id']}: {op['type']}, ~{op['tokens']:,} tokens; "
                f"payload {ws.store.root.name}/{handle['path']}]")
        tok = ws.tokenizer
        placeholder = message_tokens({"role": "user", "content": text}, tok)
        saving = op["tokens"] - placeholder
        if ws.assembler.dashboard.name == "ledger":  # the row's status and level
            row = f" | {op['type']} | L{{}} | {cb or '-'} | {{}}\n"
            saving += tok.count(row.format(0, op["status"])) - \
                tok.count(row.format(1, off))
        return saving
