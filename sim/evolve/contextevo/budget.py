"""How an arm spends its evaluation budget (issue 32, "Budget and ranking").

The budget is a count of candidate evaluations: every arm of the loop
(:mod:`sim.evolve.contextevo.loop`) scores exactly ``candidates`` candidate specs on
held-in per iteration (``iterations x candidates`` in all; ``best_of_n`` spends them
in one round), each a spec the arm has not evaluated before (neither an earlier
candidate nor the current spec). A source that runs dry hands the rest of the
budget to the next source; only a grammar with no untried move and
:data:`MAX_DRAWS` random steps that all repeat would leave it unspent (the log's
``evaluated`` says so).

ContextEvo's candidates, in order (:func:`candidate_stream`):

1. the back-end's proposals for the judge's accepted hypotheses (the synthetic
   back-end: their localised menus, interleaved; the llm back-end: the model's picks);
2. the localised menus (:func:`sim.evolve.contextevo.editor.moves`) of the accepted
   hypotheses, then of the rejected ones, each group interleaved in rank order
   (:func:`rank_hypotheses`: by :attr:`~sim.evolve.contextevo.judge.Hypothesis.evidence`,
   the judge's order among equals);
3. untried grammar moves, each drawn uniformly from those left (:func:`random_moves`:
   the draw of the ``ef_moves`` baseline), when the hypotheses' menus are spent or the
   judge formed none: without evidence the loop searches as evidence-free search does;
4. random two-surface grammar steps once every move has been evaluated.

Each candidate carries the evidence of the strongest hypothesis whose menu holds its
move (:data:`NO_EVIDENCE` for a move no menu holds).

Ties (:func:`tie_key`): candidates tied on held-in solved fraction go, in this order,
to the stronger evidence of the hypothesis that proposed the move (the stage it
reached, then its supporting decision-point replays, then the screens it passed,
then the failed cases reporting it: :attr:`~sim.evolve.contextevo.judge.Hypothesis.evidence`),
then to the higher held-in graded score (the mean share of needed values written
exactly, the episode's ``score``), and only then to the earlier candidate in budget
order. Evidence-free arms have no hypothesis: their ties go by graded score, then
draw order. The current spec still wins any tie with the best candidate.
"""

from __future__ import annotations

from sim.evolve.contextevo.editor import changeset_between, interleave, moves, random_changeset
from sim.evolve.contextevo.grammar_moves import grammar_moves
from sim.evolve.contextevo.spec import ProgramSpec

#: random draws per candidate slot before a source counts as dry (repeats are redrawn)
MAX_DRAWS = 50
#: the evidence of a candidate no hypothesis proposed (below every hypothesis's)
NO_EVIDENCE = (-1, 0, 0, 0)
#: surfaces a random step changes once the grammar's single moves are spent
FALLBACK_SURFACES = 2


def unnamed(spec: ProgramSpec) -> ProgramSpec:
    """``spec`` under a fixed name: two candidates are the same evaluation when
    they differ only in name (the runner caches by content)."""
    return ProgramSpec.from_dict({**spec.to_dict(), "name": "spec"})


def rank_hypotheses(hypotheses) -> list:
    """The judge's hypotheses, strongest evidence first (stable: the judge's order,
    largest support first, among equals)."""
    return sorted(hypotheses, key=lambda h: h.evidence, reverse=True)


def random_moves(spec: ProgramSpec, exposed, tried, rng):
    """Yield ``(label, spec)``: the grammar moves from ``spec`` on ``exposed`` not in
    ``tried`` (a set of :func:`unnamed` specs), each drawn uniformly from those left
    (one ``rng.integers`` draw per move); then :data:`MAX_DRAWS` random
    :data:`FALLBACK_SURFACES`-surface steps (:func:`random_changeset`; the caller
    skips repeats)."""
    pool = [m for m in grammar_moves(spec, exposed) if unnamed(m[1]) not in tried]
    while pool:
        yield pool.pop(int(rng.integers(len(pool))))
    for j in range(MAX_DRAWS):
        yield f"step{j}", random_changeset(spec, rng, FALLBACK_SURFACES, exposed)


def single_moves(spec: ProgramSpec, exposed, n: int, rng) -> list[tuple[str, ProgramSpec]]:
    """``n`` candidates of the best-single-move baseline, each one grammar move from
    ``spec`` alone: every move when there are at most ``n`` (grammar order), then
    random :data:`FALLBACK_SURFACES`-surface steps for the rest of the budget (labels
    ``step<j>``, repeats redrawn); else a seeded subset spread over the surfaces:
    the moves grouped by the set of surfaces each changes (``make_recoverable`` and a
    pairing change their own groups), the groups in a random order, one move drawn
    uniformly from each group in turn until ``n`` are taken. Randomness: ``rng`` only.
    """
    every = grammar_moves(spec, exposed)
    if len(every) <= n:
        rest = take_fresh(((f"step{j}", random_changeset(spec, rng, FALLBACK_SURFACES,
                                                          exposed))
                           for j in range(MAX_DRAWS * n)),
                          {unnamed(spec)} | {unnamed(s) for _, s in every}, n - len(every))
        return every + rest
    from sim.evolve.contextevo.spec import diff

    groups: dict[tuple, list] = {}
    for label, s in every:
        groups.setdefault(tuple(sorted(x for x, _, _ in diff(spec, s))), []).append((label, s))
    keys = sorted(groups)
    queues = [[groups[keys[g]][i] for i in rng.permutation(len(groups[keys[g]]))]
              for g in rng.permutation(len(keys))]
    out: list = []
    while len(out) < n:
        for q in queues:
            if q and len(out) < n:
                out.append(q.pop(0))
    return out


def take_fresh(source, seen: set, n: int, max_draws: int | None = None) -> list:
    """Up to ``n`` specs from the iterable ``source`` whose :func:`unnamed` form is
    not in ``seen`` nor repeated, after at most ``max_draws`` draws (default
    ``MAX_DRAWS x n``); ``seen`` is not changed. Items are specs or ``(label, spec)``
    pairs, returned as they came."""
    out, taken = [], set(seen)
    limit = MAX_DRAWS * max(1, n) if max_draws is None else max_draws
    source = iter(source)
    for _ in range(limit):
        if len(out) >= n:
            break  # no draw past the last one taken: the next slot's draws stay put
        item = next(source, None)
        if item is None:
            break
        s = unnamed(item[1] if isinstance(item, tuple) else item)
        if s not in taken:
            taken.add(s)
            out.append(item)
    return out


def tie_key(evidence: tuple, rows) -> tuple:
    """A candidate's tie-break key (module docstring): its hypothesis's ``evidence``
    then its mean graded ``score`` over the held-in ``rows``."""
    graded = sum(float(r.get("score", 0.0)) for r in rows) / len(rows) if rows else 0.0
    return (*evidence, round(graded, 12))


def tie_record(scored, keys: dict, selected: str) -> dict:
    """What decided a tie at the top, for the log: ``{"tied": labels, "tie_broken_by":
    "evidence" | "graded" | "order"}`` when two or more candidates share the best
    held-in score and one of them was selected; else ``{}``."""
    if not scored or selected not in keys:
        return {}
    best = max(sc for _, _, sc in scored)
    tied = [lab for lab, _, sc in scored if sc >= best - 1e-12]
    if len(tied) < 2:
        return {}
    win = keys[selected]
    others = [keys[lab] for lab in tied if lab != selected]
    by = ("evidence" if any(k[:-1] != win[:-1] for k in others)
          else "graded" if any(k != win for k in others) else "order")
    return {"tied": tied, "tie_broken_by": by}


def candidate_stream(verdict, spec: ProgramSpec, picks, rng, tried, exposed):
    """Yield ContextEvo's candidates in budget order (module docstring) as
    ``(label, changeset, evidence, source)``; ``source`` is ``backend``,
    ``accepted``, ``rejected`` or ``grammar``. ``picks`` are the back-end's
    proposals; ``tried`` the :func:`unnamed` specs already evaluated (read lazily,
    when the grammar is reached). The caller applies each changeset and skips what
    it has evaluated."""
    ranked = rank_hypotheses(verdict.hypotheses)
    menus = [(h, list(moves(spec, h.pathology, h.surface, h.direction).items()))
             for h in ranked]
    evidence: dict[str, tuple] = {}
    for h, menu in menus:  # ranked order: the first hypothesis to hold a move is strongest
        for label, _ in menu:
            evidence.setdefault(label, h.evidence)
    for label, edits in picks:
        yield label, edits, evidence.get(label, NO_EVIDENCE), "backend"
    for source, accepted in (("accepted", True), ("rejected", False)):
        for label, edits in interleave([m for h, m in menus if h.accepted == accepted]):
            yield label, edits, evidence[label], source
    for label, target in random_moves(spec, exposed, tried, rng):
        yield (label, changeset_between(spec, target), evidence.get(label, NO_EVIDENCE),
               "grammar")
