"""Stage 1a, case cards (ContextEvo App. B.2 "Deterministic case-card extraction").

One :class:`CaseCard` per held-in episode, from its :class:`~sim.evolve.contextevo.trace.Trajectory`
only: deterministic observations, no attribution. Chunks are event-aligned: a chunk
ends at a context-shrink point (a call whose request lost blocks the previous one
showed: a trim, mask, clear, summary, archive) and at the first write (the first call
carrying values), with a fallback boundary every :data:`CHUNK_CALLS` calls.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: the fallback chunk length (calls)
CHUNK_CALLS = 25
#: an observation at least this long (characters) counts as large
LARGE_OUTPUT = 8_192


@dataclass(frozen=True)
class CaseCard:
    """Deterministic facts of one episode (characters, tokens, counts).

    Attributes:
        task_id, reward (0/1, solved), score (graded, in [0, 1]), model_calls.
        chunks: ``(first call, last call, reason)`` with reason ``"shrink"``,
            ``"first_write"``, ``"fallback"`` or ``"end"``.
        tool_outputs, output_chars, large_outputs: entry statistics (results, their
            characters, results of at least :data:`LARGE_OUTPUT` characters).
        composition: final request tokens by kind (``tool_result``, ``tool_call``,
            ``placeholder``, ``user`` ...), as sorted pairs.
        duplicate_share: share of result characters that repeat an earlier result.
        compactions: calls at which the request shrank (blocks left it).
        removed_blocks: blocks that left the request, over the episode.
        final_context_tokens: tokens of the last request.
        rereads, repeated_commands, paging, self_reported_loss: clue counts
            (recoveries of a target read before; identical task calls; recover
            calls; written values the agent marked unknown).
        notices: harness notices shown (overflow, refused recovery).
    """

    task_id: str
    reward: int
    model_calls: int
    chunks: tuple[tuple[int, int, str], ...]
    tool_outputs: int
    output_chars: int
    large_outputs: int
    composition: tuple[tuple[str, int], ...]
    duplicate_share: float
    compactions: int
    removed_blocks: int
    final_context_tokens: int
    rereads: int
    repeated_commands: int
    paging: int
    self_reported_loss: int
    notices: int
    #: graded reward in [0, 1] (partial credit per needed value; 1.0 when solved)
    score: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def chunk_bounds(traj) -> list[tuple[int, int, str]]:
    """Event-aligned chunks of ``traj.calls`` as ``(first, last, reason)`` (1-based,
    inclusive): cut after a shrink point, after the first write, and every
    :data:`CHUNK_CALLS` calls."""
    out, start, wrote = [], 1, False
    n = len(traj.calls)
    for c in traj.calls:
        reason = None
        if c.removed and c.index > start:
            # the shrink happened before this call: the chunk ends just before it
            out.append((start, c.index - 1, "shrink"))
            start = c.index
        if c.writes and not wrote:
            wrote, reason = True, "first_write"
        elif c.index - start + 1 >= CHUNK_CALLS:
            reason = "fallback"
        if reason and c.index < n:
            out.append((start, c.index, reason))
            start = c.index + 1
    if start <= n:
        out.append((start, n, "end"))
    return out


def make_card(traj) -> CaseCard:
    """The card of one trajectory (Stage 1a)."""
    results = [c.result for c in traj.calls if c.result]
    seen, dup = set(), 0
    for r in results:
        if r in seen:
            dup += len(r)
        seen.add(r)
    chars = sum(len(r) for r in results)
    tasks = [c.text for c in traj.calls if c.kind == "task"]
    recovers = [c.text for c in traj.calls if c.kind == "recover"]
    return CaseCard(
        task_id=traj.task_id, reward=traj.reward, model_calls=len(traj.calls),
        chunks=tuple(chunk_bounds(traj)), tool_outputs=len(results), output_chars=chars,
        large_outputs=sum(len(r) >= LARGE_OUTPUT for r in results),
        composition=tuple(sorted(traj.composition.items())),
        duplicate_share=round(dup / chars, 4) if chars else 0.0,
        compactions=sum(1 for c in traj.calls if c.removed),
        removed_blocks=sum(len(c.removed) for c in traj.calls),
        final_context_tokens=traj.final_tokens,
        rereads=len(recovers) - len(set(recovers)),
        repeated_commands=len(tasks) - len(set(tasks)),
        paging=len(recovers),
        self_reported_loss=sum(c.text.count("=unknown") for c in traj.calls if c.writes),
        notices=sum(1 for c in traj.calls if c.notice),
        score=max(float(getattr(traj, "score", 0.0)), float(traj.reward)))


def make_cards(trajectories) -> list[CaseCard]:
    """Cards for every trajectory, in order."""
    return [make_card(t) for t in trajectories]
