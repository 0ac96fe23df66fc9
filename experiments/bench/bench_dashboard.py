"""Benchmark: the bounded ledger's cost per request against the full ledger's, as the
number of blocks grows (issue 14), and the cap on a 100k-block workspace.

    python -m experiments.bench.bench_dashboard [--sizes 1000 10000 100000]
        [--cap 400] [--requests 20] [--ws-blocks 100000]

For each size N: N ledger rows (sizes from the bundled trajectories' tool results);
each request adds one row and advances the turn (every age changes), then both
dashboards render incrementally. Reported per request: wall time, characters sent to
the tokenizer (the expensive part) and the dashboard's tokens. Then a workspace of
``--ws-blocks`` registered blocks is built and assembled with the bounded ledger,
checking the rendered tokens against the cap. Prints one line per measurement and a
JSON summary of ratios (no timed assertions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import numpy as np

from experiments.bench import description
from sim.workspace import Workspace
from sim.workspace.bounded_ledger import BoundedLedgerDashboard
from sim.workspace.dashboard import BudgetFacts, LedgerDashboard, Row
from sim.workspace.tokenizer import get_tokenizer


class CountingTokenizer:
    """Wraps a tokenizer and counts the characters it is asked to tokenize."""

    def __init__(self, base):
        self.base, self.name, self.chars = base, base.name, 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self.base.count(text)


def rows_of(n: int, rng: np.random.Generator) -> list[Row]:
    """``n`` rows: a pinned task, then call/result pairs with lognormal result sizes
    (the fit of THEORY.md's bounded-ledger section), a fifth of them archived."""
    rows = [Row("B1", 150, 0, "user_message", 0, "-", "pinned")]
    for i in range(2, n + 1):
        result = i % 2 == 1
        size = int(rng.lognormal(6.0, 1.4)) if result else int(rng.integers(20, 80))
        status = "archived" if rng.random() < 0.2 else "visible"
        rows.append(Row(f"B{i}", size, i // 20, "tool_result" if result else "tool_call",
                        0, f"B{i - 1}" if result else "-", status))
    return rows


def per_request(dash, rows: list[Row], requests: int, tok: CountingTokenizer) -> dict:
    """Median seconds, mean tokenized characters and last tokens per request."""
    turn = rows[-1].turn + 1
    facts = BudgetFacts(128_000, 1500, sum(r.tokens for r in rows), turn)
    dash.render(rows, facts, tok)  # warm the caches
    times, chars, out = [], [], None
    for k in range(requests):
        rows.append(Row(f"B{len(rows) + 1}", 500 + k, turn + k, "tool_result", 0, "-",
                        "visible"))
        facts = BudgetFacts(128_000, 1500, facts.conversation + 500 + k, turn + k + 1)
        tok.chars = 0
        t = time.perf_counter()
        out = dash.render(rows, facts, tok)
        times.append(time.perf_counter() - t)
        chars.append(tok.chars)
    del rows[-requests:]
    return {"seconds": statistics.median(times), "chars": statistics.mean(chars),
            "tokens": out.tokens}


def workspace_check(n: int, cap: int) -> dict:
    """Build ``n`` blocks with the bounded ledger and assemble once: tokens vs cap."""
    ws = Workspace(budget=None, sync=False, dashboard=f"bounded_ledger:{cap}")
    t = time.perf_counter()
    ws.register({"role": "user", "content": "task"}, pinned=True)
    i = 0
    while len(ws.blocks) < n:
        ws.register({"role": "tool" if i % 2 else "user",
                     "content": f"result {i}: " + "x " * (i * 7919 % 300)}
                    if i % 2 == 0 else {"role": "user", "content": f"note {i}"})
        i += 1
    build = time.perf_counter() - t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        req = ws.assemble(strict=False)
        first = time.perf_counter() - t
        ws.next_turn()
        t = time.perf_counter()
        req = ws.assemble(strict=False)
        again = time.perf_counter() - t
    dash = ws.assembler.dashboard
    return {"blocks": n, "cap": cap, "dashboard_tokens": req.dashboard,
            "within_cap": req.dashboard <= cap, "rows_shown": len(dash.shown),
            "remainder": list(dash.remainder), "build_s": round(build, 1),
            "assemble_first_s": round(first, 3), "assemble_next_s": round(again, 3)}


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its summary; returns it."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--cap", type=int, default=400)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--ws-blocks", type=int, default=100_000)
    args = ap.parse_args(argv)
    tok = CountingTokenizer(get_tokenizer("cl100k_base"))
    rng = np.random.default_rng(0)
    per_size = {}
    for n in args.sizes:
        rows = rows_of(n, rng)
        b = per_request(BoundedLedgerDashboard(args.cap), rows, args.requests, tok)
        f = per_request(LedgerDashboard(), rows, args.requests, tok)
        per_size[n] = {"bounded": b, "full": f,
                       "bounded_over_full_seconds": round(b["seconds"] / f["seconds"], 3)}
        print(f"N={n:>7,}: bounded {b['seconds'] * 1e3:7.2f} ms, {b['chars']:6.0f} chars "
              f"tokenized, {b['tokens']} tokens | full {f['seconds'] * 1e3:7.2f} ms, "
              f"{f['chars']:8.0f} chars, {f['tokens']:,} tokens")
    small, large = min(args.sizes), max(args.sizes)
    summary = {
        "cap": args.cap, "per_size": per_size,
        # flat: tokenizer work per request of the bounded ledger, largest vs smallest N
        "bounded_chars_ratio_large_small": round(
            per_size[large]["bounded"]["chars"] / per_size[small]["bounded"]["chars"], 3),
        "bounded_seconds_ratio_large_small": round(
            per_size[large]["bounded"]["seconds"] / per_size[small]["bounded"]["seconds"], 2),
        "full_seconds_ratio_large_small": round(
            per_size[large]["full"]["seconds"] / per_size[small]["full"]["seconds"], 2),
    }
    if args.ws_blocks:
        summary["workspace"] = workspace_check(args.ws_blocks, args.cap)
        print(f"workspace of {args.ws_blocks:,} blocks: {summary['workspace']}")
    print(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
