"""The calibration's dashboard probe (issue 37): the size of one block asked on each
of independent snapshots, without the ledger (the content channel) and with it (a
ledger row read), for ``agent.sigma`` (with the channel's bias beside it) and
``agent.p_row_read`` (:mod:`experiments.calibrate.estimates`).

The snapshots are cut from disjoint stretches of the shipped trajectories (no
message in two of them), and each scores one block, so the rows of a condition are
independent draws; the questions and transcripts are VISTA's perception probe's
(:mod:`experiments.vista.perception`).
"""

from __future__ import annotations

import math

import numpy as np

def disjoint_snapshots(cap: int, n: int, seed: int) -> list:
    """``n`` dashboard snapshots (:class:`experiments.vista.perception.Snapshot`) of
    about ``cap`` tokens, cut from consecutive stretches of the shipped trajectories
    so that no two share a message: each file is read from a seeded start, a
    snapshot taken, and the next begins after its last message (the files in turn).
    Fewer than ``n`` when the trajectories run out."""
    from experiments.vista import perception
    from sim.tasks.trajectory_tasks import trajectory_files
    from sim.workspace import load_trajectory

    rng = np.random.default_rng([seed, 21, 6])
    files = trajectory_files()
    msgs = {f.stem: [x for x in load_trajectory(f) if x.get("role") != "system"]
            for f in files}
    pos = {f.stem: int(rng.integers(0, max(1, len(msgs[f.stem]) // 4))) for f in files}
    out, live = [], [f.stem for f in files]
    while len(out) < n and live:
        for stem in list(live):
            m, i, snap = msgs[stem], pos[stem], None
            while snap is None and i < len(m) - 3:
                if m[i].get("role") != "tool":   # a snapshot starts at a turn
                    snap = perception.make_snapshot(f"{stem}@{i}", m[i: i + 60], cap)
                i += snap is None   # a message too large to fit: start after it
            if snap is None:
                live.remove(stem)
                continue
            pos[stem] = i + len(snap.blocks)
            out.append(snap)
            if len(out) == n:
                break
    return out


def probe_dashboard(ask, snaps: list, seed: int) -> list[dict]:
    """One block of each snapshot (the sampled block of sufficient size), its size
    asked without the ledger (``-dash``: the content channel) and then with it
    (``+dash``, reusing the transcript's prefix); ``ask(messages, schema) -> dict |
    None``. One row per snapshot and condition: ``truth`` (tokens, cl100k),
    ``estimate``, ``log_ratio`` (``ln(estimate / truth)``, None unanswered),
    ``rel_error``, ``outcome`` answered / parse_failure."""
    from experiments.vista import perception

    rows = []
    for k, snap in enumerate(snaps):
        q = next(q for q in perception.questions(snap, np.random.default_rng([seed, 21, 7, k]),
                                      n_blocks=1, n_pairs=0) if q.quantity == "block")
        [(bid, truth)] = q.truth.items()
        for cond, dash in (("-dash", False), ("+dash", True)):
            answer = ask(perception.messages(snap, q, dash), q.schema)
            est = None if answer is None else answer.get(bid)
            ok = isinstance(est, (int, float)) and not isinstance(est, bool) and est > 0
            rows.append({"probe": "dashboard", "case": snap.name, "condition": cond,
                         "key": bid, "truth": truth, "estimate": est if ok else None,
                         "log_ratio": math.log(est / truth) if ok else None,
                         "rel_error": abs(est - truth) / truth if ok else math.inf,
                         "outcome": "answered" if ok else "parse_failure"})
    return rows
