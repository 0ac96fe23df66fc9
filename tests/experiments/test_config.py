"""``--config`` values are validated with the key's name (issue 10, item 9)."""

from __future__ import annotations

import tomllib

import pytest

from experiments.cli import main
from experiments.config import ConfigValueError, load_config, validate

BAD = [
    ("kappas = [2.5, 4]", "'kappas'.*item 0 is 2.5 \\(float\\)"),
    ("kappas = [-2]", "'kappas'.*item 0 is -2"),
    ("kappas = 4", "'kappas'.*expected a list"),
    ("kappas = []", "'kappas'.*empty"),
    ("kappas = [true]", "'kappas'.*item 0 is True"),
    ("log2_n = []", "'log2_n'.*empty"),
    ("log2_n = [0]", "'log2_n'.*in 2..62"),
    ("sigmas = [0.0]", "'sigmas'.*> 0"),
    ("sigmas = [\"a\"]", "'sigmas'.*'a' \\(str\\)"),
    ("trials = -1", "'trials'.*got -1"),
    ("trials = 1.5", "'trials'.*got 1.5"),
    ("panels = [[6, 3]]", "'panels'.*\\[6, 3\\] is not a point"),
    ("panels = [[6]]", "'panels'.*pair"),
    ("prop2_extra_log2_n = \"x\"", "'prop2_extra_log2_n'.*expected a list"),
    ("log2_n = [2]\nkappas = [4]\npanels = [[2, 4]]", "no grid point"),
    # what the eviction game needs (issue: kappas = [1, 2] failed partway with rc 1)
    ("kappas = [1, 2]\npanels = [[6, 2]]", "'kappas'.*item 0 is 1 .*in 2..65,536"),
    ("kappas = [65537]", "'kappas'.*item 0 is 65537 .*in 2..65,536"),
    ("log2_n = [1, 4]", "'log2_n'.*item 0 is 1 .*in 2..62"),
    ("log2_n = [63]", "'log2_n'.*item 0 is 63 .*in 2..62"),
    ("prop2_extra_log2_n = [1]", "'prop2_extra_log2_n'.*item 0 is 1 .*in 2..62"),
    # extra sizes are played at every kappa: [quick] has kappas [2, 4]
    ("prop2_extra_log2_n = [2]", "'prop2_extra_log2_n' in .*2 gives n = 2\\^2 = 4, "
     "not above kappa 4"),
    # c = ln(4) / 0.02 = 69 > 64: the rate quadrature would take minutes per sigma
    ("sigmas = [0.5, 0.02]", "'sigmas' in .*sigma 0.02 with kappa 4 gives c = "
     "ln\\(kappa\\)/sigma = 69.3, above 64"),
]


@pytest.mark.parametrize("text, match", BAD)
def test_bad_values_name_the_key(tmp_path, text, match):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigValueError, match=match):
        load_config("theorem1", "quick", path)


@pytest.mark.parametrize("text", [
    "kappas = [2, 65536]\nlog2_n = [17]\npanels = [[17, 2]]\nsigmas = [0.5]\n"
    "prop2_extra_log2_n = [17, 62]",
    "log2_n = [2, 62]\nkappas = [2, 4]\npanels = [[2, 2], [62, 4]]",
    "prop2_extra_log2_n = [3]",                         # 2^3 = 8 > kappa 4
    "sigmas = [0.021661]",                              # c = ln(4) / 0.021661 = 63.9995
])
def test_values_at_the_limits_are_accepted(tmp_path, text):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    grid = load_config("theorem1", "quick", path)
    for key, value in tomllib.loads(text).items():   # taken as written, not refused
        assert grid[key] == value, key


def test_a_kappa_the_game_refuses_stops_before_any_work(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text("kappas = [1, 2]\npanels = [[6, 2]]\n")
    out = tmp_path / "out"
    assert main(["run", "theorem1", "--quick", "--config", str(path), "--out", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "config key 'kappas'" in err[0] and "item 0 is 1" in err[0]
    assert not out.exists()


def test_the_smallest_grid_runs(tmp_path):
    """kappa 2, n = 2^2 and an extra size at 2^62: the simulators take the limits."""
    path = tmp_path / "c.toml"
    path.write_text("kappas = [2]\nlog2_n = [2]\nsigmas = [0.5]\ntrials = 10\n"
                    "prop2_extra_log2_n = [2, 62]\npanels = [[2, 2]]\n")
    assert main(["run", "theorem1", "--config", str(path), "--out", str(tmp_path),
                 "--no-progress"]) == 0
    assert (tmp_path / "proposition2.csv").read_text().count("\n") == 1 + 3


def test_empty_list_allowed_where_documented(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("prop2_extra_log2_n = []\n")
    assert load_config("theorem1", "quick", path)["prop2_extra_log2_n"] == []


@pytest.mark.parametrize("section", ["default", "quick"])
def test_shipped_grids_are_valid(section):
    cfg = load_config("theorem1", section)
    assert validate("theorem1", cfg) is cfg


@pytest.mark.parametrize("experiment", ["theorem1", "proposition2"])
def test_cli_reports_a_float_kappa_in_one_line_before_computing(tmp_path, capsys,
                                                                 experiment):
    path = tmp_path / "c.toml"
    path.write_text("kappas = [2, 4.5]\n")
    out = tmp_path / "out"
    assert main(["run", experiment, "--quick", "--config", str(path), "--out",
                 str(out), "--no-progress"]) == 2   # an impossible input, like a usage error
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"ctxsim run {experiment}: error: config key")
    assert "'kappas'" in err[0] and "4.5" in err[0]
    assert not out.exists()   # the failed run removed the --out it had created


def test_unreadable_or_invalid_toml_is_named(tmp_path):
    with pytest.raises(ValueError, match="cannot read --config"):
        load_config("theorem1", "quick", tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("kappas = [\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config("theorem1", "quick", bad)


def test_every_config_error_quotes_the_path(tmp_path):
    path = tmp_path / "c.toml"
    for text in ("kapas = [2]", "kappas = [2.5]"):
        path.write_text(text + "\n")
        with pytest.raises(ConfigValueError) as err:
            load_config("theorem1", "quick", path)
        assert f" in {str(path)!r}" in str(err.value), str(err.value)


def test_top_level_keys_apply_to_every_grid_and_a_table_to_its_own(tmp_path):
    """A key at the top level of FILE applies whichever grid runs, also when FILE
    has tables; a table's key applies to its grid only, over the top level."""
    path = tmp_path / "c.toml"
    path.write_text("trials = 1000\n[quick]\nsigmas = [0.5]\n")
    quick, default = load_config("theorem1", "quick", path), load_config("theorem1",
                                                                        "default", path)
    assert quick["trials"] == default["trials"] == 1000
    assert quick["sigmas"] == [0.5] != default["sigmas"]
    path.write_text("trials = 1000\n[quick]\ntrials = 10\n")
    assert load_config("theorem1", "quick", path)["trials"] == 10
    assert load_config("theorem1", "default", path)["trials"] == 1000


@pytest.mark.parametrize("text, match", [
    ("[default]\nbogus = 1\n", "unknown key\\(s\\) \\['bogus'\\].*table \\[default\\]"),
    ("[defualt]\ntrials = 5\n", "unknown table\\(s\\) \\['defualt'\\]"),
    ("[default]\ntrials = -3\n", "'trials' in \\[default\\].*got -3"),
])
def test_a_table_the_run_does_not_read_is_checked_too(tmp_path, text, match):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigValueError, match=match):
        load_config("theorem1", "quick", path)


def test_integers_past_int64_and_repeated_points_are_refused(tmp_path):
    path = tmp_path / "c.toml"
    for text, match in (("trials = 99999999999999999999", "'trials'.*below 2\\*\\*62"),
                        ("trials = 4611686018427387904", "'trials'.*below 2\\*\\*62"),
                        ("kappas = [2, 2]", "'kappas'.*item 1 \\(2\\) repeats item 0")):
        path.write_text(text + "\n")
        with pytest.raises(ConfigValueError, match=match):
            load_config("theorem1", "quick", path)
    path.write_text("trials = 4611686018427387903\n")  # 2**62 - 1: the largest allowed
    assert load_config("theorem1", "quick", path)["trials"] == 2**62 - 1


def test_a_panel_error_names_where_the_panel_came_from(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("kappas = [8]\n")   # the shipped [quick] panels use kappa 2 and 4
    with pytest.raises(ConfigValueError, match="shipped \\[quick\\] table.*set 'panels'"):
        load_config("theorem1", "quick", path)
    path.write_text("kappas = [8]\npanels = [[6, 2]]\n")
    with pytest.raises(ConfigValueError, match=f"'panels' in {str(path)!r}"):
        load_config("theorem1", "quick", path)
