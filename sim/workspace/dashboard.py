"""Dashboard renderers (VISTA §2.3 and the implementation appendix's "Dashboard
format"): the factual ledger, a status-board variant of the same facts, and none.

The ledger is rendered incrementally: each row is cut into the part before the age,
the age, and the part after, at places where cl100k_base's pre-tokenizer always splits
(`` | `` separators, one row per line), so the row's token count is the sum of the
parts' counts and only rows whose facts changed are re-tokenized; ages are counted
once per distinct value. Tests check the sum equals counting the whole text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, Protocol

from .tokenizer import Tokenizer, count_by_lines

#: chat framing tokens per message (OpenAI cookbook convention), see assembly.py
MESSAGE_TOKENS = 3
OPEN_TAG = "<context_workspace_status>\n"
CLOSE_TAG = "</context_workspace_status>"


class Row(NamedTuple):
    """One ledger row: ``id`` (B<n> or G<n>), ``tokens`` (the block's raw message
    size, or a group's total), ``turn`` (root turn it entered; age = now - turn),
    ``type``, ``level`` (0 raw, 1 archived, 2 nested ...), ``parent`` ("-" if none)
    and ``status``. A tuple: 10,000 of them are made per assembly."""

    id: str
    tokens: int
    turn: int
    type: str
    level: int
    parent: str
    status: str


@dataclass(frozen=True)
class BudgetFacts:
    """The budget bar's inputs, in tokens: ``budget`` (None: unlimited), ``overhead``
    (system prompt + tool schemas) and ``conversation`` (rendered stream)."""

    budget: int | None
    overhead: int
    conversation: int
    turn: int


@dataclass(frozen=True)
class Rendered:
    """A rendered dashboard: ``text`` (the message content; "" for none) and
    ``tokens`` (its whole message cost, framing included; 0 for none)."""

    text: str
    tokens: int


class Dashboard(Protocol):
    """A renderer: ``render(rows, facts, tokenizer, fresh)`` -> :class:`Rendered`,
    where the shown dashboard total equals the returned ``tokens`` (invariant 8)."""

    name: str

    def render(self, rows: list[Row], facts: BudgetFacts, tokenizer: Tokenizer,
               fresh: bool = False) -> Rendered:
        ...


def _bar(used: int, budget: int | None, width: int = 20) -> str:
    if not budget:
        return f"[{'-' * width}] (~{used:,} tokens, no budget)"
    frac = used / budget
    fill = min(width, int(frac * width))
    return f"[{'#' * fill}{'-' * (width - fill)}] {round(100 * frac)}% (~{used:,} / {budget:,} tokens)"


def _fixed_point(make, count, rest: int) -> tuple[str, int]:
    """Render a header that states the dashboard's own token total: iterate until the
    stated total equals the counted one. If the digits oscillate, ``make(total, pad)``
    pads inside the header (never at a boundary with the rows, which are counted
    apart) until the count meets the stated total."""
    guess = rest
    seen = set()
    while guess not in seen:
        seen.add(guess)
        actual = rest + count(make(guess, 0))
        if actual == guess:
            return make(guess, 0), actual
        guess = actual
    for target in range(max(seen), max(seen) + 64):
        for pad in range(1, 64):
            n = rest + count(make(target, pad))
            if n == target:
                return make(target, pad), n
            if n > target:
                break
    raise RuntimeError("dashboard token total did not converge")  # pragma: no cover


class LedgerDashboard:
    """The factual ledger: a budget bar and one row per top-level item with ID,
    ~tokens, age (``<n>r``, 0r newest), type, level, parent and status."""

    name = "ledger"
    HEADER_ROWS = ("## Context Blocks (Age = root-turn distance; 0r newest)\n"
                   "ID | ~Tok | Age | Type | Level | Parent | Status\n")

    def __init__(self) -> None:
        self._rows: dict[tuple, tuple[str, str, int]] = {}
        self._ages: dict[int, tuple[str, int]] = {}

    def _row(self, row: Row, tok: Tokenizer, fresh: bool) -> tuple[str, str, int]:
        key = row  # a block's turn never changes, so the whole row is the key
        hit = None if fresh else self._rows.get(key)
        if hit is None:
            before = f"{row.id} | {row.tokens:,} | "
            after = f" | {row.type} | L{row.level} | {row.parent} | {row.status}\n"
            hit = (before, after, tok.count(before) + tok.count(after))
            if not fresh:
                self._rows[key] = hit
        return hit

    def _age(self, age: int, tok: Tokenizer, fresh: bool) -> tuple[str, int]:
        hit = None if fresh else self._ages.get(age)
        if hit is None:
            hit = (f"{age}r", tok.count(f"{age}r"))
            if not fresh:
                self._ages[age] = hit
        return hit

    def render(self, rows: list[Row], facts: BudgetFacts, tokenizer: Tokenizer,
               fresh: bool = False) -> Rendered:
        """Render and count; ``fresh`` ignores and leaves the caches (full rebuild)."""
        parts: list[str] = []
        body = 0
        turn = facts.turn
        # the caches read in the loop itself (a method call per row and part costs
        # more than the lookup); a miss, or ``fresh``, goes through _row / _age
        kept_rows, kept_ages = ({}, {}) if fresh else (self._rows, self._ages)
        for row in rows:
            hit = kept_rows.get(row) or self._row(row, tokenizer, fresh)
            age = kept_ages.get(turn - row.turn) or self._age(turn - row.turn,
                                                              tokenizer, fresh)
            parts += (hit[0], age[0], hit[1])
            body += hit[2] + age[1]
        tail = tokenizer.count(CLOSE_TAG)
        rest = MESSAGE_TOKENS + body + tail

        def make(total: int, pad: int) -> str:
            used = facts.overhead + facts.conversation + total
            return (f"{OPEN_TAG}## Context Budget {_bar(used, facts.budget)}\n"
                    f"overhead ~{facts.overhead:,} | conversation ~{facts.conversation:,}"
                    f" | dashboard ~{total:,}{' ' * pad}\n{self.HEADER_ROWS}")

        header, total = _fixed_point(make, partial(count_by_lines, tokenizer), rest)
        if len(self._rows) > 4 * max(len(rows), 1024):  # drop rows of the past
            self._rows.clear()
        return Rendered(header + "".join(parts) + CLOSE_TAG, total)


class StatusBoardDashboard:
    """The status-board ablation: the same facts grouped by status, one line per
    item (``B7 tool_result ~1,234 tok, age 3r, L0, parent B6``). Counted whole."""

    name = "status_board"

    def render(self, rows: list[Row], facts: BudgetFacts, tokenizer: Tokenizer,
               fresh: bool = False) -> Rendered:
        """Render and count the board."""
        sections: dict[str, list[str]] = {}
        for r in rows:
            sections.setdefault(r.status, []).append(
                f"- {r.id} {r.type} ~{r.tokens:,} tok, age {facts.turn - r.turn}r, "
                f"L{r.level}, parent {r.parent}")
        body = "".join(f"### {status} ({len(lines)})\n" + "\n".join(lines) + "\n"
                       for status, lines in sections.items())

        def make(total: int, pad: int) -> str:
            used = facts.overhead + facts.conversation + total
            return (f"{OPEN_TAG}## Workspace status board\nbudget: "
                    f"{_bar(used, facts.budget)}\noverhead ~{facts.overhead:,}, "
                    f"conversation ~{facts.conversation:,}, board ~{total:,}{' ' * pad}\n"
                    f"{body}{CLOSE_TAG}")

        text, total = _fixed_point(make, partial(count_by_lines, tokenizer),
                                   MESSAGE_TOKENS)
        return Rendered(text, total)


class NoDashboard:
    """The no-dashboard ablation: nothing is shown and nothing is spent."""

    name = "none"

    def render(self, rows: list[Row], facts: BudgetFacts, tokenizer: Tokenizer,
               fresh: bool = False) -> Rendered:
        """An empty dashboard (0 tokens)."""
        return Rendered("", 0)


def bounded_ledger(cap: int | None = None) -> Dashboard:
    """A :class:`~sim.workspace.bounded_ledger.BoundedLedgerDashboard` with token cap
    ``cap`` (None: its default, 400)."""
    from .bounded_ledger import DEFAULT_CAP, BoundedLedgerDashboard

    return BoundedLedgerDashboard(DEFAULT_CAP if cap is None else cap)


#: name -> factory of a fresh renderer
DASHBOARDS = {"ledger": LedgerDashboard, "status_board": StatusBoardDashboard,
              "none": NoDashboard, "bounded_ledger": bounded_ledger}


def dashboard_spec(name: str, tokens: int | None = None) -> str:
    """The dashboard name a workspace takes: ``name``, or for ``bounded_ledger`` with a
    token cap, ``bounded_ledger:<tokens>``."""
    return f"{name}:{tokens}" if name == "bounded_ledger" and tokens else name


def make_dashboard(name: str) -> Dashboard:
    """A renderer by name: "ledger", "status_board", "none", or "bounded_ledger"
    optionally with its token cap, "bounded_ledger:400" (default 400). Raises
    :class:`~sim.workspace.errors.WorkspaceError` for other names or a bad cap."""
    from .errors import WorkspaceError

    base, sep, cap = str(name).partition(":")
    if base == "bounded_ledger" and sep:
        if not cap.strip().isdigit():
            raise WorkspaceError(f"bad dashboard {name!r}: the token cap after ':' must "
                                 "be a positive integer, e.g. 'bounded_ledger:400'")
        return bounded_ledger(int(cap))
    try:
        if sep:
            raise KeyError(name)
        return DASHBOARDS[base]()
    except KeyError:
        raise WorkspaceError(f"unknown dashboard {name!r}; choose one of "
                             f"{sorted(DASHBOARDS)} ('bounded_ledger:<tokens>' sets "
                             "the cap)") from None
