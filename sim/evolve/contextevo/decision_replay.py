"""Single-decision-point replay (ContextEvo §4.2, App. B.2 "Decision-point replay").

A recorded model-visible request (a :class:`~sim.agents.protocol.View`) is copied at one
decision point and one treatment is applied: remove a category of earlier content,
keep only the recent k tool results, or append a bounded recovery note. The original
and the treated request are each sampled at most :data:`MAX_SAMPLES` = 5 times from
copies of the acting agent's state at that point (the same fixed model). The result
measures local decision sensitivity, not a task outcome.

Each sample is graded as the episode's grader grades a written value (every value the
recorded action wrote equals the task's value): the same check the reward uses, so
nothing about the failure's cause is read. The agent's draws differ between copies
(a missing value comes out as a different wrong value, or ``unknown``), so exact
actions are not compared: the outcome compared is the success rate. A difference
counts as support only when the original request fails in every sample (the
recorded failure is stable under unchanged context: variation there never counts)
and most treated samples succeed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sim.agents.protocol import Entry

MAX_SAMPLES = 5
#: characters of a recovery note
NOTE_CHARS = 1_000
TREATMENTS = ("remove_category", "keep_recent", "recovery_note", "restore")
#: what a request showed in place of a block, by the point that put it there
#: (read from the request itself: no text, a handle, or the placeholder's words)
KIND_OF_SURFACE = {"request_assembly": ("gone",), "representation_update": ("hidden",),
                   "memory_update": ("notes",), "child_to_parent": ("fold",)}


def shown_kind(entry) -> str:
    """How the request showed a block that left it: ``recoverable`` (a handle),
    ``notes`` (a knowledge block), ``fold`` (a branch summary) or ``hidden``."""
    if entry.handle:
        return "recoverable"
    if entry.text.startswith("Knowledge so far"):
        return "notes"
    if entry.text.startswith("Branch"):
        return "fold"
    return "hidden"


def restore_kinds(pathology: str, surface: str) -> tuple[str, ...]:
    """The blocks a hypothesis says were wrongly taken away, as :func:`shown_kind`
    kinds: a removal at the blamed point (a trigger blamed: the updates it fires);
    a budget overflow: the recoverable ones. Empty (a treatment that restores
    nothing, so it cannot support) for a surface that removes nothing."""
    if pathology == "budget_overflow":
        return ("recoverable",)
    if surface == "maintenance_planning":
        return ("hidden", "notes")
    return KIND_OF_SURFACE.get(surface, ())


def _order(block_id: str) -> float:
    """A block's place in the stream from its id (``B<n>``: the n-th block); other
    ids (groups, notes) sort last."""
    m = re.fullmatch(r"B(\d+)", block_id)
    return int(m.group(1)) if m else float("inf")


def _signature(action) -> tuple:
    return (action.kind, action.handle, tuple(sorted((action.values or {}).items())))


def treat(view, treatment: str, *, category: str = "placeholder", k: int = 3,
          note: str = "", earlier: dict | None = None, kinds: tuple = ()):
    """A treated copy of ``view``.

    Args:
        treatment: one of :data:`TREATMENTS`.
        category: for ``remove_category``, an entry type or ``"placeholder"``
            (every non-visible entry).
        k: for ``keep_recent``, tool results kept (the newest).
        note: for ``recovery_note``, the note text (cut to :data:`NOTE_CHARS`).
        earlier, kinds: for ``restore``, the texts earlier requests showed for blocks
            (id -> text) and the :func:`shown_kind` kinds to put back: each such
            placeholder becomes its earlier text again, and with ``"gone"`` in
            ``kinds`` (or a restored knowledge/fold group) every block missing from
            the request comes back in its place in the stream (by block number).

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
    elif treatment == "restore":
        earlier = earlier or {}
        present = {e.id for e in entries}
        out, folded = [], False
        for e in entries:
            if e.status != "visible" and e.id[:1] == "G" and shown_kind(e) in kinds:
                # a knowledge block or fold summary stands for members the request no
                # longer lists: the absent blocks come back with it (a trimmed block
                # among them comes back too: the view does not say which was which)
                folded = True
                continue
            if e.id in earlier and e.status != "visible" and shown_kind(e) in kinds:
                text = earlier[e.id]
                e = Entry(e.id, e.type, "visible", text, max(1, len(text) // 4))
            out.append(e)
        if "gone" in kinds or folded:
            for b, t in earlier.items():
                if b not in present:
                    # back in its place: a block restored after a newer record would
                    # read as the newer one (the newest value in view is the one used)
                    at = next((i for i, e in enumerate(out)
                               if _order(e.id) > _order(b)), len(out))
                    out.insert(at, Entry(b, "tool_result", "visible", t,
                                         max(1, len(t) // 4)))
        entries = out
    elif treatment == "recovery_note":
        text = note[:NOTE_CHARS]
        entries.append(Entry("N0", "note", "visible", text, max(1, len(text) // 4)))
    else:
        raise ValueError(f"unknown treatment {treatment!r}; known: {TREATMENTS}")
    return replace(view, entries=tuple(entries), used_tokens=None if view.used_tokens
                   is None else sum(e.tokens for e in entries))


@dataclass(frozen=True)
class ReplayResult:
    """Signatures of the sampled actions under each condition, whether each sample
    succeeded (``original_ok``, ``treated_ok``), and the verdict: ``consistent``
    (no original sample succeeded: the recorded failure is stable), ``changed``
    (most treated samples succeed), ``supports`` (both)."""

    original: tuple
    treated: tuple
    consistent: bool
    changed: bool
    original_ok: tuple = ()
    treated_ok: tuple = ()

    @property
    def supports(self) -> bool:
        return self.consistent and self.changed

    @property
    def rates(self) -> tuple[float, float]:
        """Success rates (original, treated) over the samples."""
        def rate(ok):
            return sum(ok) / len(ok) if ok else 0.0
        return rate(self.original_ok), rate(self.treated_ok)


def sample_actions(decision, view, samples: int, snapshot) -> list:
    """Actions of ``min(samples, MAX_SAMPLES)`` copies of the recorded agent on
    ``view``; copy i draws with seed ``seed + i`` (copy 0 is the recorded draw)."""
    out = []
    for i in range(min(int(samples), MAX_SAMPLES)):
        agent = snapshot(decision.agent)
        agent.seed = decision.agent.seed + i
        out.append(agent.act(view))
    return out


def succeeded(decision, action) -> bool:
    """Whether ``action`` writes every value the recorded action wrote, each equal
    to the task's value (the grader's check; a context action or a missing key fails)."""
    keys = list(decision.action.values or {})
    if not keys:
        return False
    facts = decision.agent.task.facts
    vals = action.values or {}
    return all(k in facts and vals.get(k) == facts[k].value for k in keys)


def replay(decision, treated_view, samples: int = MAX_SAMPLES) -> ReplayResult:
    """Sample the original and the treated request (each clamped to
    :data:`MAX_SAMPLES`) and compare their success rates (module docstring)."""
    from sim.evolve.contextevo.trace import _snapshot

    orig = sample_actions(decision, decision.view, samples, _snapshot)
    treated = sample_actions(decision, treated_view, samples, _snapshot)
    o_ok = tuple(succeeded(decision, a) for a in orig)
    t_ok = tuple(succeeded(decision, a) for a in treated)
    consistent = bool(orig) and not any(o_ok)
    changed = sum(t_ok) * 2 > len(t_ok)
    return ReplayResult(tuple(map(_signature, orig)), tuple(map(_signature, treated)),
                        consistent, changed, o_ok, t_ok)


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
