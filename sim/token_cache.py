"""The token-count cache of an episode: task content is measured once, when the task
is generated, and every later count of the same text is a dictionary hit.

Why: a sweep runs nine programs on the same task, and re-tokenizing the same tool
results for each dominated the run (``experiments/bench/bench_sweeps.py``).
"""

from __future__ import annotations


class KnownCountTokenizer:
    """A tokenizer that answers from known counts first (task content measured at
    generation), then from a memo, then from ``base`` (the workspace tokenizer)."""

    def __init__(self, base, known: dict[str, int] | None = None):
        self.base = base
        self.name = getattr(base, "name", "cl100k_base")
        self.memo: dict[str, int] = dict(known or {})

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.base.count(text) if len(text) > 0 else 0
        return n

