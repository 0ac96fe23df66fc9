"""Select(x, H; b) of Evo-Harness §3.1 and the pinned skill block.

At most ``b`` skills are retrieved per task, ranked by BM25+ of the task text against
each skill's trigger and topic (:func:`sim.evolve.evoharness.similarity.scores`, the
measured winner for retrieval: MRR 0.941 against rapidfuzz's 0.506 on the labelled
set); a skill sharing no word with the task is never retrieved (BM25+ gives
every document a small floor, so the overlap is tested on the words), ties are
broken by name so the choice is deterministic, and a topic skill is eligible only when
the task text names its topic (a task-type procedure is for tasks of that type). The
selected skills enter the workspace as ONE pinned block (:func:`skill_block`): they
are charged in every request under the same context budget as everything else, which
is how skills cost context tokens (ContextEvo §6, Table 3).
"""

from __future__ import annotations

from sim.evolve.evoharness.similarity import RETRIEVAL, scores, tokens
from sim.evolve.evoharness.skills import Skill

BLOCK_OPEN, BLOCK_CLOSE = "<skills>", "</skills>"


def check_b(b) -> int:
    """``b`` as a validated int. Raises ValueError naming it unless an int >= 0."""
    if isinstance(b, bool) or not isinstance(b, int) or b < 0:
        raise ValueError(f"b (skills per task) must be an int >= 0, got {b!r}")
    return b


def select(task_text: str, skills, b: int, method: str = RETRIEVAL) -> list[Skill]:
    """The at most ``b`` skills of ``skills`` most relevant to ``task_text``.

    Args:
        task_text: the task as the solver receives it (its statement).
        skills: iterable of :class:`Skill` (e.g. ``harness.skills``).
        b: most skills per task (``|Select| <= b``).
        method: the retrieval scorer (default: the measured winner).

    Returns:
        skills in descending score order (ties by name); none sharing no word.

    Raises:
        ValueError: for ``b`` < 0 or not an int, or an unknown method.
    """
    b = check_b(b)
    if b == 0:
        return []
    words = set(tokens(task_text))
    eligible = [s for s in skills
                if (s.level != "topic" or set(tokens(s.topic)) <= words)
                and set(tokens(f"{s.trigger} {s.topic}")) & words]
    if not eligible:
        return []
    sc = scores(task_text, [f"{s.trigger} {s.topic}" for s in eligible], method)
    ranked = sorted((( -x, s.name, s) for x, s in zip(sc, eligible) if x > 0),
                    key=lambda t: (t[0], t[1]))
    return [s for _, _, s in ranked[:b]]


def skill_block(selected) -> str:
    """The pinned block's text for the selected skills (``""`` when none)."""
    selected = list(selected)
    if not selected:
        return ""
    return (BLOCK_OPEN + "\nSkills from earlier tasks; use them where they apply.\n"
            + "".join(s.text() for s in selected) + BLOCK_CLOSE + "\n")
