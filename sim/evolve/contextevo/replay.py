"""Single-decision-point replay (ContextEvo §4.2, App. B.2 "Decision-point replay").

A recorded model-visible request (a :class:`~sim.agents.protocol.View`) is copied at one
decision point and one treatment is applied: remove a category of earlier content,
keep only the recent k tool results, or append a bounded recovery note. The original
and the treated request are each sampled at most :data:`MAX_SAMPLES` = 5 times from
copies of the acting agent's state at that point (the same fixed model). The result
measures local decision sensitivity, not a task outcome, and a difference counts as
support only when the original request reproduces the recorded action in every
sample: variation under unchanged context never counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sim.agents.protocol import Entry

MAX_SAMPLES = 5
#: characters of a recovery note
NOTE_CHARS = 1_000
TREATMENTS = ("remove_category", "keep_recent", "recovery_note")


def _signature(action) -> tuple:
    return (action.kind, action.handle, tuple(sorted((action.values or {}).items())))


def treat(view, treatment: str, *, category: str = "placeholder", k: int = 3,
          note: str = ""):
    """A treated copy of ``view``.

    Args:
        treatment: one of :data:`TREATMENTS`.
        category: for ``remove_category``, an entry type or ``"placeholder"``
            (every non-visible entry).
        k: for ``keep_recent``, tool results kept (the newest).
        note: for ``recovery_note``, the note text (cut to :data:`NOTE_CHARS`).

    Raises:
        ValueError: naming an unknown treatment.
    """
    entries = list(view.entries)
    if treatment == "remove_category":
        entries = [e for e in entries if not (
            e.type == category or (category == "placeholder" and e.status != "visible"
                                   and e.status != "pinned"))]
    elif treatment == "keep_recent":
        results = [e.id for e in entries if e.type == "tool_result"]
        drop = set(results[: max(0, len(results) - k)])
        entries = [e for e in entries if e.id not in drop]
    elif treatment == "recovery_note":
        text = note[:NOTE_CHARS]
        entries.append(Entry("N0", "note", "visible", text, max(1, len(text) // 4)))
    else:
        raise ValueError(f"unknown treatment {treatment!r}; known: {TREATMENTS}")
    return replace(view, entries=tuple(entries), used_tokens=None if view.used_tokens
                   is None else sum(e.tokens for e in entries))


@dataclass(frozen=True)
class ReplayResult:
    """Signatures of the sampled actions under each condition, and the verdict:
    ``consistent`` (every original sample reproduced the recorded action),
    ``changed`` (most treated samples differ from it), ``supports`` (both)."""

    original: tuple
    treated: tuple
    consistent: bool
    changed: bool

    @property
    def supports(self) -> bool:
        return self.consistent and self.changed


def sample_actions(decision, view, samples: int, snapshot) -> list[tuple]:
    """Actions of ``min(samples, MAX_SAMPLES)`` copies of the recorded agent on
    ``view``; copy i draws with seed ``seed + i`` (copy 0 is the recorded draw)."""
    out = []
    for i in range(min(int(samples), MAX_SAMPLES)):
        agent = snapshot(decision.agent)
        agent.seed = decision.agent.seed + i
        out.append(_signature(agent.act(view)))
    return out


def replay(decision, treated_view, samples: int = MAX_SAMPLES) -> ReplayResult:
    """Sample the original and the treated request (each clamped to
    :data:`MAX_SAMPLES`) and compare with the recorded action."""
    from sim.evolve.contextevo.trace import _snapshot

    recorded = _signature(decision.action)
    orig = sample_actions(decision, decision.view, samples, _snapshot)
    treated = sample_actions(decision, treated_view, samples, _snapshot)
    consistent = bool(orig) and all(s == recorded for s in orig)
    changed = sum(s != recorded for s in treated) * 2 > len(treated)
    return ReplayResult(tuple(orig), tuple(treated), consistent, changed)


def recovery_note(traj, decision) -> str:
    """A bounded recovery note: the lines of earlier results that start with a key
    the recorded action wrote (``key: ...``), at most :data:`NOTE_CHARS` characters.
    Built from the trajectory only (what a reviewer can read)."""
    keys = list((decision.action.values or {}))
    lines = []
    for c in traj.calls[: decision.call - 1]:
        for k in keys:
            m = re.search(rf"^{re.escape(k)}: [^\n]*$", c.result, re.M)
            if m and m.group(0) not in lines:
                lines.append(m.group(0))
    return ("Recovered from earlier results:\n" + "\n".join(lines) + "\n")[:NOTE_CHARS]
