"""The answer-cache options of a real-model run (``--cache PATH``, ``--no-cache``),
declared once here for every experiment that asks a model through
:mod:`experiments.answers`."""

from __future__ import annotations

from experiments.settings import setting


def cache(name: str, applies: str = ""):
    """``--cache PATH``: the JSON-lines answer file of experiment ``name``;
    ``applies`` prefixes the help (``"--backend llm: "``)."""
    return setting(None, None, f"{applies}answers cached by prompt hash, reused by later "
                   "runs, a JSON-lines file (gzip-compressed when its name ends in .gz) "
                   f"(default: {name}_answers.jsonl in the model cache directory)",
                   toml=False, metavar="PATH")


def no_cache(applies: str = ""):
    """``--no-cache``: keep the answers in memory only."""
    return setting(False, None, f"{applies}keep the answer cache in memory only "
                   "(default: off)", toml=False, action="store_true")
