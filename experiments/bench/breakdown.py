"""Where an episode's CPU time goes: exclusive time per part of the episode core
(issue 35; ``python -m experiments.bench.bench_episodes --breakdown`` prints it).

:func:`timed` wraps named callables for the duration of a ``with`` block, each
call charged to its own part *exclusive* of the wrapped calls it makes (a view that
assembles the request charges the assembly to ``assembly``, the rest to ``view``);
what no wrapped part covers is charged to ``other``. The timed pass differs from
the plain one: the wrappers cost time of their own, and it plays the fast route's
jobs back to back where the plain pass alternates them with the other routes (so
it may run slower or faster, by a fifth either way as measured). The parts are
therefore reported as shares of the timed pass's total, and
:func:`experiments.bench.bench_episodes.main` scales them to the plain pass's
milliseconds per episode.

The parts (:data:`PARTS`) follow the layers the issue names: the workspace's
assembly (the request, dashboard included), registration (the what-if guard
included) and its other operations; the program's view of the workspace (entries
and ledger rows for the agent); the synthetic agent's and summarizer's decisions;
the cost ledger; task generation (once per job, shared with the reference); and
the setup of each episode's scratch workspace.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections import Counter
from typing import Iterator

#: part -> the "module:qualified.name" callables charged to it
PARTS: dict[str, tuple[str, ...]] = {
    "assembly": ("sim.workspace.workspace:Workspace.assemble",),
    "registration": ("sim.workspace.workspace:Workspace.register",),
    "other workspace operations": tuple(
        f"sim.workspace.workspace:Workspace.{op}"
        for op in ("archive", "delete", "recover", "expand", "pin", "unpin")),
    "view": ("sim.program_context:ProgramContext.view",),
    "agent": ("sim.agents.synthetic:SyntheticAgent.act",
              "sim.agents.synthetic:SyntheticAgent.reset"),
    "summarizer": ("sim.policies.summarize:SyntheticSummarizer.__call__",),
    "cost ledger": ("sim.harness:record_request",),
    "task generation": ("experiments.sweep:build_task",),
    "episode setup": ("sim.workspace.memory:scratch_workspace",),
}

OTHER = "other (programs, harness)"
_INHERITED = object()  # a patched attribute the class did not define itself


def _resolve(target: str):
    module, _, qualname = target.partition(":")
    owner = importlib.import_module(module)
    *path, name = qualname.split(".")
    for attr in path:
        owner = getattr(owner, attr)
    return owner, name


@contextlib.contextmanager
def timed(parts: dict[str, tuple[str, ...]] = PARTS,
          clock=time.process_time) -> Iterator[Counter]:
    """Within the block, charge each call of a ``parts`` callable to its part,
    exclusive of nested wrapped calls; yields the Counter of seconds per part
    (``clock``: CPU seconds of the process by default). The callables are restored
    on exit, whatever happens. Raises ``AttributeError``/``ImportError`` for a
    target that does not exist (nothing is left patched)."""
    seconds: Counter = Counter()
    stack: list[float] = []  # per open wrapped call: seconds its wrapped callees took
    patched = []

    def wrap(part: str, fn):
        def wrapper(*args, **kwargs):
            stack.append(0.0)
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - t0
                inner = stack.pop()
                seconds[part] += spent - inner
                if stack:
                    stack[-1] += spent
        return wrapper

    try:
        for part, targets in parts.items():
            for target in targets:
                owner, name = _resolve(target)
                fn = getattr(owner, name)  # AttributeError names a missing one
                # a class's own attribute is put back as it was (a staticmethod
                # stays one); an inherited one is removed again
                patched.append((owner, name, vars(owner).get(name, _INHERITED)))
                setattr(owner, name, wrap(part, fn))
        yield seconds
    finally:
        for owner, name, original in reversed(patched):
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


def shares(seconds: Counter, total: float) -> dict[str, float]:
    """Each part's share of ``total`` CPU seconds (the instrumented pass), in
    :data:`PARTS` order, with the uncovered rest as :data:`OTHER`. Raises
    ``ValueError`` if ``total`` is not positive or less than the parts' sum."""
    covered = sum(seconds.values())
    if not total > 0 or covered > total * (1 + 1e-9):
        raise ValueError(f"total {total!r} s must be positive and at least the parts' "
                         f"sum {covered!r} s")
    out = {part: seconds[part] / total for part in PARTS}
    out[OTHER] = max(0.0, 1 - covered / total)
    return out
