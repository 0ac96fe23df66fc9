"""``ctxsim run perception``: the perception probe of VISTA Table 5 with a real model.

Snapshots are cut from the bundled real trajectories (``sim/data/trajectories``):
runs of consecutive messages, each message one block, system prompts dropped, trailing
blocks dropped until the snapshot fits ``--cap`` tokens (so it fits the model's
window). Ground truth is the workspace's cl100k_base count, the one its budget check
and dashboard use. Three quantities are asked, each in its own request (VISTA
Appendix I "Questions and conditions"):

* total: tokens of the whole transcript (truth: the request's conversation tokens);
* block: tokens of 4 sampled blocks (one request, one integer per block);
* pairwise: which of two blocks is larger, for pairs within 2x in true size.

Conditions: ``-dash`` shows the transcript only; ``+dash`` adds the factual ledger
(the workspace's ledger dashboard of the snapshot). The ledger is placed after the
transcript, where the live harness shows it, rather than before it as in the paper,
so both conditions share the transcript as a cached prefix (one prompt evaluation per
snapshot on a CPU). Scores: median relative error ``|est - true| / true`` of the size
answers (bootstrap 95% interval), and pairwise accuracy (Wilson 95% interval).

Writes ``perception.csv`` (one row per answer), ``perception.png`` and
``perception.json`` (model, sha256, server, seed, summary).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from experiments.intervals import Z_ROUNDED, median_ci, wilson
from experiments.settings.vista import PerceptionSettings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = PerceptionSettings

NAME = "perception"
COLUMNS = ("snapshot", "condition", "quantity", "item", "truth", "estimate",
           "rel_error", "correct")
SYSTEM = ("You are shown the context transcript of a tool-using agent, message by "
          "message; each message is one block with an id in brackets. Answer the "
          "question about it with JSON only.")


@dataclass
class Snapshot:
    """A probe snapshot: ``name``, ``blocks`` ((id, type, tokens, rendered text) in
    order), ``conversation`` (transcript tokens, cl100k) and ``dashboard`` (the
    ledger text)."""

    name: str
    blocks: list[tuple[str, str, int, str]] = field(default_factory=list)
    conversation: int = 0
    dashboard: str = ""

    @property
    def transcript(self) -> str:
        """The transcript as the model reads it: ``[B3 tool_result]`` headers."""
        return "\n\n".join(f"[{i} {t}]\n{text}" for i, t, _, text in self.blocks)


def _render(msg: dict) -> str:
    content = msg.get("content") or ""
    if not isinstance(content, str):
        content = str(content)
    calls = "".join(f"\n-> {c['function']['name']}({c['function'].get('arguments', '')})"
                    for c in msg.get("tool_calls") or [])
    return (content + calls).strip() or "(empty)"


def make_snapshot(name: str, messages: list[dict], cap: int) -> Snapshot | None:
    """A snapshot of ``messages`` (no system messages) capped at ``cap`` conversation
    tokens by dropping trailing blocks; None if fewer than 4 blocks remain."""
    import warnings

    from sim.workspace import Workspace, import_trajectory

    msgs = [m for m in messages if m.get("role") != "system"]
    while len(msgs) >= 4:
        ws = Workspace(None, budget=None, strict=False, sync=False, context_tools=False,
                       system_prompt="")
        try:
            blocks = import_trajectory(msgs, ws, format="openai", pin_task=False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                req = ws.assemble(strict=False)
            if req.conversation <= cap:
                snap = Snapshot(name, [(b.id, b.type.value, b.tokens, _render(m))
                                       for b, m in zip(blocks, msgs)],
                                req.conversation, req.dashboard_text)
                return snap
        finally:
            ws.close()
        # drop trailing blocks in proportion to the excess (then one at a time)
        keep = int(len(msgs) * cap / max(req.conversation, 1))
        msgs = msgs[: max(3, min(keep, len(msgs) - 1))]
    return None


def snapshots(cap: int, n: int, seed: int) -> list[Snapshot]:
    """``n`` snapshots cut at seeded offsets, cycling over the trajectories."""
    from sim.tasks.trajectory_tasks import trajectory_files
    from sim.workspace import load_trajectory

    rng = np.random.default_rng([seed, 5])
    files = trajectory_files()
    msgs = {f.stem: load_trajectory(f) for f in files}
    out: list[Snapshot] = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        f = files[tries % len(files)]
        tries += 1
        m = [x for x in msgs[f.stem] if x.get("role") != "system"]
        start = int(rng.integers(0, max(1, len(m) - 6)))
        if m[start].get("role") == "tool":  # start at a call or a user turn
            continue
        snap = make_snapshot(f"{f.stem}@{start}", m[start: start + 60], cap)
        if snap is not None and snap.name not in {s.name for s in out}:
            out.append(snap)
    return out


@dataclass(frozen=True)
class Question:
    """One probe request: ``quantity`` (total/block/pairwise), the ``prompt``,
    the answer ``schema`` and the ``truth`` (int, dict of ints, or the larger id)."""

    quantity: str
    prompt: str
    schema: dict
    truth: object
    items: tuple[str, ...] = ()


def questions(snap: Snapshot, rng: np.random.Generator, n_blocks: int = 4,
              n_pairs: int = 3) -> list[Question]:
    """The total question, one question on ``n_blocks`` sampled blocks, and up to
    ``n_pairs`` pairwise questions on pairs within 2x (order randomized)."""
    qs = [Question("total", "How many tokens does the whole transcript above contain "
                   "(all blocks together)? Reply {\"tokens\": <integer>}.",
                   _obj({"tokens": {"type": "integer"}}), snap.conversation)]
    sized = [b for b in snap.blocks if b[2] >= 8]
    pick = [sized[i] for i in sorted(rng.choice(len(sized), min(n_blocks, len(sized)),
                                                replace=False))]
    ids = tuple(b[0] for b in pick)
    qs.append(Question("block", f"How many tokens does each of the blocks {', '.join(ids)}"
                       " contain? Reply with one integer per block id, e.g. "
                       + "{" + ", ".join(f'"{i}": <integer>' for i in ids) + "}.",
                       _obj({i: {"type": "integer"} for i in ids}),
                       {b[0]: b[2] for b in pick}, ids))
    pairs = [(a, b) for k, a in enumerate(sized) for b in sized[k + 1:]
             if a[2] != b[2] and max(a[2], b[2]) <= 2 * min(a[2], b[2])]
    for j in rng.permutation(len(pairs))[:n_pairs]:
        a, b = pairs[j]
        if rng.random() < 0.5:
            a, b = b, a
        qs.append(Question("pairwise", f"Which block contains more tokens: {a[0]} or "
                           f"{b[0]}? Reply {{\"larger\": \"{a[0]}\" or \"{b[0]}\"}}.",
                           _obj({"larger": {"type": "string", "enum": [a[0], b[0]]}}),
                           a[0] if a[2] > b[2] else b[0], (a[0], b[0])))
    return qs


def _obj(props: dict) -> dict:
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}


def messages(snap: Snapshot, q: Question, dash: bool) -> list[dict]:
    """The request for ``q``: system, transcript, the ledger when ``dash``, question."""
    msgs = [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": "TRANSCRIPT\n\n" + snap.transcript}]
    if dash:
        msgs.append({"role": "user", "content": snap.dashboard})
    msgs.append({"role": "user", "content": q.prompt})
    return msgs


def score(snap: Snapshot, q: Question, cond: str, answer) -> list[dict]:
    """One CSV row per scored item of ``answer`` (None: the model gave no valid one)."""
    rows = []
    base = {"snapshot": snap.name, "condition": cond, "quantity": q.quantity}
    if q.quantity == "pairwise":
        est = None if answer is None else answer["larger"]
        rows.append({**base, "item": "|".join(q.items), "truth": q.truth, "estimate": est,
                     "rel_error": "", "correct": int(est == q.truth)})
        return rows
    truths = {"total": q.truth} if q.quantity == "total" else q.truth
    for item, truth in truths.items():
        key = "tokens" if q.quantity == "total" else item
        est = None if answer is None else answer.get(key)
        rel = abs(est - truth) / truth if isinstance(est, (int, float)) else math.inf
        rows.append({**base, "item": item, "truth": truth, "estimate": est,
                     "rel_error": round(rel, 4), "correct": ""})
    return rows


def summarize(rows: list[dict]) -> dict:
    """Per condition: median relative error (with CI, n) of total and block sizes,
    and pairwise accuracy (with Wilson CI, n)."""
    out = {}
    for cond in ("-dash", "+dash"):
        r = [x for x in rows if x["condition"] == cond]
        s = {}
        for qty in ("total", "block"):
            e = [x["rel_error"] for x in r if x["quantity"] == qty]
            med, lo, hi = (median_ci(e, resamples=2000) if e
                           else (math.nan, math.nan, math.nan))
            s[qty] = {"median_rel_error": med, "ci95": [lo, hi], "n": len(e)}
        p = [x["correct"] for x in r if x["quantity"] == "pairwise"]
        k = int(sum(p))
        s["pairwise"] = {"accuracy": k / len(p) if p else math.nan,
                         "ci95": list(wilson(k, len(p), z=Z_ROUNDED)[1:]), "n": len(p),
                         "correct": k}
        out[cond] = s
    return out


def probe(snaps: list[Snapshot], ask, seed: int, n_pairs: int = 3,
          progress=None) -> list[dict]:
    """Ask every question of every snapshot in both conditions via
    ``ask(messages, schema) -> dict | None`` and return the scored rows. Questions on
    one snapshot run back to back (-dash, then +dash) to reuse the cached prefix."""
    rows = []
    for k, snap in enumerate(snaps):
        qs = questions(snap, np.random.default_rng([seed, 11, k]), n_pairs=n_pairs)
        for cond, dash in (("-dash", False), ("+dash", True)):
            for q in qs:
                rows += score(snap, q, cond, ask(messages(snap, q, dash), q.schema))
                if progress:
                    progress(f"{snap.name} {cond} {q.quantity}")
    return rows


def add_arguments(parser) -> None:
    """``--out``, ``--quick`` (2 snapshots, cap 800), ``--no-progress`` and the options
    of :class:`~experiments.settings.vista.PerceptionSettings` (``--snapshots``,
    ``--cap`` in tokens, ``--pairs``, ``--base-url`` (default: start the embedded
    model), ``--model``, ``--seed``)."""
    PerceptionSettings.add_run_arguments(parser, quick_help="2 snapshots, cap 800 "
                                         "(explicit options win; default: off)")
    PerceptionSettings.add_arguments(parser)


def run(args) -> list:
    """Run the probe and write CSV, PNG and JSON; the answers go to ``--cache``
    (:mod:`experiments.answers`), so a rerun asks only what the file lacks."""
    import contextlib

    from experiments.answers import answered_model, answers_path
    from experiments.output import prepare_out, write_csv, write_sidecar
    from sim.agents.llm import LLMResponseError

    out = prepare_out(args.out)
    cfg = PerceptionSettings.from_args(args)
    cap = cfg.cap
    snaps = snapshots(cap, cfg.snapshots, cfg.seed)
    invalid = []
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        # answers replayed from the file; the embedded model starts at the first miss
        model = answered_model(args, stack, answers_path(cfg, NAME))
        client = model.client()
        settings = client.settings

        def ask(msgs, schema):
            try:
                return client.ask_json(msgs, schema)
            except LLMResponseError as exc:  # scored as a miss, and counted
                invalid.append(str(exc)[:200])
                return None

        rows = probe(snaps, ask, cfg.seed, n_pairs=cfg.pairs,
                     progress=None if args.no_progress else
                     lambda s: print(f"[perception] {s}", flush=True))
        record = model.record()
    wall = time.perf_counter() - t0
    summary = summarize(rows)
    paths = [write_csv(out / f"{NAME}.csv", COLUMNS, rows)]
    paths.append(plot(summary, out / f"{NAME}.png", record.get("model", "?")))
    config = {**cfg.record(), "snapshots": [s.name for s in snaps],
              "quick": bool(args.quick), "tokenizer": "cl100k_base",
              "temperature": settings.temperature}
    paths.append(write_sidecar(out / f"{NAME}.json", config, {
        **record, "summary": summary, "invalid_answers": invalid,
        "ledger": client.ledger.as_dict(), "wall_seconds": round(wall, 1)}))
    return paths


def plot(summary: dict, path, model: str):
    """Bar chart: median relative error (total, block) and pairwise accuracy per
    condition, with 95% intervals."""
    from experiments.output import new_figure, save_figure

    fig, (ax1, ax2) = new_figure(1, 2, figsize=(9, 3.8))
    conds = ("-dash", "+dash")
    for j, qty in enumerate(("total", "block")):
        for c, cond in enumerate(conds):
            s = summary[cond][qty]
            # an invalid answer scores inf; draw it at the axis cap of 5
            med, lo, hi = (min(5.0, v) for v in (s["median_rel_error"], *s["ci95"]))
            x = j + (c - 0.5) * 0.38
            ax1.bar(x, med, 0.36, color=("C3", "C0")[c], label=cond if j == 0 else None)
            ax1.errorbar(x, med, [[max(0, med - lo)], [max(0, hi - med)]], color="k",
                         capsize=3)
            ax1.text(x, hi + 0.02, f"{med:.2f}\nn={s['n']}", ha="center", va="bottom",
                     fontsize=7)
    ax1.set_xticks([0, 1], ["total size", "block size"])
    ax1.set_ylabel("median relative error")
    ax1.legend(fontsize=8)
    for c, cond in enumerate(conds):
        s = summary[cond]["pairwise"]
        acc, (lo, hi) = s["accuracy"], s["ci95"]
        ax2.bar(c, acc, 0.6, color=("C3", "C0")[c])
        ax2.errorbar(c, acc, [[max(0, acc - lo)], [max(0, hi - acc)]], color="k",
                     capsize=3)
        ax2.text(c, 0.02, f"{s['correct']}/{s['n']}", ha="center", fontsize=8, color="w")
    ax2.axhline(0.5, color="grey", ls=":", lw=1)
    ax2.set_xticks([0, 1], conds)
    ax2.set_ylim(0, 1.05)
    ax2.set_ylabel("pairwise accuracy (pairs within 2x)")
    fig.suptitle(f"Perception probe (cf. VISTA Table 5), {model}", fontsize=9)
    return save_figure(fig, path)
