"""Crash soak (DESIGN.md invariant 6): a child process archives, deletes, registers
and recovers in a loop on a durable workspace and is killed with SIGKILL at a random
moment; the parent reopens the workspace and checks every byte of every live block.
Some tool results are large enough for the wire-payload guard to offload them, and
group archives bundle those placeholders too (VISTA §2.4).

Block contents are a pure function of (seed, block number), so the check knows the
exact bytes each block must hold without trusting the workspace.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .blocks import BlockStatus, BlockType, GroupStatus
from .messages import decode_call_message
from .errors import WorkspaceError
from .presence import workspace_marks
from .workspace import Workspace


def expected_bytes(seed: int, number: int) -> bytes:
    """The content the soak gives block ``B<number>`` (some non-UTF-8, some NUL)."""
    h = hashlib.sha256(f"{seed}:{number}".encode()).digest()
    return (f"B{number} ".encode() + h * (1 + h[0] % 24) +
            (b"\xff\xfe\x00" if number % 5 == 0 else b""))


def expected_text(seed: int, number: int) -> str:
    """The text of the tool-call block ``B<number>`` (calls carry UTF-8 text only)."""
    return f"B{number} call " + hashlib.sha256(f"{seed}:{number}".encode()).hexdigest()


#: tool results above this many tokens (chars) are offloaded on entry: about 3 in 4
GUARD = 200


def _open(directory: Path) -> Workspace:
    try:
        return Workspace.open(directory, tokenizer="char", guard_threshold=GUARD)
    except WorkspaceError:
        return Workspace(directory, tokenizer="char", budget=None, guard_threshold=GUARD)


def ack_path(directory: str | Path) -> Path:
    """The acknowledgement log of a soak workspace (beside it): ``R <id>`` once a
    register returned, ``D <id>`` before a delete is asked."""
    return Path(f"{directory}.acks")


def child(directory: str, seed: int, steps: int = 10_000) -> None:
    """The victim: reopen ``directory`` and mutate it until killed (or ``steps``),
    logging each acknowledgement (:func:`ack_path`; unbuffered ``os.write``, so a
    line is in the log once the call that made it returns)."""
    ws = _open(Path(directory))
    log = os.open(ack_path(directory), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def ack(kind: str, bid: str) -> None:
        os.write(log, f"{kind} {bid}\n".encode())

    rng = random.Random(seed * 7919 + os.getpid())
    for _ in range(steps):
        op = rng.random()
        live = [b.id for b in ws.blocks.values()
                if b.status is BlockStatus.VISIBLE and b.recovered_from is None]
        if op < 0.4 or len(live) < 3:
            n = ws.state.next_block
            if op < 0.12:  # a call and its result (ids never reused: c<n> is new)
                ack("R", ws.register({"role": "assistant",
                                      "content": expected_text(seed, n),
                                      "tool_calls": [{"id": f"c{n}", "type": "function",
                                                      "function": {"name": "cat",
                                                                   "arguments": "{}"}}]
                                      }).id)
                ack("R", ws.register({"role": "tool", "tool_call_id": f"c{n}",
                                      "content": expected_bytes(seed, n + 1)}).id)
            else:
                ack("R", ws.register({"role": "user",
                                      "content": expected_bytes(seed, n)}).id)
        elif op < 0.7:
            k = rng.randint(1, 3)
            # offloaded placeholders may only be bundled with other items
            pool = live if k == 1 else live + [
                b.id for b in ws.blocks.values()
                if b.status is BlockStatus.OFFLOADED and b.id not in ws.group_of]
            spec = ",".join(sorted(rng.sample(pool, min(k, len(pool))),
                                   key=lambda s: int(s[1:])))
            ws.archive(spec, "soak")
        elif op < 0.85:
            victim = rng.choice(live)
            ack("D", victim)
            ws.delete(victim, "soak")
        else:
            archived = [b.id for b in ws.blocks.values()
                        if b.status in (BlockStatus.ARCHIVED, BlockStatus.OFFLOADED)]
            if archived:
                ws.recover(rng.choice(archived))


def verify(directory: str | Path, seed: int) -> int:
    """Reopen and check every live block's bytes against :func:`expected_bytes` (and
    its sha256 handle), every recovered block against its source, every group's
    transcript. Returns the number of live blocks; raises AssertionError or a
    :class:`WorkspaceError` on any loss."""
    ws = Workspace.open(directory, tokenizer="char")
    try:
        _check_acks(ws, directory)
        live = 0
        for b in ws.blocks.values():
            if b.status is BlockStatus.DELETED:
                continue
            live += 1
            data = ws.store.read(b.handle)
            if b.recovered_from is None:
                if b.type is BlockType.TOOL_CALL:
                    msg = decode_call_message(data)
                    assert msg["content"] == expected_text(seed, b.number), b.id
                    assert [c["id"] for c in msg["tool_calls"]] == [f"c{b.number}"], b.id
                else:
                    assert data == expected_bytes(seed, b.number), f"{b.id} bytes differ"
            elif b.recovered_from[0] == "B":
                source = ws.blocks[b.recovered_from]
                assert data == ws.store.read(source.handle), f"{b.id} differs from source"
        for g in ws.groups.values():
            if g.status is not GroupStatus.DELETED:
                assert ws.read_payload(g.handle) == ws.transcript(g.members), g.id
        return live
    finally:
        ws.close()


def _check_acks(ws: Workspace, directory: str | Path) -> tuple[int, int]:
    """(acknowledged registers, lost ones) of the soak's log: an acknowledged id
    must exist and be live unless a delete of it was asked. Raises AssertionError
    naming the first loss."""
    try:
        lines = ack_path(directory).read_text().splitlines()
    except FileNotFoundError:
        return 0, 0
    acked = [ln[2:] for ln in lines if ln.startswith("R ")]
    asked = {ln[2:] for ln in lines if ln.startswith("D ")}
    lost = [b for b in acked if b not in ws.blocks or (
        ws.blocks[b].status is BlockStatus.DELETED and b not in asked)]
    assert not lost, f"{directory}: acknowledged {lost[:5]} lost"
    return len(acked), len(lost)


@dataclass
class SoakResult:
    """Kills made, workspaces used, live blocks seen at the last check, seconds,
    acknowledged registers (over every workspace's log) and how many were lost or
    served wrong bytes (a loss raises; these count what the checks passed)."""

    kills: int
    workspaces: int
    live_blocks: int
    seconds: float
    acknowledged: int = 0
    lost: int = 0
    wrong: int = 0


def soak(root: str | Path, kills: int, seed: int = 0, max_delay: float = 0.03,
         per_workspace: int = 50) -> SoakResult:
    """Run ``kills`` kill/reopen/verify rounds under ``root`` (a fresh workspace every
    ``per_workspace`` kills, so journals stay short). Uses fork where available."""
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    rng = random.Random(seed)
    start = time.perf_counter()
    live = 0
    directory = Path(root)
    for k in range(kills):
        directory = Path(root) / f"ws{k // per_workspace}"
        proc = ctx.Process(target=child, args=(str(directory), seed))
        proc.start()
        time.sleep(rng.uniform(0.0, max_delay))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        if proc.exitcode != -signal.SIGKILL:
            # the victim died of its own error before the kill: a bug, not a crash test
            raise AssertionError(f"soak child exited with {proc.exitcode} before it was "
                                 f"killed (round {k}, {directory})")
        if workspace_marks(directory):  # else killed before its journal was made
            # a journal is created whole with its init line: whatever the moment of
            # the kill, a workspace that exists opens
            live = verify(directory, seed)
    acknowledged = 0
    for k in range(0, kills, per_workspace):
        d = Path(root) / f"ws{k // per_workspace}"
        if workspace_marks(d):
            ws = Workspace.open(d, tokenizer="char", read_only=True)
            acknowledged += _check_acks(ws, d)[0]
    return SoakResult(kills, kills // per_workspace + 1, live,
                      time.perf_counter() - start, acknowledged=acknowledged)
