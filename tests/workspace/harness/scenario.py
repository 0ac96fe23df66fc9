"""A workspace scenario whose every acknowledgement is recorded, and the check that
a (crashed, damaged, reopened) directory still serves every acknowledged byte
under its id: the oracle the power-loss, fault-injection and soak harnesses share."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from sim.workspace import BlockStatus, JournalError, Workspace
from sim.workspace.presence import workspace_marks
from sim.workspace.repair import repair


def content(seed: int, i: int) -> bytes:
    """Block ``i``'s bytes: some packed (< 4 KiB), some a file of their own."""
    h = hashlib.sha256(f"{seed}:{i}".encode()).digest()
    return f"b{i} ".encode() + h * (1 + h[0] % 8) + (b"z" * 4200 if h[1] % 3 == 0
                                                       else b"")


@dataclass
class Acks:
    """What the scenario was told took effect: id -> (bytes, mark), deletes -> mark;
    ``mark`` is a caller-given counter at the moment (e.g. cuts made so far)."""

    registered: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    started_delete: set[str] = field(default_factory=set)


def run(ws: Workspace, steps: int, seed: int, acks: Acks, mark=lambda: 0,
        errors: tuple = ()) -> None:
    """``steps`` random registers, archives and deletes on ``ws``; every call that
    returns is recorded in ``acks`` (with ``mark()``); a call raising one of
    ``errors`` is recorded as not acknowledged (a delete: possibly applied)."""
    rng = random.Random(seed)
    for step in range(steps):
        live = [b.id for b in ws.blocks.values() if b.status is BlockStatus.VISIBLE]
        r = rng.random()
        try:
            if r < 0.7 or len(live) < 4:
                data = content(seed, step)
                b = ws.register({"role": "user", "content": data})
                acks.registered[b.id] = (data, mark())
            elif r < 0.85:
                a, b = sorted(rng.sample(live, 2), key=lambda s: int(s[1:]))
                ws.archive(f"{a},{b}", "grp")
            else:
                victim = rng.choice(live)
                acks.started_delete.add(victim)
                ws.delete(victim, "gone")
                acks.deleted[victim] = mark()
        except errors:
            continue


def verify(directory: Path, acks: Acks, upto: int | None = None) -> int:
    """Open ``directory`` (``repair`` first if the open refuses) and check that
    every register acknowledged with mark <= ``upto`` (all if None) serves its
    bytes under its id, or is deleted if its delete was started. Returns the number
    of acknowledged registers checked; raises AssertionError on a loss or a wrong
    byte."""
    want = {i: d for i, (d, m) in acks.registered.items() if upto is None or m <= upto}
    if not want:
        return 0
    assert workspace_marks(directory), f"{directory}: the workspace is gone"
    try:
        ws = Workspace.open(directory, sync=False)
    except JournalError:
        repair(directory)
        ws = Workspace.open(directory, sync=False)
    try:
        for bid, data in want.items():
            b = ws.blocks.get(bid)
            assert b is not None, f"{directory}: acknowledged {bid} is lost"
            if b.status is BlockStatus.DELETED:
                assert bid in acks.started_delete, f"{bid} deleted, never asked"
                continue
            dm = acks.deleted.get(bid)
            assert dm is None or (upto is not None and dm > upto), \
                f"{bid}: its acknowledged delete was lost"
            assert bid not in ws.corrupt, \
                f"{directory}: acknowledged {bid}'s payload is lost: {ws.corrupt[bid]}"
            assert ws.store.read(b.handle) == data, f"{bid} serves other bytes"
        return len(want)
    finally:
        ws.close()
