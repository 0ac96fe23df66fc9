"""The settings of ``ctxsim run calibrate`` (issues 21 and 37): the probe sizes (TOML
keys, overridden one by one with ``--size NAME=N``) and the real model's endpoint and
server. Each table is sized in the model's prompt tokens (about 15-17 ms each on 2
idle cores at a few thousand tokens of context, about twice that past 10K):
``--quick`` at most 5 minutes, the default about an hour, most of it the needle
probe's two 16K-token streams (the README gives the measured times)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from experiments.arguments import (TOKENS_HELP, Distinct, base_url, name_of,
                                   nonnegative_int, positive_int, positive_tokens)
from experiments.settings import Settings, answers, register, setting
from experiments.settings import kinds as k
from experiments.settings.checks import ListOf

#: the probes of ``ctxsim run calibrate`` (:mod:`experiments.calibrate.probes`), in
#: their run order
PROBES = ("index", "confabulate", "recovery", "dashboard", "context")


def _size(default: int, quick: int, note: str):
    return setting(default, k.COUNT, note, option=None, quick=quick, note=note)


def _size_override(text):
    from experiments.calibrate import size_override

    return size_override(text)


@register
@dataclass(frozen=True)
class CalibrateSettings(Settings):
    """``ctxsim run calibrate``: the synthetic agent's parameters measured against
    the real model. ``size``: the ``--size NAME=N`` pairs given (applied over the
    table by :meth:`finish`, checked like a config's keys)."""

    NAME: ClassVar[str] = "calibrate"
    HEADER: ClassVar[str] = """\
Probe sizes of `ctxsim run calibrate` (issue 21). Each probe puts the real model in
the synthetic agent's seat for one decision; these are how many decisions it asks.

Budget (issues 21 and 37), on 2 idle cores with the embedded Qwen2.5-Coder-1.5B
Q4_K_M: --quick at most 5 minutes, the default about an hour (each probability's
interval is as narrow as that allows; the needle probe reaches 16K tokens). The cost
is the model's prompt tokens (about 15-17 ms each on 2 idle cores, twice that past
10K tokens of context), so each table is sized in them; the README gives the
measured times. Estimated prompt tokens per probe (the model's tokenizer) are in the
comments."""

    index: int = _size(20, 3, "archive decisions, one per case, the index's purpose "
                       "stated (~22K prompt tokens)")
    index_tool: int = _size(6, 1, "... and with the paper's tool text alone (~7K)")
    confabulate: int = _size(20, 1, "cases; each asks three times: archived, trimmed, "
                             "never seen (~67K)")
    recovery: int = _size(20, 3, "recovery calls, one per case (~10K)")
    snapshots: int = _size(40, 3, "dashboard snapshots from disjoint stretches of the "
                           "trajectories, one block asked without and with the ledger ...")
    cap: int = setting(1200, k.tokens(100, k.INT_MAX), "... each a workspace of about "
                       "this many tokens (cl100k; ~77K over 40)", option=None, quick=500,
                       unit="tokens", note="... each a workspace of about this many "
                       "tokens (cl100k; ~77K over 40)")
    trials: int = _size(2, 1, "presentation trials per ledger condition (~8K)")
    context_cases: int = _size(2, 1, "needle cases; each at every length, one growing "
                               "stream (~26K each at 16K)")
    lengths: tuple[int, ...] = setting((500, 2000, 8000, 16000),
                                       ListOf(k.tokens(50, k.INT_MAX)),
                                       "needle stream lengths, tokens (cl100k)",
                                       option=None, quick=(250, 700), unit="tokens",
                                       note="needle stream lengths, tokens (cl100k)")
    needle_at: int = setting(150, k.tokens(0, k.INT_MAX), "the needle's position, "
                             "tokens (cl100k) from the stream's start", option=None,
                             quick=100, unit="tokens", note="the needle's position, "
                             "tokens (cl100k) from the stream's start")

    base_url: str | None = setting(None, None, "OpenAI-compatible endpoint (default: "
                                   "embedded local model)", toml=False, parse=base_url)
    model: str | None = setting(None, None, "model name at --base-url (default: "
                                "$CTXSIM_LLM_MODEL or the endpoint's)", toml=False)
    probes: tuple[str, ...] = setting(PROBES, None, "probes to run (default: all; valid: "
                                      f"{', '.join(PROBES)})", toml=False,
                                      choices=PROBES, metavar="PROBE",
                                      argparse={"nargs": "+", "action": Distinct})
    n_ctx: int = setting(32768, None, "context window of the embedded model's server "
                         "(the model's own is 32K); the needle probe's longest request "
                         "takes about 1.6 of the model's tokens per cl100k token of its "
                         "longest length (about 25.8K at the default 16,000), checked "
                         "before the server starts "
                         f"({TOKENS_HELP}; {{default}})", toml=False,
                         parse=positive_tokens, metavar="TOKENS", unit="tokens")
    # a size named twice is refused: the last value would silently win
    size: tuple[tuple[str, int], ...] = setting(
        (), None, lambda: ("override a probe size of the chosen table (and of --config), "
                           "e.g. index=15 confabulate=9; integer sizes: "
                           f"{', '.join(CalibrateSettings.int_sizes())} (default: none)"),
        toml=False, parse=_size_override, metavar="NAME=N",
        argparse={"nargs": "+", "action": Distinct, "key": name_of, "default": None})
    n_threads: int | None = setting(None, None, "threads of the embedded model's server "
                                    "(default: the server's choice, the usable cores); 1 "
                                    "decodes faster on a machine whose cores are busy",
                                    toml=False, parse=positive_int, metavar="N")
    cache: str | None = answers.cache("calibrate")
    no_cache: bool = answers.no_cache()
    seed: int = setting(0, None, "random seed, an integer >= 0 ({default})", toml=False,
                        parse=nonnegative_int)

    @classmethod
    def int_sizes(cls) -> tuple[str, ...]:
        """The sizes ``--size`` may override: the integer TOML keys (``lengths`` is a
        list)."""
        return tuple(key for key, v in cls.table().items() if isinstance(v, int))

    @classmethod
    def add_arguments(cls, parser, only=None) -> None:
        cls.add_run_arguments(parser, quick_help="a few decisions per probe, for a smoke "
                              "run: the [quick] table of experiments/configs/"
                              "calibrate.toml (default: off)")
        super().add_arguments(parser, only)

    @classmethod
    def finish(cls, values: dict, args) -> dict:
        """``--size NAME=N`` over the table, checked like a config's keys (source
        ``--size``).

        Raises:
            ConfigValueError: naming the size, its value and what was expected.
            UsageError: for ``--cache`` with ``--no-cache``.
        """
        answers.check(values)
        given = dict(values.get("size") or ())
        if given:
            table = {key: values[key] for key in cls.toml_keys()}
            values.update(cls.validate({**table, **given}, "--size", set(given)))
        return values

    def sizes(self) -> dict:
        """The probe sizes (TOML key -> value; lists as tuples)."""
        return {key: getattr(self, key) for key in self.toml_keys()}
