"""``ctxsim run presentation``: does the dashboard's layout change a small model's
archive decision? (Beyond the paper; it matters for small models, which read a ledger
in id order with a strong position bias.)

Each trial is one ledger state: a pinned task block, then ``--pairs`` tool calls
(20-60 tokens) with their results (log-normal sizes, median 1,500 tokens), over a
budget the request exceeds. The model gets VISTA's protocol and budget notice, the
archive tool (the workspace's JSON schema), the dashboard, and an over-budget notice
asking it to archive the one block that frees the most room. The same trial is shown
in four presentations, rendered by the workspace's renderers:

* ``ledger``: the factual ledger in id (= time) order, as VISTA prints it;
* ``ledger_sorted``: the same rows sorted by size, largest first;
* ``sorted_unpinned``: sorted, with the pinned rows left out (only archivable rows;
  the budget bar still counts them), to tell a row-position bias from confusion
  over pinned rows;
* ``status_board``: the status-board variant (grouped by status, id order);
* ``bounded_ledger`` (only with ``--conditions``): the bounded ledger at 400 tokens
  (sorted, no pinned rows, compact rows, a remainder line; issue 14).

Scored: the share of trials where the model archives exactly the largest unpinned
block (Wilson 95% interval; an invalid call, such as a pinned or unknown id, counts
as wrong and is tallied), the size rank of the block it chose, and the chance level
1 / (unpinned blocks). Writes ``presentation.csv`` (one row per answer),
``presentation.png`` and ``presentation.json`` (model, hash, server, seed).
"""

from __future__ import annotations

import time

import numpy as np

from experiments.settings.vista import PresentationSettings

#: the settings of this experiment (options, TOML tables, sidecar record)
SETTINGS = PresentationSettings

NAME = "presentation"
CONDITIONS = ("ledger", "ledger_sorted", "sorted_unpinned", "status_board")
#: every condition ``--conditions`` accepts (the default runs :data:`CONDITIONS`)
ALL_CONDITIONS = CONDITIONS + ("bounded_ledger",)
LABELS = {"ledger": "ledger\n(id order)", "ledger_sorted": "ledger sorted\nby size",
          "sorted_unpinned": "sorted, pinned\nrows omitted", "status_board": "status board",
          "bounded_ledger": "bounded ledger\n(400 tokens)"}
COLUMNS = ("trial", "condition", "chosen", "largest", "correct", "chosen_rank",
           "chosen_position", "candidates", "invalid")


def trial_rows(rng: np.random.Generator, pairs: int = 4):
    """The ledger rows of one trial (:class:`sim.workspace.dashboard.Row`, id order):
    a pinned task block and ``pairs`` call/result pairs; turn = pair index."""
    from sim.workspace.dashboard import Row

    rows = [Row("B1", int(rng.integers(60, 200)), 0, "user_message", 0, "-", "pinned")]
    for k in range(pairs):
        c, r = 2 + 2 * k, 3 + 2 * k
        rows.append(Row(f"B{c}", int(rng.integers(20, 60)), k + 1, "tool_call", 0, "-",
                        "visible"))
        size = int(np.clip(rng.lognormal(np.log(1500), 0.9), 150, 12_000))
        rows.append(Row(f"B{r}", size, k + 1, "tool_result", 0, f"B{c}", "visible"))
    return rows


def render(rows, condition: str, budget: int, overhead: int) -> str:
    """The dashboard text of ``rows`` in ``condition`` (see module docstring)."""
    from sim.workspace.dashboard import (BudgetFacts, LedgerDashboard,
                                         StatusBoardDashboard)
    from sim.workspace.tokenizer import get_tokenizer

    tok = get_tokenizer("cl100k_base")
    facts = BudgetFacts(budget, overhead, sum(r.tokens for r in rows),
                        max(r.turn for r in rows))
    if condition == "ledger":
        return LedgerDashboard().render(rows, facts, tok, fresh=True).text
    if condition == "ledger_sorted":
        ordered = sorted(rows, key=lambda r: -r.tokens)
        return LedgerDashboard().render(ordered, facts, tok, fresh=True).text
    if condition == "sorted_unpinned":
        ordered = sorted((r for r in rows if r.status != "pinned"), key=lambda r: -r.tokens)
        return LedgerDashboard().render(ordered, facts, tok, fresh=True).text
    if condition == "status_board":
        return StatusBoardDashboard().render(rows, facts, tok, fresh=True).text
    if condition == "bounded_ledger":
        from sim.workspace.bounded_ledger import BoundedLedgerDashboard

        return BoundedLedgerDashboard(400).render(rows, facts, tok, fresh=True).text
    raise ValueError(f"unknown condition {condition!r}; choose one of {ALL_CONDITIONS}")


def archive_tool(plain: bool = False) -> dict:
    """The workspace's archive tool schema (OpenAI format). ``plain`` drops the
    example ids ("B3", "B3,B4", ...) from the ``block_id`` description, to test
    whether a small model copies the example instead of reading the ledger."""
    import copy

    from sim.workspace.tools import context_tool_schemas

    tool = context_tool_schemas()[0]
    if plain:
        tool = copy.deepcopy(tool)
        tool["function"]["parameters"]["properties"]["block_id"]["description"] = (
            "The ID of a block listed in the dashboard.")
    return tool


def request(rows, condition: str, budget: int, incoming: int, plain: bool = False
            ) -> list[dict]:
    """The chat messages of one decision (system prompt first, so it is a shared
    cached prefix across trials)."""
    from sim.agents.llm_parse import tools_prompt
    from sim.workspace.assembly import default_system_prompt

    system = default_system_prompt(budget) + "\n\n" + tools_prompt([archive_tool(plain)])
    notice = (f"NOTICE: the next tool result (~{incoming:,} tokens) would exceed the "
              "context budget. Archive exactly one block now: the block whose archiving "
              "frees the most tokens. Pinned blocks cannot be archived.")
    return [{"role": "system", "content": system},
            {"role": "user", "content": render(rows, condition, budget, 450)},
            {"role": "user", "content": notice}]


def decide(ask, rows, condition: str, budget: int, incoming: int, plain: bool = False
           ) -> dict:
    """Ask for one archive call via ``ask(messages, schema) -> dict`` (raising
    :class:`~sim.agents.llm_parse.ParseError` or returning None for an invalid
    answer) and score it."""
    from sim.agents.llm_parse import ParseError, check_block_spec, parse_call, union_schema

    tool = archive_tool(plain)
    cands = [r for r in rows if r.status == "visible"]
    largest = max(cands, key=lambda r: r.tokens).id
    by_size = [r.id for r in sorted(cands, key=lambda r: -r.tokens)]
    chosen, invalid = "", ""
    try:
        obj = ask(request(rows, condition, budget, incoming, plain), union_schema([tool]))
        if obj is None:
            raise ParseError("no valid answer", "empty")
        import json

        name, args = parse_call({"content": json.dumps(obj)}, [tool], "json")
        ids = check_block_spec(args["block_id"], {r.id for r in cands}, "archive")
        chosen = ",".join(ids)
        if len(ids) != 1:
            invalid = "several blocks"
    except ParseError as exc:
        invalid = str(exc)[:160]
    one = chosen if chosen and "," not in chosen else ""
    return {"condition": condition, "chosen": chosen, "largest": largest,
            "correct": int(one == largest and not invalid),
            "chosen_rank": by_size.index(one) + 1 if one in by_size else "",
            "chosen_position": [r.id for r in cands].index(one) + 1 if one else "",
            "candidates": len(cands), "invalid": invalid}


def probe(ask, trials: int, seed: int, pairs: int = 4, progress=None,
          plain: bool = False, conditions=CONDITIONS) -> list[dict]:
    """Every trial in every condition of ``conditions`` (``plain``: see
    :func:`archive_tool`); returns the scored rows."""
    out = []
    for t in range(trials):
        rows = trial_rows(np.random.default_rng([seed, 13, t]), pairs)
        used = 450 + sum(r.tokens for r in rows)
        budget = int(round(used / 0.92, -2))  # the request at ~92% of B
        incoming = int(budget * 0.3)
        for cond in conditions:
            out.append({"trial": t, **decide(ask, rows, cond, budget, incoming, plain)})
            if progress:
                progress(f"trial {t} {cond}: {out[-1]['chosen']} (largest "
                         f"{out[-1]['largest']})")
    return out


def summarize(rows: list[dict], conditions=CONDITIONS) -> dict:
    """Per condition: correct/n, accuracy with Wilson 95% interval, invalid answers,
    mean size rank of the chosen block, share choosing the first candidate, and the
    chance level."""
    from experiments.intervals import Z_ROUNDED, wilson

    out = {}
    for cond in conditions:
        r = [x for x in rows if x["condition"] == cond]
        k, n = sum(x["correct"] for x in r), len(r)
        ranks = [x["chosen_rank"] for x in r if x["chosen_rank"] != ""]
        out[cond] = {"correct": k, "n": n, "accuracy": k / n if n else float("nan"),
                     "ci95": list(wilson(k, n, z=Z_ROUNDED)[1:]),
                     "invalid": sum(bool(x["invalid"]) for x in r),
                     "mean_chosen_rank": float(np.mean(ranks)) if ranks else None,
                     "first_candidate_share": (sum(x["chosen_position"] == 1 for x in r)
                                               / n if n else None),
                     "chance": float(np.mean([1 / x["candidates"] for x in r])) if r else None}
    return out


def add_arguments(parser) -> None:
    """``--out``, ``--quick`` (3 trials), ``--no-progress`` and the options of
    :class:`~experiments.settings.vista.PresentationSettings` (``--trials``,
    ``--pairs``, ``--base-url``, ``--model``, ``--seed``, ``--conditions``,
    ``--plain-schema``)."""
    PresentationSettings.add_run_arguments(parser, quick_help="3 trials (explicit "
                                           "options win; default: off)")
    PresentationSettings.add_arguments(parser)


def run(args) -> list:
    """Run the probe with the real model and write CSV, PNG and JSON; the answers
    go to ``--cache`` (:mod:`experiments.answers`), so a rerun asks only what the
    file lacks."""
    import contextlib

    from experiments.answers import answered_model, answers_path
    from experiments.output import (new_figure, prepare_out, save_figure, write_csv,
                                    write_sidecar)
    from sim.agents.llm import LLMResponseError

    out = prepare_out(args.out)
    cfg = PresentationSettings.from_args(args)
    conds = tuple(cfg.conditions)
    name = NAME + ("_plain" if cfg.plain_schema else "") + (
        "" if conds == CONDITIONS else "_" + "-".join(conds))
    trials = cfg.trials
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        # answers replayed from the file; the embedded model starts at the first miss
        model = answered_model(args, stack, answers_path(cfg, NAME))
        # no repairs: the first answer is the measurement (a repair would reveal ids)
        client = model.client(max_repairs=0, max_tokens=60)
        settings = client.settings

        def ask(msgs, schema):
            try:
                return client.ask_json(msgs, schema)
            except LLMResponseError:
                return None

        rows = probe(ask, trials, cfg.seed, cfg.pairs,
                     progress=None if args.no_progress else
                     lambda s: print(f"[presentation] {s}", flush=True),
                     plain=cfg.plain_schema, conditions=conds)
        record = model.record()
    wall = time.perf_counter() - t0
    summary = summarize(rows, conds)
    paths = [write_csv(out / f"{name}.csv", COLUMNS, rows)]
    fig, ax = new_figure(figsize=(max(4.0, 1.75 * len(conds)), 3.8))
    for i, cond in enumerate(conds):
        s = summary[cond]
        lo, hi = s["ci95"]
        ax.bar(i, s["accuracy"], 0.6, color=f"C{i}")
        ax.errorbar(i, s["accuracy"], [[max(0, s["accuracy"] - lo)],
                                       [max(0, hi - s["accuracy"])]], color="k", capsize=3)
        ax.text(i, min(hi + 0.02, 0.97), f"{s['correct']}/{s['n']}\n"
                f"({s['invalid']} invalid)", ha="center", fontsize=7)
    chance = np.mean([summary[c]["chance"] for c in conds])
    ax.axhline(chance, color="grey", ls=":", lw=1, label=f"chance ({chance:.2f})")
    ax.set_xticks(range(len(conds)), [LABELS[c] for c in conds])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("archives the largest unpinned block")
    ax.set_title(f"Dashboard presentation, {record.get('model', '?')}"
                 + (" (no example ids in the tool schema)" if cfg.plain_schema else ""),
                 fontsize=9)
    ax.legend(fontsize=8)
    paths.append(save_figure(fig, out / f"{name}.png"))
    config = {**cfg.record(), "quick": bool(args.quick),
              "temperature": settings.temperature}
    paths.append(write_sidecar(out / f"{name}.json", config, {
        **record, "summary": summary, "ledger": client.ledger.as_dict(),
        "wall_seconds": round(wall, 1)}))
    return paths
