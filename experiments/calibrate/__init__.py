"""``ctxsim run calibrate``: calibrate the synthetic agent against the real model it can
run (issue 21).

The probes (:mod:`experiments.calibrate.probes`) put the real model (the embedded
Qwen2.5-Coder-1.5B Q4_K_M by default, or any OpenAI-compatible endpoint with
``--base-url``) in the synthetic agent's seat for one decision at a time, on the
LOCA-like task generator's views; :mod:`experiments.calibrate.estimates` turns the
answers into estimates with intervals, mapped to the world parameters
(:mod:`sim.world`) they measure. Answers are cached by prompt hash
(:mod:`sim.agents.answer_cache`; ``--cache``), so a rerun asks only new questions;
decoding is greedy and the first answer is the measurement (no repairs).

Writes ``calibration.csv`` (one row per estimate: probe, quantity, parameter,
condition, estimate, low, high, n, k, parse failures, method, note),
``calibration.png`` (each measured parameter against its prior range; the needle
answers against length with the fitted curve and the prior's band) and
``calibration.json`` (model, server, per-probe model calls, cache hits, prompt and
completion tokens and wall time, the run's wall and CPU time, every trial's row, and
``parameters``: the measured value of each world parameter beside its prior, read by
``ctxsim world`` and ``--profile calibrated``).
"""

from __future__ import annotations

import math
import os
import sys
import time

from experiments.settings.calibrate import CalibrateSettings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = CalibrateSettings

NAME = "calibrate"
#: the files it writes: calibration.csv, .png, .json
FILE = "calibration"
COLUMNS = ("probe", "quantity", "parameter", "condition", "estimate", "low", "high", "n",
           "k", "parse_failures", "method", "note", "prior_low", "prior_high",
           "inside_prior")
TRIAL_COLUMNS = ("probe", "case", "condition", "key", "truth", "answer", "outcome",
                 "strict", "value_copied", "request_tokens", "detail")
#: the probes, in their run order (declared with the settings' ``--probes``)
from experiments.settings.calibrate import PROBES  # noqa: E402
from experiments.calibrate.figure import plot, unidentified_reason  # noqa: E402,F401

#: the probe sizes: the TOML keys of
#: :class:`experiments.settings.calibrate.CalibrateSettings` (``[default]``, ``[quick]``)
CONFIG = "calibrate"


def int_sizes() -> tuple[str, ...]:
    """The sizes ``--size`` may override: the integer keys of the settings'
    ``[default]`` table (``lengths`` is a list)."""
    return CalibrateSettings.int_sizes()


def size_override(text: str) -> tuple[str, int]:
    """The ``--size`` converter: ``NAME=N`` with NAME in :func:`int_sizes` and N an
    integer (for ``cap``, a token count: ``cap=1.2k``); which N are allowed is the
    schema's to say (:func:`sizes`)."""
    import argparse

    from experiments.arguments import TOKEN_FORMS, parse_tokens
    from experiments.config import token_keys

    names = int_sizes()
    name, sep, value = text.partition("=")
    if not sep or name not in names:
        raise argparse.ArgumentTypeError(f"expected NAME=N with NAME one of "
                                         f"{', '.join(names)}, got {text!r}")
    tokens = name in token_keys(CONFIG)
    try:
        return name, parse_tokens(value) if tokens else int(value)
    except ValueError:
        what = f"a token count ({TOKEN_FORMS})" if tokens else "an integer"
        raise argparse.ArgumentTypeError(f"{name} must be {what}, got {value!r}"
                                         ) from None


def sizes(args) -> dict:
    """The probe sizes ``args`` ask for
    (:meth:`~experiments.settings.calibrate.CalibrateSettings.sizes`): the
    ``[quick]`` or ``[default]`` table, ``--config FILE``'s keys over it, then
    ``--size NAME=N`` over both. ``lengths`` (cl100k tokens) and ``depths``
    (fractions of the stream) are tuples.

    Raises:
        ConfigValueError: a bad value or an unknown key in ``--config`` or ``--size``
            (see :func:`experiments.config.load_config`).
    """
    return CalibrateSettings.from_args(args).sizes()


#: the embedded model's tokens per cl100k token on the needle streams, measured:
#: 22,242 prompt tokens of Qwen2.5-Coder-1.5B for 14,236 cl100k tokens in the default
#: run's context probe (figures/calibration.json), rounded up
MODEL_TOKENS_PER_CL100K = 1.6


def check_context_window(size: dict, n_ctx: int, answer_tokens: int = 160) -> None:
    """Refuse needle ``lengths`` (cl100k tokens) whose longest request cannot fit the
    embedded model's context window ``n_ctx`` (its tokens) with ``answer_tokens``
    left for the answer, before the server starts.

    Raises:
        ConfigValueError: naming the length, the tokens it needs and ``--n-ctx``.
    """
    from experiments.config import ConfigValueError

    longest = max(size["lengths"])
    need = math.ceil(longest * MODEL_TOKENS_PER_CL100K) + answer_tokens
    if need > n_ctx:
        raise ConfigValueError(
            f"config key 'lengths': a needle stream of {longest:,} cl100k tokens needs "
            f"about {need:,} of the embedded model's tokens ({MODEL_TOKENS_PER_CL100K} "
            f"per cl100k token, and {answer_tokens} for the answer), more than --n-ctx "
            f"{n_ctx:,}; raise --n-ctx or shorten lengths")


def add_arguments(parser) -> None:
    """Options (:class:`~experiments.settings.calibrate.CalibrateSettings`):
    ``--out``, ``--quick``, ``--no-progress``, ``--config``, ``--base-url``,
    ``--model``, ``--probes``, ``--n-ctx``, ``--size``, ``--n-threads``, ``--cache``,
    ``--no-cache``, ``--seed``."""
    CalibrateSettings.add_arguments(parser)


def run_probes(client, probes, sizes: dict, seed: int, progress=None) -> tuple[dict, dict]:
    """Run ``probes`` with ``client`` (a chat client; a
    :class:`sim.agents.answer_cache.CachedClient` counts cache hits); returns
    ``(trials: probe -> rows, costs: probe -> model calls, cache hits, tokens,
    seconds)``."""
    from experiments.calibrate import dashboard as D
    from experiments.calibrate import probes as P
    from experiments.vista import presentation
    from sim.agents.llm import LLMResponseError

    trials, costs = {}, {}
    n_cases = max(sizes["index"], sizes["index_tool"], sizes["confabulate"],
                  sizes["recovery"], sizes["context_cases"])
    cs = P.cases(n_cases, seed)
    cache = getattr(client, "cache", None)
    for probe in probes:
        led0 = client.ledger.as_dict()
        hits0 = cache.hits if cache else 0
        used0 = dict(getattr(client, "used", {}))
        t0 = time.perf_counter()
        if probe == "index":
            rows = (P.probe_index(client, cs[: sizes["index"]], seed)
                    + P.probe_index(client, cs[: sizes["index_tool"]], seed,
                                    condition="tool"))
        elif probe == "confabulate":
            rows = P.probe_confabulate(client, cs[: sizes["confabulate"]], seed)
        elif probe == "recovery":
            rows = P.probe_recovery(client, cs[: sizes["recovery"]], seed)
        elif probe == "context":
            rows = P.probe_context(client, cs[: sizes["context_cases"]], seed,
                                   sizes["lengths"], sizes["needle_at"])
        else:
            failures = []

            def ask(msgs, schema):
                try:
                    return client.ask_json(msgs, schema)
                except LLMResponseError as exc:  # scored as a miss, and counted
                    failures.append(f"{exc.reason}: {exc.raw[:120]}")
                    return None

            snaps = D.disjoint_snapshots(sizes["cap"], sizes["snapshots"], seed)
            rows = {"perception": D.probe_dashboard(ask, snaps, seed),
                    "presentation": presentation.probe(
                        ask, sizes["trials"], seed,
                        conditions=("ledger", "bounded_ledger")),
                    "parse_failures": failures}
        led = client.ledger.as_dict()
        costs[probe] = {
            "model_calls": led["requests"] - led0["requests"],
            "cache_hits": (cache.hits - hits0) if cache else 0,
            "prompt_tokens": led["prompt_tokens"] - led0["prompt_tokens"],
            "completion_tokens": led["completion_tokens"] - led0["completion_tokens"],
            "wall_seconds": round(time.perf_counter() - t0, 2)}
        if used0:  # what the answers cost when first asked (cached ones included)
            costs[probe]["answers"] = {k: round(v - used0[k], 3)
                                       for k, v in client.used.items()}
        trials[probe] = rows
        if progress:
            progress(f"{probe}: {costs[probe]}")
    return trials, costs


def with_priors(estimates: list[dict]) -> list[dict]:
    """Each estimate with its parameter's prior range and whether the estimate lies
    inside it (blank for estimates of no parameter)."""
    from sim.world import TABLE

    out = []
    for e in estimates:
        p = TABLE.get(e["parameter"])
        v = e["estimate"]
        extra = {"prior_low": "", "prior_high": "", "inside_prior": ""}
        if p is not None:
            extra = {"prior_low": p.low, "prior_high": p.high,
                     "inside_prior": int(math.isfinite(v) and p.low <= v <= p.high)}
        out.append({**e, **extra})
    return out


def parameters(estimates: list[dict], model: str) -> dict[str, dict]:
    """World parameter -> its measurement and prior (the sidecar's ``parameters``)."""
    from sim.world import TABLE

    out = {}
    for e in estimates:
        p = TABLE.get(e["parameter"])
        if p is None:
            continue
        v, lo, hi = e["estimate"], e["low"], e["high"]
        out[p.name] = {"estimate": v, "low": lo, "high": hi, "n": e["n"],
                       "parse_failures": e["parse_failures"], "probe": e["probe"],
                       "quantity": e["quantity"], "method": e["method"], "model": model,
                       "prior": [p.low, p.high], "default": p.default,
                       "inside_prior": bool(math.isfinite(v) and p.low <= v <= p.high),
                       "interval_overlaps_prior": bool(hi >= p.low and lo <= p.high)}
    return out


def flat_trials(trials: dict) -> list[dict]:
    """Every decision's row (the dashboard's per-answer rows keep their own fields)."""
    rows = []
    for probe, r in trials.items():
        if probe == "dashboard":
            rows += [{**x, "probe": "dashboard/size"} for x in r["perception"]]
            rows += [{"probe": "dashboard/presentation", **x} for x in r["presentation"]]
        else:
            rows += r
    return rows


def _decoding(settings):
    """The probes' decoding: greedy, the first answer the measurement (no repairs),
    160 answer tokens."""
    import dataclasses

    return dataclasses.replace(settings, max_repairs=0, max_tokens=160, temperature=0.0)


def run(args) -> list:
    """Run the probes against the model and write CSV, PNG and JSON."""
    import contextlib

    from experiments.answers import OnDemand, Server, answer_file, answers_path
    from experiments.calibrate.estimates import summarize
    from experiments.output import prepare_out, write_csv, write_sidecar
    from sim.agents.answer_cache import AnswerCache, CachedClient

    size = sizes(args)  # a bad --config or --size is refused before anything is made
    if args.base_url is None and "context" in args.probes:
        check_context_window(size, args.n_ctx)
    out = prepare_out(args.out)
    cache_path = answers_path(args, NAME)
    say = (lambda s: None) if args.no_progress else (
        lambda s: print(f"[calibrate] {s}", file=sys.stderr, flush=True))
    cpu0, t0 = os.times(), time.perf_counter()
    with contextlib.ExitStack() as stack:
        answers = stack.enter_context(answer_file(cache_path))
        # the --base-url endpoint, or the embedded model started when the cache
        # cannot answer
        server = Server(args, stack, cache_path)
        inner = OnDemand(server, _decoding(server.settings))
        client = CachedClient(inner, AnswerCache(answers))
        trials, costs = run_probes(client, args.probes, size, args.seed, say)
        record = server.provenance()
        settings = inner.settings
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    cpu = {"self": round((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), 1),
           "children": round((cpu1.children_user - cpu0.children_user)
                             + (cpu1.children_system - cpu0.children_system), 1)}
    model = record.get("model", "?")
    ests = with_priors(summarize(trials, args.seed))
    params = parameters(ests, model)
    paths = [write_csv(out / f"{FILE}.csv", COLUMNS, ests)]
    paths.append(plot(ests, trials, out / f"{FILE}.png", model))
    led = client.ledger.as_dict()
    cfg = {"quick": bool(args.quick), "seed": args.seed, "probes": list(args.probes),
           "sizes": {k: list(v) if isinstance(v, tuple) else v for k, v in size.items()},
           "n_ctx": args.n_ctx, "n_threads": args.n_threads, "temperature": settings.temperature,
           "max_repairs": settings.max_repairs, "tokenizer": "cl100k_base",
           "cache": str(cache_path) if cache_path else None}
    paths.append(write_sidecar(out / f"{FILE}.json", cfg, {
        **record, "parameters": params, "probes": costs,
        "model_calls": led["requests"], "cache_hits": client.cache.hits,
        "answers_cost": {k: round(v, 3) for k, v in client.used.items()},
        "prompt_tokens": led["prompt_tokens"],
        "completion_tokens": led["completion_tokens"],
        "wall_seconds": round(wall, 1), "cpu_seconds": cpu,
        "cores": os.cpu_count(), "load_average": list(os.getloadavg()),
        "parse_failures": sum(e["parse_failures"] or 0 for e in ests
                              if e["method"] != "bootstrap median"),
        "trials": flat_trials(trials)}))
    say(f"done: {led['requests']} model calls, {client.cache.hits} cached, "
        f"{wall:.0f} s wall, cpu {cpu}")
    return paths
