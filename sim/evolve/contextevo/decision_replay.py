"""Single-decision-point replay (ContextEvo §4.2, App. B.2 "Decision-point replay").

A recorded model-visible request (a :class:`~sim.agents.protocol.View`) is copied at one
decision point and one treatment is applied: remove a category of earlier content,
keep only the recent k tool results, append a bounded recovery note, put back blocks
earlier requests showed (``restore``), or cut older content to its evidence lines
(``fold``: a shorter request that still holds what the older results said). The
treated request's token count is recomputed from what remains, so a treatment that
shortens the request changes what the agent's long-context degradation reads exactly
as a shorter real request would. :func:`hypothesis_view` derives the treatment from a
hypothesis: a removal is tested by restoring what the blamed point took away, a
long request (``context_degradation``) by shortening it the way the blamed point
would. The original and the treated request are each sampled at most
:data:`MAX_SAMPLES` = 5 times from copies of the acting agent's state at that point
(the same fixed model). The result measures local decision sensitivity, not a task
outcome.

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
TREATMENTS = ("remove_category", "keep_recent", "recovery_note", "restore", "fold")
#: an evidence line in a tool result, ``key: value`` (the reviewer's notes read the
#: same lines, :mod:`sim.evolve.contextevo.backends`)
EVIDENCE = re.compile(r"^([^:\n=]{3,80}): (\S[^\n]*)$", re.M)
#: tool results a fold treatment leaves whole, the newest (ours): the work in
#: progress; the folding program returns every finished branch as its summary, so
#: everything older folds
FOLD_KEEP = 1
#: how each blamed point would shorten a long request (the treatment that tests a
#: ``context_degradation`` hypothesis there): a trim keeps only the newest results;
#: every other point shortens by folding or compacting older content, which
#: :func:`treat`'s ``fold`` stands for
SHORTEN = {"request_assembly": "keep_recent"}
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


def hypothesis_view(decision, pathology: str, surface: str):
    """The treated request that tests a hypothesis at ``decision`` (a
    :class:`~sim.evolve.contextevo.trace.DecisionPoint`): for ``context_degradation``
    the request shortened as the blamed ``surface`` would shorten it
    (:data:`SHORTEN`, default ``fold``); for a removal or overflow the blocks the
    blamed point took away restored (:func:`restore_kinds`). A wrong surface gets the
    wrong treatment, and the step still fails (ContextEvo App. B.2, "Decision-point
    replay": the treatment follows the hypothesis)."""
    if pathology == "context_degradation":
        return treat(decision.view, SHORTEN.get(surface, "fold"), k=FOLD_KEEP)
    return treat(decision.view, "restore", earlier=decision.earlier,
                 kinds=restore_kinds(pathology, surface))


def _tokens_of(text: str) -> int:
    """Tokens of text a treatment writes, cuts or puts back: about four characters a
    token (the treatments' size estimate), at least 1."""
    return max(1, len(text) // 4)


def _visible(block_id: str, kind: str, text: str) -> Entry:
    """A visible entry for text a treatment writes or puts back."""
    return Entry(block_id, kind, "visible", text, _tokens_of(text))


def evidence_lines(text: str) -> str:
    """The ``key: value`` lines of ``text`` (:data:`EVIDENCE`), in order, one a line
    ("" when it has none)."""
    return "".join(m.group(0) + "\n" for m in EVIDENCE.finditer(text))


def _fold(entries: list, k: int) -> list:
    """``entries`` with every visible entry older than the newest ``k`` visible tool
    results cut to its evidence lines (:func:`evidence_lines`) in place, and one
    with none left out; pinned entries, placeholders (a handle is a recovery path;
    a placeholder is short already) and the newest results stay as they are.
    Unchanged with ``k`` or fewer results.

    In place, not merged into one summary: a later record (or the agent's own
    restatement) still supersedes an earlier one exactly as in the original request
    (the newest value in view is the one used), so each key's newest value in view
    is the one the original request showed: the treatment changes the request's
    length, not which value there is to read. It keeps every evidence line:
    an upper bound on what a fold's notes keep (the folding program's notes are the
    agent's, each fact kept with ``p_knowledge``); content in no ``key: value`` form
    is lost."""
    results = [i for i, e in enumerate(entries)
               if e.type == "tool_result" and e.status == "visible"]
    if len(results) <= k:
        return entries
    last = results[-(k + 1)]
    out = []
    for i, e in enumerate(entries):
        if i <= last and e.status == "visible":
            text = evidence_lines(e.text)
            if not text:
                continue
            e = replace(e, text=text, tokens=_tokens_of(text))
        out.append(e)
    return out


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
        k: for ``keep_recent`` and ``fold``, tool results kept whole (the newest).
        note: for ``recovery_note``, the note text (cut to :data:`NOTE_CHARS`).
        earlier, kinds: for ``restore``, the texts earlier requests showed for blocks
            (id -> text) and the :func:`shown_kind` kinds to put back: each such
            placeholder becomes its earlier text again, and with ``"gone"`` in
            ``kinds`` (or a restored knowledge/fold group) every block missing from
            the request comes back in its place in the stream (by block number).

    ``fold`` cuts the visible content older than the newest ``k`` tool results to
    its evidence lines, in place (:func:`_fold`): pinned entries, placeholders and
    the newest results stay. Every treatment's ``used_tokens`` (when
    the view shows one) is the sum of the remaining entries' tokens, the length the
    agent's degradation reads (:meth:`sim.agents.synthetic.SyntheticAgent.request_tokens`).

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
                e = _visible(e.id, e.type, text)
            out.append(e)
        if "gone" in kinds or folded:
            for b, t in earlier.items():
                if b not in present:
                    # back in its place: a block restored after a newer record would
                    # read as the newer one (the newest value in view is the one used)
                    at = next((i for i, e in enumerate(out)
                               if _order(e.id) > _order(b)), len(out))
                    out.insert(at, _visible(b, "tool_result", t))
        entries = out
    elif treatment == "fold":
        entries = _fold(entries, k)
    elif treatment == "recovery_note":
        text = note[:NOTE_CHARS]
        entries.append(_visible("N0", "note", text))
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
