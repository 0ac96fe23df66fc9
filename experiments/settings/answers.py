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


def refuse_unless(asks_model: bool, values: dict, needed: str) -> None:
    """Refuse ``--cache`` and ``--no-cache`` in a run that asks no model through an
    answer file (``needed`` names what does, e.g. ``"--backend llm"``): silently
    ignored, they would make a run that is not the one asked for.

    Raises:
        UsageError: ``--cache only applies with --backend llm`` (exit 2).
    """
    from experiments.arguments import only_with

    if not asks_model:
        only_with(needed, [flag for flag, key in (("--cache", "cache"),
                                                  ("--no-cache", "no_cache"))
                           if values.get(key)])
