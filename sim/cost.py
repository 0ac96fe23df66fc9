"""The cost model: a per-request token ledger with its cache-reusable prefix, priced
in dollars (THEORY.md §4; VISTA Table 2).

An edit at prompt position p invalidates the cached prefix from p, so each request's
cached tokens are the prefix of segments unchanged since the previous request
(:func:`record_request`). :func:`cost_usd` prices input, cached input and output.
A leaf module: agents, policies and the harness all import it, it imports none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import itemgetter, ne

from sim.tasks.tokens import count_tokens

#: THEORY.md §4 / VISTA Table 2 prices, dollars per million tokens
PRICES = {"uncached": 0.50, "cached": 0.05, "output": 3.00}
#: output tokens per model call besides its visible text (reasoning, call framing)
THINKING_TOKENS = 120

#: an action's visible text, counted once: the programs of a sweep replay one task
#: with one agent seed, so the same call texts come back request after request
_output_tokens = lru_cache(maxsize=1 << 14)(count_tokens)


@dataclass
class EpisodeResult:
    """Outcome and ledger of one episode (tokens; dollars in ``cost``).

    Archive events are counted per call and per block (VISTA Fig. 8b counts tool
    calls; a batch call archives several blocks): ``agent_archives`` /
    ``agent_archived_blocks`` for the agent's archive calls and the items they
    archived, ``program_edits`` / ``program_edited_blocks`` for a program's own.
    ``recoveries`` counts archived content brought back (Fig. 8b's retrieve events);
    ``recovery_targets`` the distinct values the agent looked for by recovering (one
    per needed value per task step) and ``failed_reads`` the recoveries that did not
    show the value looked for (the search cost of not knowing where it went).
    ``offload_reads`` counts results the wire-payload guard offloaded on entry that
    the agent then read (a different mechanism, so counted apart)."""

    task_id: str
    program: str
    solved: bool
    requests: int = 0
    active_tokens: list[int] = field(default_factory=list)
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    agent_archives: int = 0
    agent_archived_blocks: int = 0
    program_edits: int = 0
    program_edited_blocks: int = 0
    deletes: int = 0
    recoveries: int = 0
    recovery_targets: int = 0
    failed_reads: int = 0
    offload_reads: int = 0
    offloaded: int = 0
    dashboard_tokens: int = 0

    @property
    def mean_active(self) -> float:
        """Mean request size (tokens)."""
        # ints summed exactly, one correctly rounded division: np.mean's value (its
        # float64 sum is exact below 2**53 tokens) without an array per episode
        a = self.active_tokens
        return sum(a) / len(a) if a else 0.0

    @property
    def mean_dashboard(self) -> float:
        """Mean rendered dashboard size per request (tokens; 0 without one)."""
        return self.dashboard_tokens / self.requests if self.requests else 0.0

    @property
    def total_tokens(self) -> int:
        """All input plus output tokens over the episode."""
        return self.input_tokens + self.output_tokens

    @property
    def cost(self) -> float:
        """Cache-aware dollar cost (:data:`PRICES`)."""
        return cost_usd(self.input_tokens, self.cached_tokens, self.output_tokens)


def cost_usd(input_tokens: int, cached_tokens: int, output_tokens: int,
             prices: dict[str, float] = PRICES) -> float:
    """Dollars: uncached input, cached input and output at ``prices`` per 1M tokens.

    Raises:
        ValueError: if ``cached_tokens`` exceeds ``input_tokens``.
    """
    if cached_tokens > input_tokens:
        raise ValueError(f"cached {cached_tokens} > input {input_tokens}")
    return ((input_tokens - cached_tokens) * prices["uncached"]
            + cached_tokens * prices["cached"] + output_tokens * prices["output"]) / 1e6



def record_request(result: EpisodeResult, req, prev: list, text: str) -> list:
    """Add one request to the ledger; return its segment keys for the next one."""
    keys = [("overhead", req.overhead)] + list(req.item_tokens.items())
    # the segments before the first that differs from the previous request's, found
    # and summed in C (map over the pairs), not in a Python loop per item
    same = min(len(prev), len(keys))
    if prev[:same] != keys[:same]:
        same = list(map(ne, prev, keys)).index(True)
    sizes = list(map(itemgetter(1), keys[:same]))
    if all(map(isinstance, sizes, repeat(int))):
        cached = sum(sizes)
    else:
        cached = sum(n for n in sizes if isinstance(n, int))
    result.requests += 1
    result.active_tokens.append(req.total)
    result.dashboard_tokens += req.dashboard
    result.input_tokens += req.total
    result.cached_tokens += min(cached, req.total)
    result.output_tokens += THINKING_TOKENS + (_output_tokens(text) if text else 0)
    return keys

