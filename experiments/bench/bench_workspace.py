"""Benchmark: workspace assembly + dashboard render for N registered blocks,
incremental (after one new block) against a full rebuild, in one process; and the
cl100k_base tokenizer's throughput in MB/s.

    python -m experiments.bench.bench_workspace [--blocks 10000] [--repeats 5]

Prints one line per measurement and a JSON summary (ratios, not timed assertions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from pathlib import Path

import sim
from sim.workspace import BPETokenizer, Workspace, load_trajectory

DATA = Path(sim.__file__).parent / "data" / "trajectories"


def corpus() -> list[str]:
    """Real message texts from the bundled trajectories."""
    texts = []
    for f in sorted(DATA.glob("*.traj*")) + sorted(DATA.glob("*.jsonl")):
        texts += [m["content"] for m in load_trajectory(f)
                  if isinstance(m.get("content"), str) and m["content"]]
    return texts


def build(n: int, texts: list[str]) -> Workspace:
    """A workspace of ``n`` blocks: calls and results drawn from real texts."""
    ws = Workspace(budget=None, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    i = 0
    while len(ws.blocks) < n:
        cid = f"c{i}"
        ws.register({"role": "assistant", "content": "step", "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": "bash",
                                                         "arguments": '{"cmd":"ls"}'}}]})
        ws.register({"role": "tool", "tool_call_id": cid,
                     "content": texts[i % len(texts)][:2000]})
        i += 1
    for k in range(2, n // 4, 40):  # some archives and groups, as in a real run
        ws.archive(f"B{k}-B{k + 5}", "bench group")
    return ws


def timed(fn, repeats: int) -> float:
    """Median wall time in seconds of ``repeats`` calls of ``fn`` (the median, not the
    best: assembly allocates, so single runs vary with the garbage collector)."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark, print a table and a JSON line; returns the figures
    (milliseconds, speed-up ratios, tokenizer MB/s and tokens/s)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    texts = corpus()
    t0 = time.perf_counter()
    ws = build(args.blocks, texts)
    ws.assemble()
    build_s = time.perf_counter() - t0
    full = timed(lambda: ws.assemble(incremental=False), args.repeats)

    def one_result():  # same root turn: one new observation, then assemble
        cid = f"x{len(ws.blocks)}"
        ws.register({"role": "assistant", "content": "", "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            new_turn=False)
        ws.register({"role": "tool", "tool_call_id": cid, "content": texts[7][:2000]})
        ws.assemble()

    def new_turn():  # a new root turn: every age changes
        ws.register({"role": "assistant", "content": "thinking about the next step"})
        ws.assemble()

    incr = timed(one_result, args.repeats)
    turn = timed(new_turn, args.repeats)
    req = ws.assemble()
    assert req.total == ws.assemble(incremental=False).total  # same answer both ways
    ws.close()  # a temporary workspace: its directory goes with it

    tok = BPETokenizer()
    blob = "\n".join(texts)
    while len(blob.encode()) < 8_000_000:
        blob += "\n" + blob
    mb = len(blob.encode()) / 1e6
    t = time.perf_counter()
    n_tokens = tok.count(blob)
    tok_s = time.perf_counter() - t
    chunks = texts * max(1, int(8_000_000 / sum(len(x.encode()) for x in texts)))
    t = time.perf_counter()
    for c in chunks:
        tok.count(c)
    msg_s = time.perf_counter() - t
    msg_mb = sum(len(c.encode()) for c in chunks) / 1e6
    out = {
        "blocks": len(ws.blocks), "request_tokens": req.total,
        "dashboard_tokens": req.dashboard, "build_s": round(build_s, 2),
        "full_rebuild_ms": round(full * 1e3, 1),
        "incremental_one_block_ms": round(incr * 1e3, 2),
        "incremental_new_turn_ms": round(turn * 1e3, 2),
        "speedup_one_block": round(full / incr, 1),
        "speedup_new_turn": round(full / turn, 1),
        "tokenizer_MB_per_s_one_string": round(mb / tok_s, 2),
        "tokenizer_MB_per_s_per_message": round(msg_mb / msg_s, 2),
        "tokenizer_tokens_per_s": round(n_tokens / tok_s),
    }
    for k, v in out.items():
        print(f"{k:34s} {v}")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
