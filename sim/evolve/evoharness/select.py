"""Select(x, H; b) of Evo-Harness §3.1 and the pinned skill block.

At most ``b`` skills are retrieved per task by the similarity of the task text to each
skill's trigger and topic (rapidfuzz ``token_set_ratio``, 0-100; ties broken by name so
the choice is deterministic); a topic skill is eligible only when the task text names
its topic (a task-type procedure is for tasks of that type). The selected skills enter the workspace as ONE pinned
block (:func:`skill_block`): they are charged in every request under the same context
budget as everything else, which is how skills cost context tokens (ContextEvo §6,
Table 3).

Why rapidfuzz rather than BM25 (rank-bm25): a harness holds a handful of skills, and
BM25's inverse document frequency degenerates on such tiny corpora (a term in half
the documents scores zero or negative in rank-bm25's Okapi variant); a string
similarity needs no corpus statistics, and the same scorer serves the curator's
duplicate test (:mod:`sim.evolve.evoharness.curate`). rapidfuzz is actively maintained, MIT
licensed and ships binary wheels.
"""

from __future__ import annotations

from rapidfuzz import fuzz, utils

from sim.evolve.evoharness.skills import Skill

#: a skill scoring below this (0-100) is not retrieved at all
MIN_SCORE = 65.0
BLOCK_OPEN, BLOCK_CLOSE = "<skills>", "</skills>"


def similarity(a: str, b: str) -> float:
    """rapidfuzz ``token_set_ratio`` of two texts after default processing (0-100)."""
    return float(fuzz.token_set_ratio(a, b, processor=utils.default_process))


def check_b(b) -> int:
    """``b`` as a validated int. Raises ValueError naming it unless an int >= 0."""
    if isinstance(b, bool) or not isinstance(b, int) or b < 0:
        raise ValueError(f"b (skills per task) must be an int >= 0, got {b!r}")
    return b


def select(task_text: str, skills, b: int, min_score: float = MIN_SCORE
           ) -> list[Skill]:
    """The at most ``b`` skills of ``skills`` most similar to ``task_text``.

    Args:
        task_text: the task as the solver receives it (its statement).
        skills: iterable of :class:`Skill` (e.g. ``harness.skills``).
        b: most skills per task (``|Select| <= b``).
        min_score: skills below this similarity are never selected.

    Returns:
        skills in descending score order (ties by name).

    Raises:
        ValueError: for ``b`` < 0 or not an int.
    """
    b = check_b(b)
    if b == 0:
        return []
    scored = []
    words = set(utils.default_process(task_text).split())
    for s in skills:
        if s.level == "topic" and not set(utils.default_process(s.topic).split()) <= words:
            continue  # a task-type procedure applies to tasks of its type only
        score = similarity(task_text, f"{s.trigger} {s.topic}")
        if score >= min_score:
            scored.append((-score, s.name, s))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [s for _, _, s in scored[:b]]


def skill_block(selected) -> str:
    """The pinned block's text for the selected skills (``""`` when none)."""
    selected = list(selected)
    if not selected:
        return ""
    return (BLOCK_OPEN + "\nSkills from earlier tasks; use them where they apply.\n"
            + "".join(s.text() for s in selected) + BLOCK_CLOSE + "\n")
