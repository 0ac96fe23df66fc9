"""Benchmark: does the workspace's per-step cost stay flat as a session grows?

    python -m experiments.bench.bench_scaling [--sizes 1000,10000,100000] [--steps 200]
    python -m experiments.bench.bench_scaling --sizes 100000 --reopen-only

For each size N it builds a workspace of N blocks (tool calls and results with
short real texts, cl100k_base, budget 20,000 tokens) under a hierarchical archive
policy that keeps the request's top-level items few (old blocks into groups of 20,
ten groups of one level into one a level up), then measures in the same process:

* one agent step: register a tool call, register its result (budget-checked by the
  incremental bound of :mod:`sim.workspace.accounting`), assemble; and the same with
  the exact what-if assembly forced (the budget check as it was before);
* with the budget and no policy (``ctxsim workspace replay``'s default; a second
  workspace of N blocks): one registration, half a call-and-result pair, the
  result decided by the wire-payload guard (issue 22: 11/19/40 ms at 2k/4k/6k
  blocks before its lower bound; goal: within 2x from 1k to 100k);
* recover by handle: the owner lookup of an archived block's payload path (every
  result's bytes are distinct here: a lookup costs O(blocks sharing those bytes));
* at the largest N: reopen in a fresh process from the checkpoint (as a reader
  and as the writer), beside the floor measured in that same process (reading
  and hashing the checkpoint file), their ratio and the resident bytes the open
  adds per block (issue 35's goals at 100k blocks: at most 4x the floor and
  1 KB per block), and by full journal replay; the disk space (allocated: st_blocks * 512, directories included)
  the blocks' small payloads take against their bytes, stored one file each (as
  before packs) and packed (:mod:`sim.workspace.packs`), as ratios (goal: packed at
  most 2x); and the sizes of the whole payload store, the checkpoint and the journal.

Prints a table and a JSON line; every time is also given as a ratio to the smallest
N (goal: within 2x). Ratios, not timed assertions; the machine's load matters.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from experiments.bench import description
from sim.workspace import Workspace
from sim.workspace.handles import owner_of
from sim.workspace.packs import PACK_BELOW
from sim.workspace.store import PayloadStore

from .bench_workspace import corpus

BUDGET = 20_000


def _call(i: int) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": f"c{i}", "type": "function",
         "function": {"name": "bash", "arguments": '{"cmd":"ls"}'}}]}


def tidy(ws: Workspace) -> None:
    """The archive policy: over 40 visible top-level blocks, the oldest 20 become a
    group; 10 top-level groups of one level become a group a level up (as an LSM
    tree merges runs), so a session of N blocks keeps O(log N) top-level items and
    writes O(N log N) transcript bytes."""
    top = list(ws.top)
    blocks = [i for i in top if i[0] == "B" and ws.blocks[i].status.value == "visible"]
    if len(blocks) > 40:
        ws.archive(",".join(blocks[:20]), "old steps")
    by_level: dict[int, list[str]] = {}
    for i in ws.top:
        if i[0] == "G":
            by_level.setdefault(ws.groups[i].level, []).append(i)
    for level, groups in sorted(by_level.items()):
        if len(groups) >= 10:
            ws.archive(",".join(groups[:10]), f"older steps (level {level + 1})")
            break


def build(directory: Path, n: int, texts: list[str]) -> Workspace:
    """A workspace of ``n`` blocks under :func:`tidy`."""
    ws = Workspace(directory, budget=BUDGET, sync=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    i = 0
    while len(ws.blocks) < n:
        ws.register(_call(i))
        ws.register({"role": "tool", "tool_call_id": f"c{i}",  # distinct bytes each
                     "content": f"step {i}\n" + texts[i % len(texts)][:200]})
        i += 1
        if i % 10 == 0:
            tidy(ws)
    return ws


def build_plain(directory: Path, n: int, texts: list[str]) -> Workspace:
    """A workspace of ``n`` blocks with the budget and no policy (soft mode), as
    ``ctxsim workspace replay`` runs by default: the request soon stays over
    budget and the wire-payload guard decides every result."""
    ws = Workspace(directory, budget=BUDGET, sync=False, strict=False)
    ws.register({"role": "user", "content": "task"}, pinned=True)
    i = 0
    while len(ws.blocks) < n:
        ws.register(_call(i))
        ws.register({"role": "tool", "tool_call_id": f"c{i}",
                     "content": f"step {i}\n" + texts[i % len(texts)][:200]})
        i += 1
    return ws


def registration_times(ws: Workspace, texts: list[str], steps: int) -> float:
    """Median seconds of one registration (a call, then its guarded result: half
    a step each), no assembly and no policy."""
    times = []
    for k in range(steps):
        i = len(ws.blocks) + 10_000_000
        t = time.perf_counter()
        ws.register(_call(i))
        ws.register({"role": "tool", "tool_call_id": f"c{i}",
                     "content": texts[k % len(texts)][:200]})
        times.append((time.perf_counter() - t) / 2)
    return statistics.median(times)


def step_times(ws: Workspace, texts: list[str], steps: int, exact: bool) -> float:
    """Median seconds of one step (call + result + assemble)."""
    times = []
    for k in range(steps):
        i = len(ws.blocks) + 10_000_000
        t = time.perf_counter()
        ws.register(_call(i))
        if exact:
            ws.bound.total = None  # force the what-if assembly
        ws.register({"role": "tool", "tool_call_id": f"c{i}",
                     "content": texts[k % len(texts)][:200]})
        ws.assemble()
        times.append(time.perf_counter() - t)
        tidy(ws)
    return statistics.median(times)


def recover_time(ws: Workspace, repeats: int = 2000) -> float:
    """Median seconds of an owner lookup by payload path (recover's index step)."""
    paths = [ws.display_path(ws.blocks[f"B{k}"].handle)
             for k in range(3, len(ws.blocks) // 2, max(1, len(ws.blocks) // 50))]
    times = []
    for r in range(repeats):
        p = paths[r % len(paths)]
        t = time.perf_counter()
        owner_of(ws, p)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


REOPEN = """
import gc, hashlib, sys, time
from pathlib import Path
import numpy  # noqa: F401  (imported before the clock and the memory baseline)
from sim.workspace import Workspace, get_tokenizer
get_tokenizer("cl100k_base")  # loaded before the clock starts, as in a warm process

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE

import os
PAGE = os.sysconf("SC_PAGE_SIZE")
ck = Path(sys.argv[1]) / "checkpoint.bin"
floors = [float("nan")]  # no checkpoint (a full replay): no floor
for _ in range(3 if ck.exists() else 0):  # the floor: read the whole checkpoint file and hash it
    t = time.perf_counter()
    hashlib.sha256(ck.read_bytes()).digest()
    floors.append(time.perf_counter() - t)
gc.collect()
before = rss()
t = time.perf_counter()
ws = Workspace.open(sys.argv[1], read_only=sys.argv[2] == "reader")
took = time.perf_counter() - t
gc.collect()
after = rss()
print(took, len(ws.blocks), min(floors[-3:]), after - before)
ws.close()
"""


def reopen_probe(directory: Path, repeats: int = 3, mode: str = "reader") -> dict:
    """A fresh process per repeat opens ``directory`` (``mode`` "reader":
    read-only, "writer": taking the lock), as after a crash: imports and the
    tokenizer's ranks are loaded before timing. In the same process it first
    times reading and hashing the checkpoint file (the floor, best of 3) and
    measures the resident memory the open adds (RSS from /proc/self/statm,
    after a collection, before and after). Returns medians over the repeats:
    seconds, floor seconds, their ratio and resident bytes per block."""
    rows = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", REOPEN, str(directory), mode],
                             check=True, capture_output=True, text=True)
        took, blocks, floor, grew = out.stdout.split()[:4]
        rows.append((float(took), int(blocks), float(floor), int(grew)))
    med = statistics.median
    return {"s": round(med(r[0] for r in rows), 3),
            "floor_s": round(med(r[2] for r in rows), 4),
            "ratio": round(med(r[0] / r[2] for r in rows), 2),
            "bytes_per_block": round(med(r[3] / max(r[1], 1) for r in rows))}


def reopen_time(directory: Path, repeats: int = 3, mode: str = "reader") -> float:
    """Median seconds a fresh process takes to open ``directory``
    (:func:`reopen_probe`)."""
    return reopen_probe(directory, repeats, mode)["s"]


def reopen_figures(directory: Path) -> dict:
    """Reader and writer reopen from the checkpoint (:func:`reopen_probe`), then
    a reader's full journal replay (the checkpoint moved aside meanwhile)."""
    out = {}
    for mode, key in (("reader", "reopen_checkpoint"),
                      ("writer", "reopen_writer_checkpoint")):
        got = reopen_probe(directory, mode=mode)
        out[f"{key}_s"] = got["s"]
        out[f"{key}_floor_s"] = got["floor_s"]
        out[f"{key}_over_floor"] = got["ratio"]
        out[f"{key}_bytes_per_block"] = got["bytes_per_block"]
    aside = directory.parent / (directory.name + ".ck")
    os.rename(directory / "checkpoint.bin", aside)
    try:
        out["reopen_full_replay_s"] = reopen_time(directory)
    finally:
        os.rename(aside, directory / "checkpoint.bin")
    return out


def allocated(root: Path) -> tuple[int, int]:
    """(bytes, allocated bytes) of every file and directory under ``root``, root
    included: st_size of files, st_blocks * 512 of everything."""
    size = disk = 0
    for p in [root, *root.rglob("*")]:
        st = os.lstat(p)
        disk += st.st_blocks * 512
        size += st.st_size if p.is_file() else 0
    return size, disk


def disk_usage(payloads: list[bytes], directory: Path) -> dict:
    """Allocated disk of ``payloads`` (distinct, each shorter than PACK_BELOW) in a
    payload store, one file each (``pack_below=0``: the layout before packs) and
    packed (the default), against the payloads' bytes."""
    out: dict = {"small_payloads": len(payloads),
                 "small_payload_bytes": sum(map(len, payloads))}
    for label, below in (("files", 0), ("packs", PACK_BELOW)):
        store = PayloadStore(directory / label, sync=False, pack_below=below)
        for data in payloads:
            store.put(data)
        store.close()
        os.sync()  # delayed allocation: blocks are counted once written back
        _, disk = allocated(store.root)
        out[f"{label}_disk_bytes"] = disk
        out[f"{label}_disk_over_bytes"] = round(disk / out["small_payload_bytes"], 2)
        shutil.rmtree(store.root)
    return out


REOPEN_KEYS = tuple(f"{k}_{f}" for k in ("reopen_checkpoint", "reopen_writer_checkpoint")
                    for f in ("s", "floor_s", "over_floor", "bytes_per_block")
                    ) + ("reopen_full_replay_s",)


def reopen_only(n: int, texts: list[str], tmp: Path) -> dict:
    """``--reopen-only``: build a workspace of ``n`` blocks, close it and print
    only the reopen figures (:func:`reopen_figures`) and the checkpoint's size."""
    t = time.perf_counter()
    ws = build(tmp / f"w{n}", n, texts)
    out = {"blocks": len(ws.blocks), "build_s": round(time.perf_counter() - t, 1)}
    ws.close()
    out.update(reopen_figures(ws.directory))
    out["checkpoint_bytes"] = (ws.directory / "checkpoint.bin").stat().st_size
    for k, v in out.items():
        print(f"{k:36s} {v}")
    print(json.dumps(out))
    return out


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; returns the figures (see module doc)."""
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--reopen-only", action="store_true",
                        help="build the largest size only and measure its reopen")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    warnings.simplefilter("ignore")
    texts = corpus()
    tmp = Path(tempfile.mkdtemp(prefix="ctxsim-bench-scaling-"))
    if args.reopen_only:
        try:
            return reopen_only(sizes[-1], texts, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    out: dict = {"sizes": sizes, "budget": BUDGET, "steps": args.steps}
    rows = []
    try:
        for n in sizes:
            t = time.perf_counter()
            ws = build(tmp / f"w{n}", n, texts)
            build_s = time.perf_counter() - t
            step_times(ws, texts, 50, exact=False)  # warm-up: caches, first renders
            step = step_times(ws, texts, args.steps, exact=False)
            exact = step_times(ws, texts, args.steps, exact=True)
            rec = recover_time(ws)
            plain = build_plain(tmp / f"p{n}", n, texts)
            registration_times(plain, texts, 50)  # warm-up
            reg = registration_times(plain, texts, args.steps)
            plain.close()
            shutil.rmtree(plain.directory)
            rows.append({"blocks": len(ws.blocks), "top_level": len(ws.top),
                         "build_s": round(build_s, 1), "step_ms": step * 1e3,
                         "step_exact_whatif_ms": exact * 1e3, "recover_us": rec * 1e6,
                         "no_policy_register_ms": reg * 1e3})
            if n == sizes[-1]:
                small = {b.handle.sha256: b.data for b in ws.blocks.values()
                         if len(b.data) < PACK_BELOW}
                ws.close()
                out.update(reopen_figures(ws.directory))
                store_bytes, store_disk = allocated(ws.store.root)
                out.update(disk_usage(list(small.values()), tmp / "disk"))
                out.update({"store_bytes": store_bytes, "store_disk_bytes": store_disk,
                            "group_transcript_file_bytes": sum(
                                os.stat(ws.store.root / g.handle.path).st_size
                                for g in ws.groups.values()
                                if (ws.store.root / g.handle.path).is_file()),
                            "checkpoint_bytes": (ws.directory / "checkpoint.bin"
                                                 ).stat().st_size,
                            "journal_bytes": ws.journal.size()})
            else:
                ws.close()
            shutil.rmtree(ws.directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = rows[0]
    for r in rows:
        r["step_ratio"] = round(r["step_ms"] / base["step_ms"], 2)
        r["step_exact_ratio"] = round(r["step_exact_whatif_ms"]
                                      / base["step_exact_whatif_ms"], 2)
        r["recover_ratio"] = round(r["recover_us"] / base["recover_us"], 2)
        r["no_policy_register_ratio"] = round(r["no_policy_register_ms"]
                                              / base["no_policy_register_ms"], 2)
        for k in ("step_ms", "step_exact_whatif_ms", "recover_us",
                  "no_policy_register_ms"):
            r[k] = round(r[k], 3)
    out["rows"] = rows
    print(f"{'blocks':>8} {'top':>5} {'build s':>8} {'step ms':>8} {'ratio':>6} "
          f"{'exact ms':>9} {'ratio':>6} {'recover us':>11} {'ratio':>6}")
    for r in rows:
        print(f"{r['blocks']:>8} {r['top_level']:>5} {r['build_s']:>8} {r['step_ms']:>8}"
              f" {r['step_ratio']:>6} {r['step_exact_whatif_ms']:>9} "
              f"{r['step_exact_ratio']:>6} {r['recover_us']:>11} {r['recover_ratio']:>6}")
    print(f"{'blocks':>8} {'register ms (budget, no policy)':>32} {'ratio':>6}")
    for r in rows:
        print(f"{r['blocks']:>8} {r['no_policy_register_ms']:>32} "
              f"{r['no_policy_register_ratio']:>6}")
    for k in (*REOPEN_KEYS, "small_payloads",
              "small_payload_bytes", "files_disk_bytes", "files_disk_over_bytes",
              "packs_disk_bytes", "packs_disk_over_bytes", "store_bytes",
              "store_disk_bytes", "group_transcript_file_bytes", "checkpoint_bytes",
              "journal_bytes"):
        if k in out:
            print(f"{k:36s} {out[k]}")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
