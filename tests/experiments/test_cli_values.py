"""Option values of the real-model experiments are validated like the others, and
``ctxsim llm status`` fails when its endpoint does not answer (issue 10, item 11)."""

from __future__ import annotations

import socket

import pytest

from experiments.cli import main


@pytest.mark.parametrize("argv, option", [
    (["run", "perception", "--snapshots", "-3"], "--snapshots"),
    (["run", "perception", "--snapshots", "0"], "--snapshots"),
    (["run", "perception", "--cap", "x"], "--cap"),
    (["run", "perception", "--pairs", "0"], "--pairs"),
    (["run", "perception", "--seed", "-1"], "--seed"),
    (["run", "presentation", "--trials", "0"], "--trials"),
    (["run", "presentation", "--trials", "-2"], "--trials"),
    (["run", "presentation", "--pairs", "0"], "--pairs"),
    (["run", "presentation", "--seed", "-5"], "--seed"),
])
def test_bad_values_are_usage_errors_naming_the_option(argv, option, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends


def test_llm_status_exits_non_zero_when_the_endpoint_is_unreachable(capsys):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    assert main(["llm", "status", "--base-url", url]) == 1
    captured = capsys.readouterr()
    assert '"reachable": false' in captured.out
    assert captured.err.strip() == f"ctxsim llm: endpoint {url} is not reachable"


def test_llm_status_exits_non_zero_when_nothing_of_the_model_is_installed(
        monkeypatch, capsys):
    from sim.agents import llm_server as ls

    monkeypatch.delenv("CTXSIM_LLM_BASE_URL", raising=False)
    monkeypatch.setattr(ls, "_llama_version", lambda: "not installed")
    monkeypatch.setattr(ls, "parts_installed", lambda: False)
    monkeypatch.setattr(ls, "is_verified", lambda path: False)
    assert main(["llm", "status"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ctxsim llm: no model to serve: llama-cpp-python is not "
                          "installed, neither the model parts") and "\n" not in err
    # with everything present it is a normal status (exit 0)
    monkeypatch.setattr(ls, "_llama_version", lambda: "0.3.36")
    monkeypatch.setattr(ls, "is_verified", lambda path: True)
    assert main(["llm", "status"]) == 0


# -- a list item given twice (issue: `--programs react vista vista` doubled vista's n) --
REPEATS = [
    (["run", "pressure", "--programs", "react", "vista", "vista"], "--programs", "'vista'"),
    (["run", "pressure", "--levels", "8000", "8_000"], "--levels", "8000"),
    (["run", "pressure", "--calibrated-row", "vista", "vista"], "--calibrated-row",
     "'vista'"),
    (["run", "pressure", "--agent", "llm", "--llm-budgets", "2500", "2500"],
     "--llm-budgets", "2500"),
    (["run", "window", "--windows", "4000", "4000"], "--windows", "4000"),
    (["run", "ablations", "--programs", "react", "react"], "--programs", "'react'"),
    (["run", "cost", "--programs", "vista", "react", "vista"], "--programs", "'vista'"),
    (["run", "sorted_window", "--rhos", "0.5", "0.50"], "--rhos", "0.5"),
    (["run", "sorted_window", "--windows", "1", "2", "1"], "--windows", "1"),
    (["run", "calibrate", "--probes", "index", "index"], "--probes", "'index'"),
    (["run", "presentation", "--conditions", "ledger", "ledger"], "--conditions",
     "'ledger'"),
    (["run", "contextevo", "--surfaces", "recovery", "recovery"], "--surfaces",
     "'recovery'"),
    # NAME=VALUE options: the name, whatever the values (the last would win)
    (["run", "pressure", "--world", "agent.p_index=0.3", "agent.p_index=0.5"], "--world",
     "'agent.p_index' is given twice (0.3 and 0.5)"),
    (["run", "window", "--world", "task.size_sd=2", "task.size_sd=2"], "--world",
     "'task.size_sd' is given twice"),
    (["run", "calibrate", "--size", "index=3", "index=4"], "--size",
     "'index' is given twice (3 and 4)"),
]


def _parse_error(argv, capsys) -> str:
    """The last stderr line of parsing ``argv`` with the parser `ctxsim` runs, which
    must stop with exit 2 (refused while parsing, before any work)."""
    from experiments.cli import build_parser

    with pytest.raises(SystemExit) as stop:
        build_parser(argv).parse_known_args(argv)
    assert stop.value.code == 2
    line = capsys.readouterr().err.strip()
    assert line.endswith(" (see --help)") and "\n" not in line   # one line, no usage
    return line.removesuffix(" (see --help)")


@pytest.mark.parametrize("argv, option, named", REPEATS,
                         ids=[" ".join(a[1:]) for a, _, _ in REPEATS])
def test_a_repeated_list_item_is_a_usage_error_naming_it(argv, option, named, capsys):
    err = _parse_error(argv, capsys)
    assert err.startswith(f"ctxsim run {argv[1]}: error: argument {option}: {named}")
    assert err.endswith("at most once") and "Traceback" not in err


def test_a_repeated_program_stops_the_command_with_nothing_written(capsys, tmp_path):
    argv = ["run", "pressure", "--quick", "--levels", "8000", "--families", "1",
            "--seeds", "1", "--programs", "react", "vista", "vista", "--no-progress",
            "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "argument --programs: 'vista' is given twice" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


DISTINCT = [
    (["run", "pressure", "--programs", "react", "vista"], "programs", ["react", "vista"]),
    (["run", "pressure", "--levels", "8000", "8001"], "levels", [8000, 8001]),
    (["run", "pressure", "--calibrated-row"], "calibrated_row", []),
    (["run", "window", "--windows", "4000", "4001"], "windows", [4000, 4001]),
    (["run", "sorted_window", "--rhos", "0.5", "0.5000001"], "rhos", [0.5, 0.5000001]),
    (["run", "pressure", "--world", "agent.p_index=0.3", "task.size_sd=2"], "world",
     [("agent.p_index", 0.3), ("task.size_sd", 2.0)]),
    (["run", "calibrate", "--size", "index=3", "confabulate=3"], "size",
     [("index", 3), ("confabulate", 3)]),
]


@pytest.mark.parametrize("argv, dest, value", DISTINCT,
                         ids=[" ".join(a[1:]) for a, _, _ in DISTINCT])
def test_distinct_list_items_parse_in_order(argv, dest, value):
    from experiments.cli import build_parser

    args, unknown = build_parser(argv).parse_known_args(argv)
    assert not unknown and getattr(args, dest) == value


def test_one_rule_for_a_repeat_on_the_command_line_and_in_a_config():
    from experiments.arguments import first_repeat
    from experiments.config import ConfigValueError, validate

    assert first_repeat([8000, 16000, 8000]) == (2, 0)
    assert first_repeat([[6, 2], [8, 4], [6, 2]]) == (2, 0)   # config items may be lists
    assert first_repeat([("a", 1), ("b", 1), ("a", 2)], key=lambda p: p[0]) == (2, 0)
    assert first_repeat([8000, 16000]) is None and first_repeat([]) is None
    with pytest.raises(ConfigValueError, match=r"'levels'.*item 2 \(8000\) repeats item 0"):
        validate("pressure", {"levels": [8000, 16000, 8000]})


@pytest.mark.parametrize("world, profile", [([], "medium"),
                                            (["--world", "agent.p_index=0.3"], None)])
def test_the_sidecar_records_the_profile_only_when_one_was_used(world, profile, tmp_path):
    import json

    assert main(["run", "pressure", "--quick", "--levels", "8000", "--programs", "react",
                 "--families", "1", "--seeds", "1", "--no-progress", *world,
                 "--out", str(tmp_path)]) == 0
    config = json.loads((tmp_path / "pressure.json").read_text())["config"]
    assert config["profile"] == profile
    assert config["world"] == ({"agent.p_index": 0.3} if world else {})


# -- sizes have a documented bound (issue: --levels 100000000000 ran for minutes) ------
OVER = [
    (["run", "pressure", "--levels", "8000", "100000000000"], "--levels",
     "expected a growth level in tokens >= 1,000 and at most 10,000,000, got "
     "'100000000000'"),
    (["run", "pressure", "--levels", "10000001"], "--levels", "got '10000001'"),
    (["run", "pressure", "--budget", "10000001"], "--budget",
     "expected a token count >= 1 and at most 10,000,000, got '10000001'"),
    (["run", "pressure", "--agent", "llm", "--llm-growth", "10000001"], "--llm-growth",
     "got '10000001'"),
    (["run", "pressure", "--agent", "llm", "--llm-budgets", "2500", "10000001"],
     "--llm-budgets", "got '10000001'"),
    (["run", "window", "--windows", "4000", "10000001"], "--windows",
     "expected a token count >= 1 and at most 10,000,000, got '10000001'"),
    (["run", "ablations", "--growth", "10000001"], "--growth", "got '10000001'"),
    (["run", "cost", "--growth", "10000001"], "--growth", "got '10000001'"),
    (["run", "cost", "--budget", "10000001"], "--budget", "got '10000001'"),
    (["run", "sorted_window", "--n", "1000001"], "--n",
     "expected an integer in 1..1,000,000, got '1000001'"),
]


@pytest.mark.parametrize("argv, option, named", OVER,
                         ids=[" ".join(a[1:]) for a, _, _ in OVER])
def test_a_size_over_its_bound_is_a_usage_error(argv, option, named, capsys):
    err = _parse_error(argv, capsys)
    assert f"argument {option}: expected " in err and err.endswith(named)


AT_BOUND = [
    (["run", "pressure", "--levels", "1000", "10000000", "--budget", "10000000"],
     {"levels": [1000, 10_000_000], "budget": 10_000_000}),
    (["run", "pressure", "--llm-growth", "10000000", "--llm-budgets", "10000000"],
     {"llm_growth": 10_000_000, "llm_budgets": [10_000_000]}),
    (["run", "window", "--windows", "1", "10000000"], {"windows": [1, 10_000_000]}),
    (["run", "ablations", "--growth", "10000000"], {"growth": 10_000_000}),
    (["run", "sorted_window", "--n", "1000000"], {"n": 1_000_000}),
]


@pytest.mark.parametrize("argv, values", AT_BOUND,
                         ids=[" ".join(a[1:]) for a, _ in AT_BOUND])
def test_sizes_at_their_bound_parse(argv, values):
    from experiments.cli import build_parser

    args, unknown = build_parser(argv).parse_known_args(argv)
    assert not unknown and {k: getattr(args, k) for k in values} == values


def test_a_huge_level_stops_at_once_with_nothing_written(capsys, tmp_path, monkeypatch):
    from experiments.vista import pressure

    def no_work(*args, **kwargs):
        raise AssertionError("the sweep started")
    monkeypatch.setattr(pressure, "run_sweep", no_work)
    argv = ["run", "pressure", "--quick", "--levels", "100000000000", "--programs",
            "react", "--families", "1", "--no-progress", "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "argument --levels" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# -- sorted_window: at most n rows can be listed (issue: --windows 500 with n = 100) ----
@pytest.mark.parametrize("argv, named", [
    (["--windows", "0", "500"], "--windows: w = 500 is more listed rows than the n = 100 "
                                "blocks (the config's n); expected each w <= 100"),
    (["--windows", "101"], "w = 101 is more listed rows than the n = 100 blocks"),
    (["--n", "50"], "the config's windows: w = 100 is more listed rows than the n = 50 "
                    "blocks (--n)"),
])
def test_sorted_window_refuses_a_window_above_n(argv, named, capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("CTXSIM_DEBUG", raising=False)
    out = tmp_path / "out"
    assert main(["run", "sorted_window", "--quick", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ctxsim run sorted_window: error: ")
    assert named in err[0] and "Traceback" not in err[0]
    assert not out.exists()


def test_sorted_window_takes_a_window_of_n(tmp_path):
    from experiments.cli import build_parser
    from experiments.vista import sorted_window

    argv = ["run", "sorted_window", "--quick", "--n", "50", "--windows", "0", "50"]
    cfg = sorted_window.SETTINGS.from_args(build_parser(argv).parse_args(argv)).record()
    assert (cfg["n"], cfg["windows"]) == (50, [0, 50])


def test_replay_tokenizer_help_and_error_name_the_same_tokenizers(capsys):
    """The error listed bpe, which --help did not mention: both come from the names
    get_tokenizer takes."""
    from experiments.cli import build_parser, command_parser
    from sim.workspace.tokenizer import _NAMED

    argv = ["workspace", "replay", "t.traj", "--budget", "8000", "--tokenizer", "nosuch"]
    parser = command_parser(build_parser(argv), argv)
    [action] = [a for a in parser._actions if "--tokenizer" in a.option_strings]
    assert all(name in action.help for name in _NAMED)
    err = _parse_error(argv, capsys)
    assert "argument --tokenizer: invalid choice: 'nosuch'" in err
    assert all(repr(name) in err for name in _NAMED)
    argv[-1] = "bpe"
    assert build_parser(argv).parse_known_args(argv)[0].tokenizer == "bpe"
