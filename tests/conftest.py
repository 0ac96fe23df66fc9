"""Shared test configuration: hypothesis profiles and a seed fixture."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# "dev" keeps local runs quick; "ci" (set by .ci/run) runs more examples;
settings.register_profile("dev", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=60, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
# "nightly": the long fuzz runs (tests/workspace/test_import_fuzz.py scales by profile)
settings.register_profile("nightly", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def seed() -> int:
    """A fixed seed; tests using it must pass for any seed."""
    return 20261129


@pytest.fixture
def rng(seed) -> np.random.Generator:
    """A Generator seeded from :func:`seed`."""
    return np.random.default_rng(seed)


#: tests kept out of the default suite (it must run in under 5 minutes on 2 cores)
#: and run by .ci/run's `-m "e2e or signals or long"` line instead: node-id prefix ->
#: why it is long. Every entry has a faster sibling in the default suite.
LONG = {
    "tests/experiments/claims/test_posterior.py::"
    "test_claims_posterior_writes_its_six_files_and_the_scorecard_column":
        "a whole claims --posterior at the smallest sizes, over every committed CSV "
        "(~40-110 s); the fit, the sampler and the predictive check are unit-tested",
    "tests/evolve/test_contextevo_loop.py::test_quick_experiment_writes_its_files":
        "a whole --quick ContextEvo run (~20 s); the loop's stages are unit-tested",
    "tests/experiments/test_sweep_configs.py::test_robustness_design_comes_from_its_config":
        "a robustness analysis from a config (~15 s)",
    "tests/experiments/claims/test_claims.py::test_command_defaults_and_empty_out":
        "the claims command over every committed CSV, twice (~13 s)",
    "tests/experiments/claims/test_claims.py::test_command_on_committed_figures":
        "the claims command over every committed CSV (~13 s)",
    "tests/experiments/claims/test_claims_inputs.py::test_the_committed_csv_and_one_from_an_older_version_are_judged":
        "judges every committed CSV and an older copy of each (~12 s)",
    "tests/workspace/test_bounded_ledger.py::test_cap_holds_and_totals_are_exact_on_random_ledgers":
        "hypothesis over large random ledgers (~8 s); test_cap_holds_on_random_workspaces stays",
    "tests/workspace/test_trajectories.py::test_replay_real_trajectory[none-pi_large-session.jsonl]":
        "the largest shipped trajectory replayed without a policy (~7 s)",
    "tests/tasks/test_trajectory_tasks.py::test_vista_keeps_exact_values_react_truncation_loses_them[pi_large-session.jsonl]":
        "the largest shipped trajectory under two programs (~5 s)",
    "tests/workspace/test_import_fuzz.py::test_fuzz_import_is_clean_or_a_trajectory_format_error":
        "hypothesis fuzzing of every importer (~3 s a format, 11 formats)",
    "tests/experiments/claims/test_robustness_model.py::test_jobs_and_a_dask_cluster_give_the_same_files":
        "starts a local Dask cluster (~6 s); tests/experiments/test_scheduler.py keeps the "
        "scheduler path in the default suite",
    "tests/experiments/calibrate/test_calibrate.py::test_curve_not_identified_when_misses_do_not_grow_with_length":
        "a calibration fit over many simulated probes (~6 s); the identified case stays",
    "tests/experiments/vista/test_output_set.py::test_two_runs_into_one_out_leave_one_consistent_set":
        "two full runs into one directory (~6 s); the staging's unit tests stay",
    "tests/experiments/vista/test_output_set.py::test_interrupted_run_leaves_the_previous_set_untouched":
        "interrupts real runs with signals (~3 s each); the signals marker runs more",
    "tests/evolve/test_contextevo_loop.py::test_true_causes_never_influence_the_loop":
        "two whole loops with the true causes scrambled (~6 s); the leakage unit tests stay",
    "tests/experiments/test_cli_figures.py::test_verify_reruns_from_the_sidecar_and_names_the_first_difference":
        "reruns an experiment from its sidecar (~5 s); csv_compare's unit tests stay",
    "tests/experiments/test_cli_errors.py::test_claims_with_some_csvs_judges_the_rest_not_testable":
        "the claims command over a partial figures directory (~4 s)",
    "tests/experiments/claims/test_claims_inputs.py::test_a_file_that_is_not_the_commands_csv_stops_the_command":
        "the claims command once per malformed file (~3 s each)",
    "tests/experiments/test_sweep_configs.py::test_proposition1_run_uses_the_config_file":
        "a whole proposition1 run from a config file (~4 s); the config's unit tests stay",
    "tests/experiments/claims/test_robustness_metamodel.py::test_the_interval_covers_the_known_share_at_its_rate_many_runs":
        "100 fits of the effect metamodel (~2 min); the 10-run coverage test stays",
    "tests/experiments/claims/test_robustness_effects.py::test_effects_at_the_defaults_agree_with_a_600_task_measurement":
        "10,000 episodes at the world's defaults (~5 min); the effects' unit tests stay",
    "tests/experiments/vista/test_figure_styles.py::test_sorted_window_ticks_are_plain_and_reference_styles_are_in_the_legend":
        "a whole --quick sorted_window run with its numba compile (~15-40 s); the "
        "figure's other style tests stay",
    "tests/experiments/vista/test_figure_styles.py::test_proposition1_every_panel_has_a_legend_and_its_y_range_holds_the_data":
        "a whole --quick proposition1 run (~15-40 s); tests/experiments/vista/"
        "test_proposition1.py keeps its files and sidecar in the default suite",
    "tests/workspace/test_count_by_lines.py::test_count_by_lines_equals_the_whole_count":
        "hypothesis over long texts (~11 s); the module's example-based tests stay",
    "tests/experiments/vista/test_fast_views.py::test_every_view_and_request_is_identical[256000]":
        "the largest growth level (~6 s); the smaller levels check the same identity",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(item.nodeid.startswith(prefix) for prefix in LONG):
            item.add_marker(pytest.mark.long)
