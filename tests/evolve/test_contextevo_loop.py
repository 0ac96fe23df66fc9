"""The ContextEvo loop: no held-out task id reaches stages 1-3 or candidate selection
(instrumented), the true causes never influence the loop, iteration 2 never lowers the
held-in score, bad input is one clear line, and the experiment writes its files."""

import json
import subprocess
import sys

import pytest

import sim.evolve.contextevo.loop as loop
from sim.evolve.contextevo.backends import SyntheticBackend
from sim.evolve.contextevo.compile import spec_of
from sim.evolve.contextevo.loop import EvolveConfig, Runner, evolve, loca_taskset
from sim.evolve.contextevo.trace import Truth


@pytest.fixture(scope="module")
def taskset():
    # 24 tasks: 10 held in, 14 held out; budget under the growth so react fails (on
    # the 20-task set of 10 families the held-in tie kept react, so no held-out gain)
    return loca_taskset(40_000, 20_000, families=12, seeds=2)


def _strings(obj, out):
    """Every string inside ``obj`` (dataclasses, containers, views, actions)."""
    if isinstance(obj, (Runner, loop.TaskSet)):
        return out  # the harness that runs episodes, not a stage input
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            _strings(v, out)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for k, v in vars(obj).items():
            if k != "agent":  # the replayed agent holds its own task only
                _strings(v, out)
    elif hasattr(obj, "__dataclass_fields__"):
        for k in obj.__dataclass_fields__:
            _strings(getattr(obj, k), out)
    return out


def test_no_held_out_task_reaches_stages_or_selection(taskset, monkeypatch):
    from sim.evolve.split import split_tasks

    held_out = set(split_tasks(taskset.names).held_out)
    seen: dict[str, list] = {}

    def spy(name, fn):
        def wrapped(*args, **kwargs):
            seen.setdefault(name, []).append(_strings((args, kwargs), []))
            return fn(*args, **kwargs)
        return wrapped

    for name in ("make_cards", "review", "judge", "select_rows", "select_candidate"):
        monkeypatch.setattr(loop, name, spy(name, getattr(loop, name)))
    backend = SyntheticBackend(0)
    monkeypatch.setattr(backend, "propose", spy("propose", backend.propose))
    monkeypatch.setattr(backend, "annotate_page", spy("annotate", backend.annotate_page))
    res = evolve(spec_of("react"), taskset, backend, EvolveConfig(candidates=2))
    assert set(res.held_out) == held_out and len(held_out) == 14
    for stage in ("make_cards", "review", "judge", "select_rows", "select_candidate",
                  "propose", "annotate"):
        assert seen.get(stage), f"stage {stage} was never called"
        for strings in seen[stage]:
            leaked = {t for t in held_out for s in strings if t in s}
            assert not leaked, f"{stage} received held-out task(s) {sorted(leaked)}"
    # the spy is not blind: it finds a held-out id in a held-out trajectory and card
    one = sorted(held_out)[0]
    _, traj, _ = loop.run_traced(taskset.tasks[one], spec_of("react"), budget=20_000,
                                 seed=1)
    assert any(one in s for s in _strings(([traj], loop.make_cards([traj])), []))
    # the frozen evaluation did run the held-out tasks
    assert set(res.solved["iter2"]) >= held_out
    # iteration 2 is never worse than iteration 1 on held-in (selection keeps ties)
    hi = list(res.held_in)
    s1 = sum(res.solved["iter1"][t] for t in hi)
    s2 = sum(res.solved["iter2"][t] for t in hi)
    assert s2 >= s1
    # and on these tasks the loop found an improvement on held-out
    ho = list(res.held_out)
    assert sum(res.solved["iter2"][t] for t in ho) > sum(res.solved["start"][t] for t in ho)


def test_true_causes_never_influence_the_loop(taskset, monkeypatch):
    base = evolve(spec_of("react"), taskset, SyntheticBackend(0), EvolveConfig(candidates=2))
    real = loop.run_traced

    def scrambled(*a, **k):
        row, traj, truth = real(*a, **k)
        return row, traj, Truth(truth.task_id, "budget_overflow")

    monkeypatch.setattr(loop, "run_traced", scrambled)
    other = evolve(spec_of("react"), taskset, SyntheticBackend(0), EvolveConfig(candidates=2))
    assert other.specs == base.specs and other.solved == base.solved
    strip = [{k: v for k, v in e.items() if k not in ("attribution", "annotation")}
             for e in other.log]
    assert strip == [{k: v for k, v in e.items() if k not in ("attribution", "annotation")}
                     for e in base.log]
    # only the scores read the truths
    assert other.log[0]["attribution"] != base.log[0]["attribution"]


def test_bad_split_and_empty_set(taskset):
    with pytest.raises(ValueError, match="empty"):
        loca_taskset(40_000, 20_000, families=0, seeds=1)
    with pytest.raises(ValueError, match="0.99"):
        evolve(spec_of("react"), taskset, SyntheticBackend(0),
               EvolveConfig(held_in_fraction=0.99))
    with pytest.raises(ValueError, match="'teleport'"):
        EvolveConfig(exposed=("teleport",))


def test_runner_caches_by_spec_not_name(taskset):
    r = Runner(taskset)
    a = spec_of("react")
    r.run(a, taskset.names[:3])
    n = r.episodes
    rows, _ = r.run(type(a)(**{**a.__dict__, "name": "renamed"}), taskset.names[:3])
    assert r.episodes == n and {x["program"] for x in rows} == {"renamed"}


def _cli(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "experiments.cli", "run", "contextevo",
                           "--out", str(tmp_path), *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("args, needle", [
    (["--start", "nope"], "'nope'"),
    (["--spec", "{missing}"], "missing.json"),
    (["--spec", "{bad}"], "bad.json"),
    (["--held-in-fraction", "0.999"], "0.999"),
    (["--start", "react", "--spec", "{bad}"], "--spec"),
    (["--ef-seeds", "1"], "--ef-seeds"),
])
def test_cli_bad_input_is_one_line(args, needle, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    args = [a.format(missing=tmp_path / "missing.json", bad=bad) for a in args]
    p = _cli(*args, tmp_path=tmp_path)
    assert p.returncode in (1, 2)   # 2: a usage error or an input that cannot be run
    if len(args) == 2 and args[0] in ("--held-in-fraction", "--spec", "--start"):
        assert p.returncode == 2, (args, p.returncode)
    last = p.stderr.strip().splitlines()[-1]   # a usage error prints the usage first
    assert last.startswith("ctxsim run contextevo: error:") and needle in last
    assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_quick_experiment_writes_its_files(tmp_path):
    p = _cli("--quick", "--start", "react", "--ef-seeds", "2", "--iterations", "1",
             tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    for f in ("contextevo.csv", "contextevo.png", "contextevo.json", "contextevo_spec.json",
              "contextevo_seeds.csv"):
        assert (tmp_path / f).exists()
    import csv
    rows = list(csv.DictReader(open(tmp_path / "contextevo.csv")))
    ef = {(r["setting"], r["baseline"]) for r in rows if r["variant"] == "evidence_free"}
    assert {b for _, b in ef} == {"moves", "steps", "best_of_n", "single_move"}
    assert all(0 <= float(r["paper_accuracy"]) <= 1 for r in rows if r["paper_accuracy"])
    seeds = list(csv.DictReader(open(tmp_path / "contextevo_seeds.csv")))
    assert {r["seed"] for r in seeds} == {"0", "1"}
    specs = json.loads((tmp_path / "contextevo_spec.json").read_text())
    assert set(specs) == {"loca128k/react", "browse16k/react"}
    side = json.loads((tmp_path / "contextevo.json").read_text())
    assert side["logs"]["loca128k/react"][0]["attribution"]["all"]["true"] >= 0
    # the default split holds out whole families (issue 32)
    for rec in side["config"]["split"]["by_setting"].values():
        assert rec["held_out_families"] and rec["families_on_both_sides"] == []
    comp = side["evidence_free_comparison"]["by_setting"]
    assert set(comp) == {"loca128k", "browse16k"}
    for per in comp.values():
        for c in per.values():
            assert c["n_seeds"] == 2 and c["lo"] <= c["mean"] <= c["hi"]
    assert "attribution_mislabel0" in side["attribution"]["loca128k/react"]


def test_llm_backend_path_runs_within_its_call_budget():
    """The --backend llm path end to end with a stand-in client (no server): the loop
    completes, the budget caps the calls, and the ledger reports it."""
    from experiments.contextevo.loops import run_all
    from experiments.settings.contextevo import ContextEvoSettings

    class Client:
        calls = 0

        def ask_json(self, messages, schema, check=None, max_tokens=None):
            Client.calls += 1
            assert sum(len(m["content"]) for m in messages) < (4096 - 2424) * 3 + 4_000
            return {k: (v["enum"][0] if "enum" in v else "noted")
                    for k, v in schema["properties"].items()}

    settings = ContextEvoSettings.build({**ContextEvoSettings.table("llm_quick"),
                                         "backend": "llm", "candidates": 2,
                                         "llm_calls": 40})
    raw = run_all(settings, Client(), progress=lambda s: None)
    assert [s.name for s in raw["starts"]] == ["react"] and not raw["ablations"]
    (ledger,) = raw["ledgers"]
    assert ledger["backend"] == "llm" and ledger["model_calls"] == Client.calls <= 40
    assert set(raw["results"][0][2].solved) == {"start", "iter1", "iter2"}
