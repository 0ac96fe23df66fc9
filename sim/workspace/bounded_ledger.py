"""The bounded ledger: a dashboard whose size never exceeds a token cap the user sets
(issue 14; VISTA Fig. 10 reports a ~340-token dashboard that stays flat as a session
grows, where the full ledger grows by one row per top-level item).

It keeps the full ledger's budget bar (used / budget, overhead, conversation and its
own tokens, all exact) and shows only the rows that serve the archive decision:

* tier 0: visible (archivable) items, largest first: eviction needs the top of the
  size distribution, not its tail (THEORY.md "The bounded ledger");
* tier 1: archived items, largest first, in whatever room is left: the size of a
  recovery tells the agent how much it must free to make room for it.

Pinned items are never listed (they cannot be archived; the presentation study's best
layout is sorted with no pinned rows). Everything not listed is aggregated in one
remainder line (count, total tokens, oldest age), so shown rows + remainder equal the
full ledger's totals exactly. Rows are compact: id, tokens (no thousands separator),
age, a short type, and level/status only when they are not the default (L0, visible).

Counting: every row is one line ending in a newline and starting with a letter, where
cl100k_base's pre-tokenizer always splits, so the text's tokens are the sum of the
lines' tokens (tests check it). A row's count is its head and tail's (cached by row)
plus its age's (cached by age); at most ``cap / 4`` rows can be shown, so each render
tokenizes a bounded number of new rows whatever the number of blocks, and makes the
text of the rows shown only; selecting them is one ``heapq.nlargest`` pass.
"""

from __future__ import annotations

from functools import lru_cache, partial
from itertools import compress, repeat
from operator import eq, itemgetter, not_

from .dashboard import (CLOSE_TAG, MESSAGE_TOKENS, OPEN_TAG, BudgetFacts, Rendered, Row,
                        _bar, _fixed_point)
from .errors import WorkspaceError
from .tokenizer import Tokenizer, count_by_lines

#: the default token cap (the issue's setting, near VISTA's reported ~340 tokens)
DEFAULT_CAP = 400
#: the fewest tokens any row line costs ("B1 1 0r call\n" is 7): bounds the rows a cap
#: can hold, hence the per-render work
MIN_ROW_TOKENS = 4
_SHORT_TYPE = {"tool_result": "result", "tool_call": "call"}
#: the largest numbers the worst-case header and remainder line are checked with
_WORST = 999_999_999
# Row fields read by map() (a C loop over every row, not a Python one per row)
_ID, _TOKENS, _TURN, _STATUS = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(6)


class DashboardCapError(WorkspaceError):
    """The token cap cannot hold even the budget bar and the remainder line."""


def cap_too_small(cap: int, need: int) -> str:
    """The one wording of a cap below :meth:`BoundedLedgerDashboard.minimum_cap`
    ``need`` (tokens), shared by the dashboard and the ``--dashboard-tokens`` options."""
    return (f"dashboard token cap {cap} cannot hold the budget bar and the remainder "
            f"line; need at least {need} tokens")


def row_line(row: Row, age: int) -> str:
    """One compact row: ``B12 41210 3r result`` (+ `` L1`` / `` archived`` when the
    level or status is not the default)."""
    level = f" L{row.level}" if row.level else ""
    status = "" if row.status == "visible" else f" {row.status}"
    return f"{row.id} {row.tokens} {age}r {_SHORT_TYPE.get(row.type, row.type)}{level}{status}\n"


def remainder_line(count: int, tokens: int, oldest: int) -> str:
    """The line aggregating every item not listed (count, tokens, oldest age)."""
    return f"+{count} more {tokens} tok oldest {oldest}r\n"


@lru_cache(maxsize=8)
def _default_need(cls: type) -> int:
    """``cls.minimum_cap`` in cl100k_base, the tokenizer a dashboard made without one
    is checked with: the same number for every dashboard of ``cls``, counted once
    per process (every episode of a sweep makes one)."""
    from .tokenizer import get_tokenizer

    return cls.minimum_cap(get_tokenizer("cl100k_base"))


class BoundedLedgerDashboard:
    """The bounded ledger with a cap of ``cap`` tokens (framing included).

    After each :meth:`render`, ``shown`` holds the listed ids (display order) and
    ``remainder`` the ``(count, tokens, oldest_age)`` of the rest.

    Raises:
        DashboardCapError: if ``cap`` is not an int or is below :meth:`minimum_cap`
            (a budget bar and remainder line with nine-digit numbers).
    """

    name = "bounded_ledger"
    HEADER_ROWS = "## Largest blocks (ID tok age type; pinned not listed)\n"

    def __init__(self, cap: int = DEFAULT_CAP, tokenizer: Tokenizer | None = None) -> None:
        if isinstance(cap, bool) or not isinstance(cap, int):
            raise DashboardCapError(f"dashboard token cap must be an int, got {cap!r}")
        need = (self.minimum_cap(tokenizer) if tokenizer is not None
                else _default_need(type(self)))
        if cap < need:
            raise DashboardCapError(cap_too_small(cap, need))
        self.cap = cap
        self.shown: tuple[str, ...] = ()
        self.remainder: tuple[int, int, int] = (0, 0, 0)
        self._parts: dict[Row, int] = {}   # a row's head + tail tokens (_split_count)
        self._ages: dict[int, int] = {}    # tokens of " <age>r"

    @classmethod
    def minimum_cap(cls, tokenizer: Tokenizer) -> int:
        """Tokens of a dashboard with no rows and nine-digit numbers everywhere: the
        smallest cap accepted (a real render with no rows never costs more)."""
        facts = BudgetFacts(_WORST, _WORST, _WORST, _WORST)
        rest = (MESSAGE_TOKENS + tokenizer.count(CLOSE_TAG)
                + tokenizer.count(remainder_line(_WORST, _WORST, _WORST)))
        return _fixed_point(cls._header_maker(facts, cls.HEADER_ROWS),
                            tokenizer.count, rest)[1]

    @staticmethod
    def _header_maker(facts: BudgetFacts, rows_header: str):
        def make(total: int, pad: int) -> str:
            used = facts.overhead + facts.conversation + total
            return (f"{OPEN_TAG}## Context Budget {_bar(used, facts.budget)}\n"
                    f"overhead ~{facts.overhead:,} | conversation ~{facts.conversation:,}"
                    f" | dashboard ~{total:,}{' ' * pad}\n{rows_header}")
        return make

    def _line_tokens(self, row: Row, age: int, tok: Tokenizer, fresh: bool) -> int:
        """Tokens of ``row_line(row, age)``. Why not the text too: most candidates
        are passed over (they do not fit), so the text is made only for the rows
        shown (:func:`row_line` in :meth:`render`)."""
        n = None if fresh else self._split_count(row, age, tok)
        return n if n is not None else tok.count(row_line(row, age))

    def _split_count(self, row: Row, age: int, tok: Tokenizer) -> int | None:
        """Tokens of ``row_line(row, age)`` as head + `` <age>r`` + tail, or None for a
        tokenizer other than cl100k_base or a type not starting with a letter.

        Why: a row's age changes every turn, so its line would be tokenized again on
        every render. cl100k_base's pre-tokenizer always splits before the space
        ahead of the age (a digit precedes it, a digit follows) and after the ``r``
        (a letter run that stops at the space before the type's letters), and BPE
        never merges across its pieces, so the counts of the three parts add up;
        the head and tail are counted once per row, each age once
        (``tests/workspace/test_bounded_ledger.py`` checks it against whole lines)."""
        line_type = _SHORT_TYPE.get(row.type, row.type)
        if tok.name != "cl100k_base" or not line_type[:1].isalpha():
            return None
        parts = self._parts.get(row)
        if parts is None:
            head = f"{row.id} {row.tokens}"
            tail = row_line(row, 0)[len(head) + 3:]  # after " 0r"
            parts = self._parts[row] = tok.count(head) + tok.count(tail)
        n = self._ages.get(age)
        if n is None:
            n = self._ages[age] = tok.count(f" {age}r")
        return parts + n

    def _candidates(self, rows: list[Row], k: int) -> list[Row]:
        """Up to ``k`` rows in display order: visible largest first, then archived."""
        # sorted(..., reverse=True)[:k] is what heapq.nlargest is documented to equal
        # (ties in input order), made by one C sort
        statuses = list(map(_STATUS, rows))
        visible = list(map(eq, statuses, repeat("visible")))
        top = sorted(compress(rows, visible), key=_TOKENS, reverse=True)[:k]
        if len(top) < k:
            rest = list(map(eq, statuses, repeat("pinned")))
            others = compress(rows, map(not_, map(max, visible, rest)))
            top += sorted(others, key=_TOKENS, reverse=True)[:k - len(top)]
        return top

    def render(self, rows: list[Row], facts: BudgetFacts, tokenizer: Tokenizer,
               fresh: bool = False) -> Rendered:
        """Render at most ``cap`` tokens; ``fresh`` ignores and leaves the caches.

        Raises:
            DashboardCapError: if not even the bar and the remainder line fit (cannot
                happen for numbers below a billion, see :meth:`minimum_cap`).
        """
        count = tokenizer.count
        by_lines = partial(count_by_lines, tokenizer)  # the header: see count_by_lines
        all_tokens = sum(map(_TOKENS, rows))
        fixed = MESSAGE_TOKENS + count(CLOSE_TAG)
        make = self._header_maker(facts, self.HEADER_ROWS)
        # room for rows, assuming the header states the cap and the remainder line
        # carries the largest numbers it can (both checked exactly below); the
        # remainder line has new numbers on every render, so it is counted as the
        # header is (by_lines: its template and digit groups are memo hits)
        room = (self.cap - fixed - by_lines(make(self.cap, 0))
                - by_lines(remainder_line(len(rows), all_tokens, facts.turn)))
        chosen: list[tuple[Row, int]] = []
        used = 0
        for r in self._candidates(rows, max(0, room) // MIN_ROW_TOKENS):
            n = self._line_tokens(r, facts.turn - r.turn, tokenizer, fresh)
            if used + n > room:
                continue  # a shorter row further down may still fit
            chosen.append((r, n))
            used += n
        while True:
            ids = {r.id for r, _ in chosen}
            hidden_tokens = all_tokens - sum(r.tokens for r, _ in chosen)
            # the oldest age not listed: the turn less the least turn of the others
            others = compress(map(_TURN, rows), map(not_, map(ids.__contains__,
                                                              map(_ID, rows))))
            oldest = facts.turn - min(others, default=facts.turn)
            rem = (len(rows) - len(chosen), hidden_tokens, oldest)
            tail = remainder_line(*rem)
            rest = fixed + sum(n for _, n in chosen) + by_lines(tail)
            header, total = _fixed_point(make, by_lines, rest)
            if total <= self.cap:
                break
            if not chosen:
                raise DashboardCapError(
                    f"dashboard token cap {self.cap} cannot hold the budget bar and the "
                    f"remainder line ({total} tokens)")
            chosen.pop()
        self.shown = tuple(r.id for r, _ in chosen)
        self.remainder = rem
        if len(self._parts) > 64 * max(1, self.cap // MIN_ROW_TOKENS):
            self._parts.clear()  # rows of the past
        body = "".join(row_line(r, facts.turn - r.turn) for r, _ in chosen)
        return Rendered(header + body + tail + CLOSE_TAG, total)
