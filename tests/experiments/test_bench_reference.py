"""The bare-bookkeeping reference of bench_episodes (issue 35): its bookkeeping on a
task small enough to keep every value visible, its archive and offload rules at
their thresholds, a bad budget, and the benchmark's last line."""

from __future__ import annotations

import pytest

from experiments.bench import bench_episodes
from experiments.bench.reference_core import play
from experiments.settings.vista import PressureSettings
from experiments.sweep import build_task, loca_specs
from sim.token_cache import KnownCountTokenizer
from sim.workspace.tokenizer import get_tokenizer


def _task(level=8000):
    spec = loca_specs(PressureSettings(levels=(level,), programs=("react",), families=1,
                                       seeds=1, dashboard_tokens=None))[0]
    task = build_task(spec)
    tok = KnownCountTokenizer(get_tokenizer("cl100k_base"),
                              {s.content: s.tokens for s in task.steps if s.content})
    return task, tok, spec.setup.budget


def test_a_roomy_budget_keeps_everything_and_solves():
    task, tok, budget = _task()
    r = play(task, 10**7, tok.count)
    assert (r.solved, r.offloaded, r.archived) == (True, 0, 0)
    # one request per step up to the answer
    assert r.requests == next(i for i, s in enumerate(task.steps) if s.kind == "final") + 1
    assert r.input_tokens > sum(s.tokens for s in task.steps[:-1])  # summed over requests


def test_a_tight_budget_offloads_and_archives_and_loses_values():
    """Below the task's size the 80% rule archives the oldest results (no recovery:
    a needed value archived is lost) and a result that does not fit is offloaded."""
    task, tok, _ = _task(32000)
    need = sum(s.tokens for s in task.steps)
    r = play(task, need // 4, tok.count)
    assert r.archived > 0
    assert not r.solved
    tiny = play(task, max(s.tokens for s in task.steps) // 2, tok.count)
    assert tiny.offloaded > 0


@pytest.mark.parametrize("budget", [0, -5, None, 2.5])
def test_a_bad_budget_is_refused(budget):
    task, tok, _ = _task()
    with pytest.raises(ValueError, match="budget must be an int >= 1"):
        play(task, budget, tok.count)


def test_the_benchmark_ends_with_the_core_reference_ratio(capsys):
    assert bench_episodes.main(["--levels", "8000", "--families", "1",
                                "--programs", "react", "auto_archive"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert "identical rows both ways" in out[0]
    assert any(line.startswith("solved of 1 tasks: reference 1;") for line in out)
    last = out[-1]
    assert last.startswith("core/reference ") and last.endswith("x")
    assert float(last.split()[1][:-1]) > 0


def test_the_breakdown_lists_every_part_before_the_ratio(capsys):
    from experiments.bench.breakdown import OTHER, PARTS

    assert bench_episodes.main(["--levels", "8000", "--families", "1",
                                "--programs", "react", "--breakdown"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    head = next(i for i, line in enumerate(out) if line.startswith("where the fast"))
    rows = out[head + 1:-1]
    assert [r.split("%")[0].rsplit(None, 1)[0].strip() for r in rows] == [*PARTS, OTHER]
    assert sum(float(r.split("%")[0].split()[-1]) for r in rows) == pytest.approx(100, abs=0.6)
    assert out[-1].startswith("core/reference ")


def test_repeated_passes_sum_the_time_and_count_one_pass_solved(capsys):
    assert bench_episodes.main(["--levels", "8000", "--families", "1",
                                "--programs", "react", "--repeat", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("2 episodes (1 jobs x 1 programs x 2 passes")
    assert any(line.startswith("solved of 1 tasks: reference 1;") for line in out)


def test_a_repeat_below_one_is_refused(capsys):
    with pytest.raises(SystemExit):
        bench_episodes.main(["--repeat", "0"])
    assert "argument --repeat: expected an integer >= 1, got '0'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--families", "0"], "argument --families: expected an integer in 1..15, got '0'"),
    (["--seeds", "0"], "argument --seeds: expected an integer >= 1, got '0'"),
    (["--levels", "999"], "expected a growth level in tokens >= 1,000, got '999'"),
    (["--programs", "nosuch"], "argument --programs: unknown program 'nosuch'"),
    (["--programs", "vista", "vista"], "'vista' is given twice"),
])
def test_bad_options_are_usage_errors_naming_the_value(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_episodes.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
