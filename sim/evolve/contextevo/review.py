"""Stage 1b, paginated review (ContextEvo §4.1, App. B.2 "Paginated semantic review").

The trajectory is rendered call by call; the card's chunks become pages, and a chunk
longer than the page limit (:data:`PAGE_CHARS` = 90,000 characters) is split, only at
call boundaries. A single call longer than the limit keeps its header and context
lines and has its result text cut to fit, with a marker saying how much was cut (a
call is never split across pages). The reviewer (a back-end, :mod:`sim.evolve.contextevo.backends`)
reads the pages in order, keeping rolling notes capped at :data:`NOTES_CHARS` = 3,000
characters (enforced here, whatever the back-end returns), and writes one case report
after the last page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sim.evolve.contextevo.cards import chunk_bounds

PAGE_CHARS = 90_000
NOTES_CHARS = 3_000
LABELS = ("evidence_removed", "budget_overflow", "context_degradation", "agent_error",
          "none")


@dataclass(frozen=True)
class CaseReport:
    """One case-level report: ``label`` (one of :data:`LABELS`), the intervention
    point ``surface`` the reviewer blames ("" when none), a short ``evidence`` line,
    and ``pages`` read (0: the report came from the card alone)."""

    task_id: str
    label: str
    surface: str
    evidence: str
    pages: int
    #: the sense the blamed surface is wrong in (one of
    #: :data:`sim.evolve.contextevo.grammar_moves.DIRECTIONS`; "" for none)
    direction: str = ""

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def render_call(call, budget: int = 0) -> str:
    """One call as the reviewer reads it: header (with the budget when known), the
    context lines, notice, result. A context line says what the agent's own request
    showed in place of a block that left it (and, for a tool result, which call's
    result it was: where the request had shown it): nothing, or the replacement text
    (and whether a handle was shown); never the harness's internal block status."""
    of = f" of {budget:,}" if budget else ""
    lines = [f"[call {call.index}] {call.kind}: {call.text}  "
             f"(request {call.request_tokens:,}{of} tokens)"]
    origins = list(getattr(call, "removed_from", None) or []) + [0] * len(call.removed)
    for (bid, status, text, tokens), src in zip(call.removed, origins):
        of_call = f"result of call {src}, " if src else ""
        if status == "gone":
            shown = "no longer in the request"
        else:
            first = text.splitlines()[0] if text else ""
            shown = (f"replaced in the request by [{first}]"
                     + (" with a handle" if "+handle" in status else ""))
        lines.append(f"  context: {bid} ({of_call}{tokens:,} tokens) {shown}")
    if call.notice:
        lines.append(f"  notice: {call.notice}")
    if call.result:
        lines.append("  result" + ("" if call.shown else " (offloaded on entry; the model "
                                   "saw a placeholder)") + ":\n" + call.result)
    return "\n".join(lines) + "\n"


def _fit(call, limit: int, budget: int = 0) -> str:
    text = render_call(call, budget)
    if len(text) <= limit:
        return text
    head = render_call(type(call)(**{**asdict(call), "result": ""}), budget)
    label = render_call(type(call)(**{**asdict(call), "result": "x"}), budget)[len(head):-2]
    marker = "\n  [result cut by the page renderer: {} characters not shown]\n"
    room = max(0, limit - len(head) - len(marker) - 20 - len(label))
    cut = len(call.result) - room
    out = head + label + call.result[:room] + marker.format(cut)
    return out[:limit]


def paginate(traj, limit: int = PAGE_CHARS) -> list[str]:
    """Pages of at most ``limit`` characters, one or more per card chunk, each a run
    of whole calls (see the module docstring).

    Raises:
        ValueError: for a limit under 1,000 characters.
    """
    if limit < 1_000:
        raise ValueError(f"page limit must be >= 1,000 characters, got {limit}")
    calls = {c.index: c for c in traj.calls}
    pages: list[str] = []
    for first, last, _ in chunk_bounds(traj):
        page = ""
        for i in range(first, last + 1):
            unit = _fit(calls[i], limit, getattr(traj, "budget", 0))
            if page and len(page) + len(unit) > limit:
                pages.append(page)
                page = ""
            page += unit
        if page:
            pages.append(page)
    return pages


def cap_notes(notes: str, limit: int = NOTES_CHARS) -> str:
    """``notes`` within ``limit`` characters: the oldest whole lines go first; a
    single line still too long keeps its end."""
    if len(notes) <= limit:
        return notes
    lines = notes.split("\n")
    while lines and len("\n".join(lines)) > limit:
        if len(lines) == 1:
            return lines[0][-limit:]
        lines.pop(0)
    return "\n".join(lines)


def review_case(traj, card, backend, page_limit: int = PAGE_CHARS) -> CaseReport:
    """Read every page with rolling notes, then ask for the one case report. A
    back-end with ``review_solved = False`` reports a solved case as ``none``
    without reading it (the real model's calls are spent on failures); the synthetic
    back-end reads every case, so a solved case carries what its pages show too."""
    if card.reward == 1 and not getattr(backend, "review_solved", True):
        return CaseReport(card.task_id, "none", "", "solved (not read)", 0)
    pages = paginate(traj, page_limit)
    notes = ""
    for i, page in enumerate(pages, 1):
        notes = cap_notes(backend.annotate_page(card.task_id, i, len(pages), page, notes))
    return backend.case_report(card, notes, len(pages))


def review(trajectories, cards, backend, paginated: bool = True,
           page_limit: int = PAGE_CHARS) -> list[CaseReport]:
    """Reports for every case; ``paginated=False`` (the "no paginated review"
    ablation) gives the back-end the card alone."""
    if not paginated:
        return [backend.card_report(c) for c in cards]
    return [review_case(t, c, backend, page_limit) for t, c in zip(trajectories, cards)]
