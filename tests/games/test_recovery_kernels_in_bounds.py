"""sim/games/recovery_kernels.py indexes no array out of bounds (issue 38: a cosmic-ray
kernel mutant, ``(B + 62) // 64`` for ``(B + 63) // 64``, that no test saw).

numba compiles without bounds checks, so a scratch stream one word short (where
B = 1 mod 64 and an encoder writes bit B - 1) reads and writes the word past its end
and, reading back what it wrote, still plays the trial "right". The chunk kernel is
compiled here with numba's bounds checks (``NUMBA_BOUNDSCHECK=1``, an empty cache) in
a subprocess and plays each strategy at budgets whose last bit is written: B = 65 and
129 (one bit into a new word) and 64 (a word exactly full). Any index outside an
array raises IndexError there where numba checks it, and every strategy's success
rate must match its closed form (a stream a word short breaks the trials it touches,
checked or not). About 10 CPU seconds, the compile's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (strategy, N, k, B): the encoding's last bit is bit B - 1 (m k = B for keep_blocks,
#: N p = B for keep_prefix, N handle bits + k = B for recoverable)
GAMES = [("keep_blocks", 16, 5, 65), ("keep_blocks", 44, 3, 129),
         ("keep_blocks", 16, 8, 64), ("keep_prefix", 5, 16, 65),
         ("keep_prefix", 3, 50, 129), ("recoverable", 4, 57, 65),
         ("recoverable", 4, 56, 64)]

PLAY = """
import math
from sim.games.recovery import simulate
for strategy, N, k, B in {games!r}:
    r = simulate(strategy, N, k, B, trials=400, seed=1)
    # the success rate is the strategy's closed form (an out-of-bounds word is not
    # always caught inside the parallel kernel, but it breaks the trials it touches)
    tol = 5 * math.sqrt(r.exact * (1 - r.exact) / r.trials) + 1 / r.trials
    assert abs(r.success - r.exact) <= tol, (strategy, N, k, B, r.success, r.exact)
print("in bounds")
"""


def test_every_strategy_stays_inside_its_arrays_at_budgets_that_fill_a_word(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", PLAY.format(games=GAMES)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "in bounds"
