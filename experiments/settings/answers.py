"""The answer-cache options of a real-model run (``--cache PATH``, ``--no-cache``),
declared once here for every experiment that asks a model through
:mod:`experiments.answers`, and their checks."""

from __future__ import annotations

import argparse

from experiments.settings import setting


def _path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected the path of an answer file, got an "
                                         "empty string")
    return text


def cache(name: str, applies: str = ""):
    """``--cache PATH``: the JSON-lines answer file of experiment ``name``;
    ``applies`` prefixes the help (``"--backend llm: "``)."""
    return setting(None, None, f"{applies}answers cached by prompt hash, a JSON-lines "
                   "file (gzip-compressed when its name ends in .gz): a run asks the "
                   "model only what the file lacks, starting the embedded model at the "
                   "first such request, and adds its answers to the file (default: "
                   f"{name}_answers.jsonl in the model cache directory, $CTXSIM_CACHE "
                   "or ~/.cache/ctxsim; with --base-url, a file of that endpoint's)",
                   toml=False, metavar="PATH", parse=_path)


def no_cache(applies: str = "", **kw):
    """``--no-cache``: keep the answers in memory only; ``kw`` goes to
    :func:`~experiments.settings.setting` (``argparse={"default": None}`` where an
    option given without its mode must be seen)."""
    return setting(False, None, f"{applies}keep the answer cache in memory only "
                   "(default: off)", toml=False, action="store_true", **kw)


def check(values: dict, asks_model: bool = True, needed: str = "") -> None:
    """Refuse ``--cache`` with ``--no-cache`` (one would silently win), and both in a
    run that asks no model through an answer file (``needed`` names what does, e.g.
    ``"--backend llm"``): silently ignored, they would make a run that is not the
    one asked for.

    Raises:
        UsageError: ``--cache only applies with --backend llm``, ``--cache and
            --no-cache ...``, or ``--no-cache`` in a replay-only run
            (:data:`experiments.answers.REPLAY_ONLY`) (exit 2).
    """
    from experiments.arguments import UsageError, only_with

    given = [flag for flag, key in (("--cache", "cache"), ("--no-cache", "no_cache"))
             if values.get(key)]
    if not asks_model:
        only_with(needed, given)
    if len(given) == 2:
        raise UsageError(f"--cache {values['cache']!r} and --no-cache contradict each "
                         "other; give one")
    from experiments.answers import REPLAY_ONLY, replay_only

    if asks_model and values.get("no_cache") and replay_only():
        raise UsageError(f"--no-cache with {REPLAY_ONLY} set: a run with no answer "
                         "file has nothing to replay; name one with --cache, or unset "
                         f"{REPLAY_ONLY}")


def finish(cls, values: dict, args) -> dict:
    """The ``finish`` of a settings class whose run asks a model through its answer
    file (``finish = classmethod(answers.finish)``): refuses ``--cache`` with
    ``--no-cache`` (exit 2, :func:`check`)."""
    check(values)
    return values
