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
