"""ContextEvo's and Evo-Harness's settings classes (issue 36): each setting followed
from its declaration to where the run uses it (that every option and TOML key is a
field with no other default is tests/experiments/test_settings.py's, for every
experiment)."""

from __future__ import annotations

import argparse

import pytest


def _parser(module):
    p = argparse.ArgumentParser()
    module.add_arguments(p)
    return p


def _contextevo(argv):
    from experiments.contextevo import experiment as ce
    from experiments.contextevo.setup import settings_of

    return settings_of(_parser(ce).parse_args(argv))


def test_contextevo_settings_reach_the_loop_and_the_task_sets(tmp_path):
    from experiments.contextevo.setup import evolve_config, exposed, tasksets

    s = _contextevo(["--quick"])
    cfg = evolve_config(s)
    # declared defaults, no option given: iterations 2, candidates 3, all surfaces
    assert (cfg.iterations, cfg.candidates, cfg.seed) == (2, 3, 0)
    from sim.evolve.contextevo.spec import SURFACES

    assert exposed(s) == SURFACES
    s = _contextevo(["--quick", "--iterations", "1", "--surfaces", "dashboard",
                     "--seed", "4", "--mislabel", "0.1"])
    cfg = evolve_config(s)
    assert (cfg.iterations, cfg.seed, cfg.exposed) == (1, 4, ("dashboard",))
    assert s.mislabel == 0.1
    path = tmp_path / "c.toml"
    path.write_text("queries = 4\n[quick]\nseeds = 1\n")
    sets = tasksets(_contextevo(["--quick", "--config", str(path)]))
    assert [len(ts.tasks) for ts in sets] == [15 * 1, 4 * 1]
    assert [ts.budget for ts in sets] == [128_000, 16_000]
    llm = _contextevo(["--quick", "--backend", "llm"])
    assert (llm.loca_growth, llm.loca_budget, llm.seeds) == (8_000, 6_000, 1)


def test_contextevo_refuses_contradictory_options_naming_them():
    from experiments.arguments import UsageError

    with pytest.raises(UsageError, match="--ef-seeds must be 0 or at least 2"):
        _contextevo(["--ef-seeds", "1"])
    assert _contextevo(["--ef-seeds", "2"]).ef_seeds == 2
    assert _contextevo(["--ef-seeds", "0"]).ef_seeds == 0
    with pytest.raises(UsageError, match="--spec 'x.json' and --start 'react' both"):
        _contextevo(["--spec", "x.json", "--start", "react"])


def test_evoharness_settings_reach_the_stream(monkeypatch, tmp_path):
    """--b, --batch and a --config seed count go from the class to the StreamConfig
    each arm's stream runs under (run_stream stubbed: only the wiring is checked)."""
    from experiments.evoharness import experiment as eh
    from experiments.evoharness import grid
    from experiments.evoharness.arms import Arm
    from sim.evolve.evoharness.online import StreamResult

    seen = []

    def fake(test, config, parts, train=()):
        seen.append((config, len(test), len(train)))
        return StreamResult(harness=parts.harness)

    monkeypatch.setattr(grid, "run_stream", fake)
    path = tmp_path / "c.toml"
    path.write_text("[quick]\nseeds = 3\n")
    cfg = eh.SETTINGS.from_args(_parser(eh).parse_args(["--quick", "--config", str(path), "--b", "0",
                                            "--batch", "2", "--seed", "1"]))
    assert (cfg.seeds, cfg.b, cfg.batch, cfg.seed, cfg.quick) == (3, 0, 2, 1, True)
    assert cfg.profiles == ("medium",) and cfg.budget == 16_000
    train, test = grid.split_stream(grid.tasks(cfg.families, cfg.seeds, cfg.growth,
                                               cfg.seed))
    grid.run_arm(Arm("online-standard", "medium", "online"), train, test, cfg,
                 cfg.program, rep=1)
    (config, n_test, n_train), = seen
    assert (config.b, config.batch, config.budget, config.seed) == (0, 2, 16_000, 1001)
    assert (n_test, n_train) == (len(test), len(train)) and n_test + n_train == 6 * 3
    # no option given: the declared defaults
    d = eh.SETTINGS.from_args(_parser(eh).parse_args([]))
    assert (d.b, d.batch, d.reps, d.seeds, d.program) == (3, 1, 2, 40,
                                                          "vista_no_dashboard")


def _families(names):
    from sim.tasks.families import family_of

    return {family_of(n) for n in names}


def test_contextevo_default_split_holds_out_whole_families_on_both_task_sets():
    # issue 32: by default no family (LOCA-like family, BrowseComp-like query) has
    # tasks on both sides
    from experiments.contextevo.setup import check_splits, evolve_config, tasksets

    for argv in (["--quick"], []):
        s = _contextevo(argv)
        assert s.held_out_families is None and evolve_config(s).held_out_families is None
        sets = tasksets(s)
        splits = check_splits(s, sets)
        assert set(splits) == {"loca128k", "browse16k"}
        for ts in sets:
            sp = splits[ts.name]
            assert not _families(sp.held_in) & _families(sp.held_out), (argv, ts.name)
            assert set(sp.held_out_families) == _families(sp.held_out)
            assert set(sp.held_in) | set(sp.held_out) == set(ts.names)


def test_contextevo_per_task_split_is_still_reachable():
    from experiments.contextevo.setup import check_splits, evolve_config, tasksets
    from sim.evolve.split import split_tasks

    s = _contextevo(["--quick", "--held-out-families", "0"])
    assert evolve_config(s).held_out_families == 0
    (loca, _) = sets = tasksets(s)
    sp = check_splits(s, sets)["loca128k"]
    assert sp == split_tasks(loca.names)   # the paper's split, as before issue 32
    s = _contextevo(["--quick", "--held-out-families", "0", "--held-in-fraction", "0.5"])
    assert check_splits(s, sets)["loca128k"] == split_tasks(loca.names, 0.5)


def test_contextevo_held_out_families_count_share_and_names_reach_the_loop():
    from experiments.contextevo.setup import check_splits, evolve_config, tasksets

    assert evolve_config(_contextevo(["--held-out-families", "3"])).held_out_families == 3
    assert _contextevo(["--held-out-families", "0.25"]).held_out_families == 0.25
    s = _contextevo(["--quick", "--held-out-families", "crm_dedupe,q3"])
    assert evolve_config(s).held_out_families == ("crm_dedupe", "q3")
    splits = check_splits(s, tasksets(s))
    assert splits["loca128k"].held_out_families == ("crm_dedupe",)
    assert splits["browse16k"].held_out_families == ("q3",)


@pytest.mark.parametrize("argv, named", [
    (["--held-in-fraction", "0.5", "--held-out-families", "3"],
     "--held-in-fraction 0.5 and --held-out-families 3 both set the split's sizes"),
    (["--held-out-families", "crm_dedupe,nope"],
     "--held-out-families crm_dedupe,nope: ['nope'] name no family of the task sets"),
    (["--held-out-families", "crm_dedupe"],
     "--held-out-families crm_dedupe cannot split the 15 tasks of browse16k"),
    # 14 of 15 BrowseComp-like queries out (one instance each under --quick): one
    # held-in task, fewer than a hypothesis needs
    (["--held-out-families", "14"],
     "--held-out-families 14 leaves 1 held-in task(s) of browse16k; the loop needs at "
     "least 2"),
    (["--held-out-families", "15"], "--held-out-families 15 cannot split the 30 tasks"),
])
def test_contextevo_refuses_a_split_that_cannot_run_naming_it(argv, named):
    from experiments.arguments import UsageError
    from experiments.contextevo.setup import check_splits, tasksets

    with pytest.raises(UsageError) as err:
        s = _contextevo(["--quick", *argv])
        check_splits(s, tasksets(s))
    assert named in str(err.value)


def test_contextevo_split_record_names_the_held_out_families():
    from experiments.contextevo.setup import check_splits, split_record, tasksets

    s = _contextevo(["--quick"])
    rec = split_record(s, check_splits(s, tasksets(s)))
    assert rec["unit"] == "families" and rec["seed"] == 15
    loca = rec["by_setting"]["loca128k"]
    assert (loca["held_in"], loca["held_out"], loca["families_held_out"]) == (14, 16, 8)
    assert len(loca["held_out_families"]) == 8 and loca["families_on_both_sides"] == []
    s = _contextevo(["--quick", "--held-out-families", "0"])
    rec = split_record(s, check_splits(s, tasksets(s)))
    assert rec["unit"] == "tasks" and rec["by_setting"]["loca128k"]["held_out_families"] == []
    assert rec["by_setting"]["loca128k"]["families_on_both_sides"]


def test_contextevo_sidecar_and_seeds_csv_record_the_held_out_families(tmp_path, capsys):
    import csv
    import json

    from experiments.cli import main

    cfg = tmp_path / "tiny.toml"
    cfg.write_text("loca_growth = 8000\nloca_budget = 6000\nfamilies = 3\nseeds = 2\n"
                   "queries = 4\nbrowse_seeds = 1\n")
    out = tmp_path / "out"
    assert main(["run", "contextevo", "--config", str(cfg), "--start", "react",
                 "--no-ablations", "--ef-seeds", "0", "--iterations", "1",
                 "--candidates", "1", "--out", str(out), "--no-progress"]) in (0, None)
    assert "[contextevo] split loca8k: 2 held-in, 4 held-out tasks; held out whole: 2 " \
           "families" in capsys.readouterr().out
    split = json.loads((out / "contextevo.json").read_text())["config"]["split"]
    assert split["unit"] == "families"
    for name, n_fam in (("loca8k", 3), ("browse16k", 4)):
        rec = split["by_setting"][name]
        assert rec["families_on_both_sides"] == []
        assert len(rec["held_out_families"]) == rec["families_held_out"]
        assert rec["families_held_in"] + rec["families_held_out"] == n_fam
    rows = list(csv.DictReader(open(out / "contextevo.csv")))
    assert {int(r["n"]) for r in rows if r["setting"] == "loca8k"
            and r["split"] == "held_out"} == {split["by_setting"]["loca8k"]["held_out"]}


def test_contextevo_seed_rows_name_the_held_out_families():
    from experiments.contextevo.evidence_free import SEED_COLUMNS, run_seeds
    from sim.evolve.contextevo.backends import SyntheticBackend
    from sim.evolve.contextevo.compile import spec_of
    from sim.evolve.contextevo.loop import loca_taskset

    rows, _ = run_seeds(lambda seed: [loca_taskset(8_000, 6_000, 3, 2, seed)],
                        spec_of("react"), [0, 1], SyntheticBackend,
                        {"iterations": 1, "candidates": 1, "held_out_families": 1},
                        progress=lambda line: None)
    assert "held_out_families" in SEED_COLUMNS
    assert len({r["held_out_families"] for r in rows}) == 1   # one split for every seed
    (fams,) = {r["held_out_families"] for r in rows}
    assert len(fams.split(";")) == 1 and all(r["n_held_out"] == 2 for r in rows)
