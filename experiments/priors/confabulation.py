"""``agent.p_confabulate`` from SimpleQA (Wei et al. 2024, arXiv:2411.04368, Table 3).

SimpleQA grades each answer correct, incorrect or not attempted. Among the questions
a model does not answer correctly, the share it answers wrongly rather than
abstaining is ``incorrect / (incorrect + not attempted)``: the synthetic agent's
``p_confabulate`` (a value it cannot use is answered with a plausible wrong value,
else it abstains). The prior spans the models of the table.
"""

from __future__ import annotations

from experiments.priors import read_table


def simpleqa_rows() -> list[dict]:
    """SimpleQA Table 3 (``data/simpleqa.csv``): model, correct, not_attempted,
    incorrect (percent of questions) and f_score (percent), numbers as floats."""
    return [{"model": r["model"], **{k: float(r[k]) for k in
                                     ("correct", "not_attempted", "incorrect", "f_score")}}
            for r in read_table("simpleqa")]


def f_score(correct: float, incorrect: float) -> float:
    """SimpleQA's F-score (percent): the harmonic mean of overall correct ``c`` and
    correct given attempted ``c / (c + i)``, i.e. ``2c / (2c + 2i + n)`` with
    ``n = 100 - c - i`` (Wei et al. 2024, Appendix B); rates in percent."""
    c, i = correct / 100, incorrect / 100
    given = c / (c + i)
    return 100 * 2 * c * given / (c + given)


def confabulation_rates() -> dict[str, float]:
    """model -> ``incorrect / (incorrect + not_attempted)``.

    Raises:
        ValueError: naming a model that is correct on every question (no ratio).
    """
    out = {}
    for r in simpleqa_rows():
        wrong = r["incorrect"] + r["not_attempted"]
        if wrong <= 0:
            raise ValueError(f"{r['model']}: no incorrect or unattempted answers")
        out[r["model"]] = r["incorrect"] / wrong
    return out


def p_confabulate_range() -> tuple[float, float]:
    """The lowest and highest confabulation rate over the table's models."""
    rates = confabulation_rates().values()
    return min(rates), max(rates)
