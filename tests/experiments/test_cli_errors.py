"""Every ``ctxsim`` command reports errors the same way (issue 24, item 4): one line,
the debug hint on it; 2 for usage errors and impossible inputs, 1 for failures, 3 for
an over-budget replay; the same bad value worded the same by every command."""

from __future__ import annotations

import pytest

from experiments.cli import EXPERIMENTS, build_parser, main

TRAJ = "sim/data/trajectories/sweagent_marshmallow-1867.traj"


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_experiment_takes_no_progress(name):
    argv = ["run", name, "--no-progress"]
    assert build_parser(argv).parse_args(argv).no_progress is True


@pytest.mark.parametrize("argv", [["run", name] for name in sorted(EXPERIMENTS)]
                         + [["claims"]])
def test_no_progress_has_one_help_text_everywhere(argv):
    """One wording from one place (it read "accepted for symmetry", "no progress
    output", "hide the progress bar" by experiment)."""
    from experiments.arguments import NO_PROGRESS_HELP
    from experiments.cli import command_parser

    parser = command_parser(build_parser(argv), argv)
    helps = [a.help for a in parser._actions if "--no-progress" in a.option_strings]
    assert helps == [NO_PROGRESS_HELP]


def test_an_unknown_option_is_one_line_naming_the_command(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", "sorted_window", "--bogus"])
    assert stop.value.code == 2
    # one line, no usage block (README: errors are reported in one line)
    assert capsys.readouterr().err.splitlines() == [
        "ctxsim run sorted_window: error: unrecognized arguments: --bogus (see --help)"]


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()   # one line, no usage block
    return line.removesuffix(" (see --help)")


def test_a_bad_budget_is_worded_the_same_by_replay_and_pressure(capsys):
    replay = _usage_error(["workspace", "replay", TRAJ, "--budget", "-5"], capsys)
    pressure = _usage_error(["run", "pressure", "--budget", "-5"], capsys)
    assert replay.split(": error: ")[1] == pressure.split(": error: ")[1] == \
        "argument --budget: expected a token count >= 1, got '-5'"


def test_an_unknown_start_program_is_a_usage_error(capsys):
    line = _usage_error(["run", "contextevo", "--start", "nosuch"], capsys)
    assert "argument --start: invalid choice: 'nosuch'" in line


def test_a_sweep_budget_below_the_overhead_exits_2_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "pressure", "--quick", "--budget", "100", "--no-progress",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxsim run pressure: error: budget for program")
    assert "\n" not in err and "CTXSIM_DEBUG" not in err
    assert not out.exists()


def test_replay_below_overhead_plus_pinned_blocks_exits_2(tmp_path, capsys):
    assert main(["workspace", "replay", TRAJ, "--budget", "600",
                 "--dir", str(tmp_path / "ws")]) == 2
    err = capsys.readouterr().err.strip()
    assert "budget 600 tokens is impossible" in err and "pinned blocks" in err


@pytest.mark.parametrize("policy", ["none", "archive-oldest"])
def test_replay_names_one_least_budget_before_any_output(tmp_path, capsys, policy):
    """Issue: --budget 10 said "at least 501", 501 printed the whole report and then
    "at least 1,590", 1,590 then "at least 1,591" (the dashboard, which states the
    budget, was not counted). Now every impossible budget gets the same least
    budget, on stderr with nothing on stdout; that budget is accepted (an
    over-budget replay, 3) and one token less is refused."""
    import re

    def run(budget):
        rc = main(["workspace", "replay", TRAJ, "--budget", str(budget), "--policy",
                   policy, "--dir", str(tmp_path / str(budget))])
        return (rc, *capsys.readouterr())

    stated = set()
    for budget in (10, 501, 1590, 1591):  # before the replay, then after it
        rc, out, err = run(budget)
        assert rc == 2 and out == "" and err.count("\n") == 1
        assert "pinned blocks" in err and "dashboard listing only them" in err
        stated.add(int(re.search(r"at least ([\d,]+),", err)[1].replace(",", "")))
    (least,) = stated
    rc, out, err = run(least - 1)
    assert rc == 2 and out == "" and f"expected at least {least:,}," in err
    rc, out, err = run(least)
    assert rc == 3 and "over the budget" in err and out.startswith("<context_workspace")


def test_replay_hint_does_not_suggest_the_policy_in_use(tmp_path, capsys):
    assert main(["workspace", "replay", TRAJ, "--budget", "2000", "--policy",
                 "archive-oldest", "--dir", str(tmp_path / "a")]) == 3
    err = capsys.readouterr().err.strip()
    assert "over the budget" in err and "--policy archive-oldest" not in err
    assert main(["workspace", "replay", TRAJ, "--budget", "2000",
                 "--dir", str(tmp_path / "b")]) == 3
    assert "try --policy archive-oldest" in capsys.readouterr().err


def test_a_failure_is_one_line_with_the_hint_on_it(monkeypatch, capsys):
    import experiments.figures_cli as figures

    def boom(args):
        raise RuntimeError("disk\nfull")

    monkeypatch.setattr(figures, "main", boom)
    assert main(["figures"]) == 1
    err = capsys.readouterr().err
    assert err == ("ctxsim figures: error: RuntimeError: disk full "
                   "(CTXSIM_DEBUG=1 shows the traceback)\n")


def _exit_2_line(argv, capsys) -> str:
    """The one stderr line of a command that stops with exit 2, whether argparse
    (SystemExit) or :class:`~experiments.arguments.UsageError` stopped it."""
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    assert status == 2, argv
    [line] = capsys.readouterr().err.strip().splitlines()   # one line, no usage block
    assert ": error: " in line and "CTXSIM_DEBUG" not in line and "Errno" not in line
    # an argparse-level error ends with the pointer to --help (experiments.cli.Parser)
    return line.removesuffix(" (see --help)")


@pytest.mark.parametrize("argv, named", [
    (["--figures", "/nonexistent/figs"], "'/nonexistent/figs' is not a directory"),
    (["--figures", "pyproject.toml"], "'pyproject.toml' is not a directory"),
    (["--out", "/proc/nope"], "--out '/proc/nope' cannot be created"),
    (["--samples", "8"], "--samples only applies with --robustness"),
    (["--samples", "8", "--screen", "3"], "--samples, --screen only apply with "
                                          "--robustness"),
    (["--config", "x.toml"], "--config only applies with --robustness"),
    (["--robustness", "--claims", "NOPE"], "--claims NOPE: not agent-level claims"),
    (["--robustness", "--params", "agent.nope"], "--params agent.nope: not world"),
    (["--robustness", "--samples", "1"], "'1' is neither 0 (no Sobol' stage) nor a power of two >= 2"),
    # both choose the executor; refused before a cluster is dialled
    (["--robustness", "--jobs", "2", "--scheduler", "tcp://h:1"],
     "--jobs 2 and --scheduler 'tcp://h:1' both choose where the jobs run"),
    (["--posterior", "--jobs", "2", "--scheduler", "tcp://h:1"],
     "--jobs 2 and --scheduler 'tcp://h:1' both choose where the jobs run"),
])
def test_claims_usage_errors_exit_2_naming_the_value(argv, named, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    assert named in _exit_2_line(["claims", *argv], capsys)


@pytest.mark.parametrize("argv, named", [
    (["--mislabel", "2"], "argument --mislabel: expected a finite number in [0, 1], got '2'"),
    (["--mislabel", "nan"], "got 'nan'"),
    (["--held-in-fraction", "0"], "argument --held-in-fraction: expected a finite "
                                  "number in (0, 1), got '0'"),
    (["--held-in-fraction", "1.5"], "got '1.5'"),
    (["--held-in-fraction", "0.999"], "--held-in-fraction 0.999 cannot split"),
    # issue 32: how the split is made, refused naming the value and what was expected
    (["--held-out-families", "-1"], "argument --held-out-families: expected 0 (the "
     "per-task split), a count >= 1, a share in (0, 1) or distinct family names "
     "a,b,..., got '-1'"),
    (["--held-out-families", "1.5"], "got '1.5'"),
    (["--held-out-families", "crm_dedupe,,q3"], "got 'crm_dedupe,,q3'"),
    (["--held-out-families", "q3,q3"], "got 'q3,q3'"),
    (["--held-out-families", "nope"], "--held-out-families nope: ['nope'] name no family"),
    (["--held-out-families", "3", "--held-in-fraction", "0.5"],
     "--held-in-fraction 0.5 and --held-out-families 3 both set the split's sizes"),
])
def test_contextevo_usage_errors_exit_2_naming_the_value(argv, named, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    assert named in _exit_2_line(["run", "contextevo", "--quick", *argv], capsys)


def test_contextevo_start_and_spec_together_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    spec = tmp_path / "s.json"
    spec.write_text("{}")
    line = _exit_2_line(["run", "contextevo", "--start", "react", "--spec", str(spec),
                         "--out", str(tmp_path / "out")], capsys)
    assert "--start 'react' both name the start" in line
    assert not (tmp_path / "out").exists()


def test_evoharness_unknown_program_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "evoharness", "--program", "bogus",
                         "--out", str(tmp_path / "out")], capsys)
    assert "argument --program: unknown program 'bogus'" in line


@pytest.mark.parametrize("argv, named", [
    (["--rhos", "0"], "argument --rhos: expected a finite number in (0, 1], got '0'"),
    (["--rhos", "0.5", "1.5"], "got '1.5'"),
    (["--rhos", "nan"], "got 'nan'"),
    (["--sigma", "-1"], "argument --sigma: expected a finite number >= 0, got '-1'"),
    (["--sigma", "nan"], "got 'nan'"),
    (["--sigma", "inf"], "got 'inf'"),
    (["--n", "1"], "--n 1: expected at least 17 blocks"),
])
def test_sorted_window_usage_errors_name_the_option(argv, named, tmp_path, capsys,
                                                    monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "sorted_window", *argv, "--out", str(tmp_path / "o")],
                        capsys)
    assert named in line
    assert "kappa" not in line and "sd=" not in line


@pytest.mark.parametrize("argv, named", [
    (["--jobs", "2", "--scheduler", "tcp://h:1"], "--jobs 2 and --scheduler 'tcp://h:1'"),
    (["--profile", "weak", "--world", "agent.p_index=0.3"], "--profile weak and --world"),
    # the other agent's options would be silently ignored
    (["--llm-budgets", "2500"], "ctxsim run pressure: error: --llm-budgets only applies "
                                "with --agent llm"),
    (["--llm-growth", "4000", "--model", "m"], "--model, --llm-growth only apply with "
                                               "--agent llm"),
    (["--agent", "llm", "--levels", "8000", "--jobs", "2"],
     "--levels, --jobs only apply with --agent synthetic (the default)"),
    (["--agent", "llm", "--dashboard-tokens", "500"], "--dashboard-tokens only applies"),
])
def test_sweep_conflicting_options_exit_2(argv, named, tmp_path, capsys, monkeypatch):
    from experiments.vista import pressure, pressure_llm

    def no_work(*args, **kwargs):   # refused before any sweep (or model) starts
        raise AssertionError("the run started")
    monkeypatch.setattr(pressure, "run_sweep", no_work)
    monkeypatch.setattr(pressure_llm, "run_llm", no_work)
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line(["run", "pressure", "--quick", *argv,
                         "--out", str(tmp_path / "o")], capsys)
    assert named in line
    assert not (tmp_path / "o").exists()


def test_each_agent_takes_its_own_options_and_the_shared_ones(monkeypatch):
    """The options near the line are taken: the llm options with --agent llm, the
    grid with the synthetic agent, the shared ones (and defaults given) with both."""
    from experiments.vista import pressure_llm

    def args_of(*argv):
        argv = ["run", "pressure", *argv]
        return build_parser(argv).parse_args(argv)

    pressure_llm.check_agent_options(args_of(
        "--agent", "llm", "--quick", "--seed", "3", "--llm-budgets", "2500",
        "--llm-growth", "4000", "--llm-families", "2", "--model", "m",
        "--jobs", "1", "--dashboard-tokens", "400", "--no-progress"))
    pressure_llm.check_agent_options(args_of(
        "--quick", "--seed", "3", "--levels", "8000", "--programs", "react", "--budget",
        "9000", "--families", "2", "--seeds", "1", "--jobs", "2", "--no-progress"))
    from experiments.settings.vista import PressureLLMSettings

    assert PressureLLMSettings.from_args(args_of("--agent", "llm")).llm_growth == 4000


def test_claims_fails_when_figures_holds_none_of_the_claims_csvs(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "unrelated.csv").write_text("a\n1\n")  # a CSV no claim reads
    out = tmp_path / "o"
    assert main(["claims", "--figures", str(empty), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and captured.out == ""
    assert err.startswith(f"ctxsim claims: error: --figures {str(empty)!r} holds none "
                          "of the CSVs the claims read")
    assert f"`ctxsim run NAME --out {str(empty)!r}`" in err and "theorem1" in err
    assert not out.exists()


def test_claims_with_some_csvs_judges_the_rest_not_testable(tmp_path, capsys):
    import shutil

    from experiments.claims.cli import SHIPPED_FIGURES

    figs = tmp_path / "figs"
    figs.mkdir()
    shutil.copy(SHIPPED_FIGURES / "theorem1.csv", figs)
    assert main(["claims", "--figures", str(figs), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "not testable here" in out and (tmp_path / "o" / "claims.json").is_file()


def test_an_interrupt_chained_under_another_error_exits_130(monkeypatch, capsys):
    """Ctrl-C inside a numba kernel surfaces as a SystemError whose context is the
    KeyboardInterrupt (issue 24): still "interrupted", exit 130."""
    import experiments.figures_cli as figures

    def kernel(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("CPUDispatcher(<function k>) returned a result with an "
                              "exception set")

    def wrapped(args):
        try:
            kernel(args)
        except SystemError as exc:
            raise RuntimeError("sweep failed") from exc

    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    for command in (kernel, wrapped):
        monkeypatch.setattr(figures, "main", command)
        assert main(["figures"]) == 130
        assert capsys.readouterr().err == "ctxsim: interrupted\n"


def test_an_error_without_an_interrupt_in_its_chain_still_exits_1(monkeypatch, capsys):
    import experiments.figures_cli as figures

    def kernel(args):
        try:
            raise ValueError("inner")
        except ValueError:
            raise SystemError("outer")

    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    monkeypatch.setattr(figures, "main", kernel)
    assert main(["figures"]) == 1
    assert "SystemError: outer" in capsys.readouterr().err


@pytest.mark.parametrize("argv, value, problem", [
    (["run", "pressure", "--quick"], "bogus", "no port"),
    (["run", "pressure", "--quick"], "http://x", "unknown scheme 'http'"),
    (["run", "window", "--quick"], "tcp://host", "no port"),
    (["run", "pressure", "--quick"], "tcp://host:0", "port '0' is not in 1..65535"),
    (["run", "pressure", "--quick"], "tcp://:8786", "no host"),
    (["claims", "--robustness"], "bogus", "no port"),
])
def test_a_malformed_scheduler_address_exits_2_at_parse_time(argv, value, problem,
                                                             tmp_path, capsys,
                                                             monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line([*argv, "--no-progress", "--scheduler", value,
                         "--out", str(tmp_path / "o")], capsys)
    assert line.split(": error: ")[1] == (
        "argument --scheduler: expected a Dask scheduler address SCHEME://HOST:PORT "
        "(SCHEME one of tcp, tls, ws, wss, ucx; tcp when omitted) or "
        f"inproc://HOST/PID/N, got {value!r} ({problem})")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("address", ["tcp://10.0.0.1:8786", "tls://h.example:8786",
                                     "h:8786", "[::1]:8786", "tcp://[::1]:8786",
                                     "ucx://h:13337", "inproc://192.0.2.2/32734/1"])
def test_well_formed_scheduler_addresses_parse(address):
    argv = ["run", "pressure", "--scheduler", address]
    assert build_parser(argv).parse_args(argv).scheduler == address


def test_the_accepted_schemes_are_dask_distributed_schemes():
    pytest.importorskip("distributed")
    import distributed.comm  # noqa: F401 - registers the built-in backends
    from distributed.comm.registry import get_backend

    from experiments.arguments import DASK_HOST_PORT_SCHEMES
    for scheme in (*DASK_HOST_PORT_SCHEMES, "inproc"):
        # get_backend raises ValueError for a scheme distributed does not know
        assert get_backend(scheme) is not None, scheme


#: every command with a --base-url option (one shared argparse type)
BASE_URL_COMMANDS = [["run", "perception", "--quick"], ["run", "calibrate", "--quick"],
                     ["run", "presentation", "--quick"], ["run", "contextevo", "--quick"],
                     ["run", "evoharness", "--quick"], ["run", "pressure", "--quick"],
                     ["llm", "status"]]


@pytest.mark.parametrize("argv", BASE_URL_COMMANDS)
@pytest.mark.parametrize("value, problem", [("notaurl", "no scheme"),
                                            ("ftp://x", "scheme 'ftp'"),
                                            ("http://", "no host"),
                                            ("http://h:99999/v1", "bad port")])
def test_a_malformed_base_url_exits_2_at_parse_time(argv, value, problem, capsys,
                                                    monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    line = _exit_2_line([*argv, "--base-url", value], capsys)
    assert line.split(": error: ")[1] == (
        "argument --base-url: expected an http:// or https:// URL with a host, e.g. "
        f"http://127.0.0.1:8080/v1, got {value!r} ({problem})")


@pytest.mark.parametrize("argv", BASE_URL_COMMANDS)
def test_a_well_formed_base_url_parses(argv):
    argv = [*argv, "--base-url", "https://api.example.com:8443/v1"]
    assert build_parser(argv).parse_args(argv).base_url == \
        "https://api.example.com:8443/v1"


def test_a_small_dashboard_cap_names_the_minimum_alike(tmp_path, capsys, monkeypatch):
    from sim.workspace.bounded_ledger import BoundedLedgerDashboard
    from sim.workspace.tokenizer import get_tokenizer

    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    need = BoundedLedgerDashboard.minimum_cap(get_tokenizer("cl100k_base"))
    sweep = _exit_2_line(["run", "pressure", "--quick", "--dashboard-tokens", "5"], capsys)
    assert main(["workspace", "replay", TRAJ, "--budget", "8000", "--dashboard",
                 "bounded_ledger", "--dashboard-tokens", "5",
                 "--dir", str(tmp_path / "ws")]) == 2
    replay = capsys.readouterr().err.strip()
    expected = (f"dashboard token cap 5 cannot hold the budget bar and the remainder "
                f"line; need at least {need} tokens")
    assert sweep.endswith(f": error: argument --dashboard-tokens: {expected}")
    assert replay == f"ctxsim workspace: {expected}"
    text = _exit_2_line(["run", "pressure", "--dashboard-tokens", "many"], capsys)
    assert text.endswith(f"expected a dashboard token cap of at least {need} tokens "
                         "(written 128000, 128,000, 128_000, 128k, 128K, 1.5k or 1M), "
                         "got 'many'")


def test_a_missing_trajectory_is_named_once_with_the_reason(tmp_path, capsys,
                                                            monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    assert main(["workspace", "replay", "/nonexistent/nosuch.traj", "--budget", "8000",
                 "--dir", str(tmp_path / "ws")]) != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith("cannot read trajectory '/nonexistent/nosuch.traj': "
                        "No such file or directory"), err
    assert "Errno" not in err and err.count("nosuch.traj") == 1


def test_the_option_maps_derived_from_the_settings_classes_are_the_hand_written_ones():
    # the maps hand-written before issue 36's review, as sets (the classes now decide)
    from experiments.claims.robustness.run import only_with_robustness
    from experiments.vista.pressure_llm import agent_only_options

    flags, defaults = only_with_robustness()
    assert set(flags.items()) == {
        ("quick", "--quick"), ("samples", "--samples"), ("trajectories", "--trajectories"),
        ("screen", "--screen"), ("tasks", "--tasks"), ("queries", "--queries"),
        ("claims", "--claims"), ("params", "--params"), ("scheduler", "--scheduler"),
        ("no_progress", "--no-progress"), ("config", "--config"), ("jobs", "--jobs"),
        ("seed", "--seed")}
    assert {d: v for d, v in defaults.items() if v is not None and v is not False} == {
        "jobs": 1, "seed": 0}
    flags, defaults = agent_only_options(llm=True)
    assert flags == {"base_url": "--base-url", "model": "--model",
                     "llm_budgets": "--llm-budgets", "llm_growth": "--llm-growth",
                     "llm_families": "--llm-families", "cache": "--cache",
                     "no_cache": "--no-cache"}
    assert set(defaults.values()) == {None}
    flags, defaults = agent_only_options(llm=False)
    assert set(flags.items()) == {
        ("levels", "--levels"), ("programs", "--programs"), ("budget", "--budget"),
        ("families", "--families"), ("seeds", "--seeds"), ("profile", "--profile"),
        ("calibrated_row", "--calibrated-row"), ("world", "--world"), ("jobs", "--jobs"),
        ("scheduler", "--scheduler"), ("dashboard_tokens", "--dashboard-tokens"),
        ("config", "--config")}
    assert list(flags)[:5] == ["levels", "programs", "budget", "families", "seeds"]
    assert list(flags)[-1] == "config"
    assert {d: v for d, v in defaults.items() if v is not None and v is not False} == {
        "jobs": 1, "dashboard_tokens": 400}
