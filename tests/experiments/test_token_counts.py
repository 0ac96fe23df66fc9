"""Token counts as a person writes them (issue 33): ``128k``, ``128K``, ``1M``,
``128,000`` and plain integers, read by one parser
(:func:`experiments.arguments.parse_tokens`) on every token option and in every
token config key; k = 1,000 and M = 1,000,000, so ``128k`` is the code's own 128K
level."""

from __future__ import annotations

import argparse
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.arguments import MAX_TOKENS, parse_tokens
from experiments.cli import COMMAND_GROUPS, EXPERIMENTS, build_parser, command_parser, main
from experiments.config import ConfigValueError, load_config, token_keys

ACCEPTED = [("128000", 128_000), ("128,000", 128_000), ("128_000", 128_000),
            ("128k", 128_000), ("128K", 128_000), ("1M", 1_000_000), ("1m", 1_000_000),
            ("1.5k", 1_500), ("0.5M", 500_000), ("2.25k", 2_250), (" 8000 ", 8_000),
            ("1,000,000", 1_000_000), ("0", 0), ("-5", -5), ("+7", 7), ("10M", MAX_TOKENS)]
REFUSED = ["1.5.k", "12.5", "1.0005k", "128 k", "1e3", "0x10", "1,00", "1,0000",
           "12,3456", "k", "M", "", " ", "1.k", ".5k", "1__0", "_1", "1kk", "1G", "٣",
           "--5", "128kt", "1,000k"]


@pytest.mark.parametrize("text, value", ACCEPTED)
def test_accepted_forms(text, value):
    assert parse_tokens(text) == value


@pytest.mark.parametrize("text", REFUSED)
def test_refused_forms_name_the_text_and_the_forms(text):
    with pytest.raises(ValueError) as err:
        parse_tokens(text)
    assert str(err.value).startswith(f"{text!r} is not a token count")
    assert "128k" in str(err.value) and "1M" in str(err.value)


@pytest.mark.parametrize("value", [True, False, 1.0, 128000.0, None, [1]])
def test_only_ints_and_text_are_token_counts(value):
    """A TOML float or bool is not a token count (``True`` is an ``int`` to Python)."""
    with pytest.raises(ValueError):
        parse_tokens(value)


def test_k_is_the_codes_own_128k_level():
    """The papers' "128K" is the code's 128_000 (LOCA growth levels, the paper's
    budget), so ``128k`` means exactly that, not 131,072."""
    from experiments.settings.vista import PressureSettings
    from sim.tasks.loca import GROWTH_LEVELS

    assert parse_tokens("128k") == PressureSettings.paper()["budget"]
    assert [parse_tokens(f"{k}K") for k in (8, 16, 32, 64, 128, 256)] == \
        list(GROWTH_LEVELS)


@given(st.integers(0, 10**15))
def test_every_integer_round_trips_through_its_written_forms(n):
    assert parse_tokens(str(n)) == n
    assert parse_tokens(f"{n:,}") == n
    assert parse_tokens(f"{n:_}") == n
    # the k and M forms, written by Decimal (an independent route), whenever the
    # count is a whole number of tokens there
    for suffix, unit in (("k", 1000), ("M", 1_000_000)):
        text = f"{Decimal(n) / unit:f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        assert parse_tokens(text + suffix) == n
        assert parse_tokens(text + suffix.swapcase()) == n


@given(st.integers(1, 10**9), st.integers(1, 9))
def test_a_fraction_of_a_token_is_refused(n, digits):
    """``x.yk`` with more than three decimals not all zero is not whole."""
    text = f"{n}.{'0' * digits}1k"
    if digits + 1 > 3:  # 1.0001k = 1000.1 tokens
        with pytest.raises(ValueError):
            parse_tokens(text)
    else:
        assert parse_tokens(text) == n * 1000 + 10 ** (3 - digits - 1)


# -- every token option of every command reads them -----------------------------------
def _options():
    """``(argv, action)`` of every option of every ``ctxsim`` command."""
    def walk(parser, path):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for n, sp in a.choices.items():
                    yield from walk(sp, [*path, n])
            elif a.option_strings:
                yield path, a

    for argv in [["run", n] for n in EXPERIMENTS] + [[g] for g in COMMAND_GROUPS]:
        yield from walk(command_parser(build_parser(argv), argv), argv)


OPTIONS = list(_options())
TOKEN_OPTIONS = [(p, a) for p, a in OPTIONS if a.metavar == "TOKENS"]
#: options whose names suggest a token count but which count something else
NOT_TOKENS = {("run", "sorted_window", "--windows"): "listed rows w, a block count",
              ("claims", "--tasks"): "a task count",
              ("run", "evoharness", "--cap-fraction"): "a share of the lesson catalogue"}


def test_every_token_looking_option_is_a_token_option():
    """An option named like a budget, a growth, a window, a cap or a context size
    takes TOKENS (so it reads ``128k``), unless listed with its reason above."""
    words = ("budget", "growth", "level", "window", "tokens", "ctx", "cap")
    for path, a in OPTIONS:
        flag = a.option_strings[-1]
        if any(w in flag for w in words) and (*path, flag) not in NOT_TOKENS:
            assert a.metavar == "TOKENS", f"{' '.join(path)} {flag}"
    assert len(TOKEN_OPTIONS) >= 20  # the sweeps' four, replay's, overhead's, ...


@pytest.mark.parametrize("path, action", TOKEN_OPTIONS,
                         ids=[" ".join([*p, a.option_strings[-1]])
                              for p, a in TOKEN_OPTIONS])
def test_every_token_option_reads_every_form(path, action):
    for text, value in [("8k", 8_000), ("8K", 8_000), ("8,000", 8_000), ("8000", 8_000),
                        ("1M", 1_000_000), ("1.5k", 1_500)]:
        assert action.type(text) == value, text
    for bad in ("1.5.k", "-5", "0"):
        with pytest.raises(argparse.ArgumentTypeError) as err:
            action.type(bad)
        assert bad in str(err.value)  # named (the dashboard cap's words: "cap 0")


@pytest.mark.parametrize("name", ["pressure", "window", "ablations", "cost"])
def test_budget_128k_parses_in_every_sweep(name):
    option = "--windows" if name == "window" else "--budget"
    argv = ["run", name, option, "128k"]
    args = build_parser(argv).parse_args(argv)
    assert getattr(args, option[2:]) in (128_000, [128_000])


def _usage_line(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(" (see --help)"), lines  # one line
    return lines[0].removesuffix(" (see --help)")


@pytest.mark.parametrize("value, says", [
    ("1.5.k", "expected a token count >= 1 (written 128000, 128,000, 128_000, 128k, "
              "128K, 1.5k or 1M), got '1.5.k'"),
    ("-5", "expected a token count >= 1, got '-5'"),
    ("0", "expected a token count >= 1, got '0'"),
    ("11M", "expected a token count >= 1 and at most 10,000,000, got '11M'"),
])
def test_a_bad_token_count_is_one_line_naming_it(value, says, capsys):
    line = _usage_line(["run", "pressure", "--budget", value], capsys)
    assert line == f"ctxsim run pressure: error: argument --budget: {says}"


def test_a_growth_level_keeps_its_own_minimum(capsys):
    line = _usage_line(["run", "pressure", "--levels", "8k", "0.5k"], capsys)
    assert line.endswith("argument --levels: expected a growth level in tokens >= "
                         "1,000, got '0.5k'")


def test_a_sweep_config_holds_the_integers():
    """What the sidecar records (the sweep's config) holds ints, not the text."""
    from experiments.settings.vista import PressureSettings

    argv = ["run", "pressure", "--levels", "8k", "16K", "--budget", "8,000"]
    cfg = PressureSettings.from_args(build_parser(argv).parse_args(argv)).record()
    assert cfg["levels"] == [8000, 16000] and cfg["budget"] == 8000
    assert all(type(v) is int for v in (*cfg["levels"], cfg["budget"]))


# -- and every token key of every config ---------------------------------------------
def test_config_token_keys_read_the_written_forms(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('budget = "128k"\nlevels = ["8K", "16,000", 32000, "0.064M"]\n')
    cfg = load_config("pressure", "default", path)
    assert cfg["budget"] == 128_000 and cfg["levels"] == [8_000, 16_000, 32_000, 64_000]
    assert all(type(v) is int for v in cfg["levels"])


@pytest.mark.parametrize("text, says", [
    ('budget = "1.5.k"', "config key 'budget' in {src}: got '1.5.k' (str); expected a "
                         "token count in 1..10,000,000"),
    ('budget = "-5"', "config key 'budget' in {src}: got '-5' (str)"),
    ("budget = 0", "config key 'budget' in {src}: got 0 (int)"),
    ("budget = 128000.0", "config key 'budget' in {src}: got 128000.0 (float)"),
    ('levels = ["8k", 8000]', "config key 'levels' in {src}: item 1 (8000) repeats "
                              "item 0"),
    ('levels = ["0.5k"]', "config key 'levels' in {src}: item 0 is '0.5k' (str); "
                          "expected a token count in 1,000..10,000,000"),
])
def test_a_bad_config_token_count_is_named(tmp_path, text, says):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigValueError) as err:
        load_config("pressure", "default", path)
    assert says.format(src=repr(str(path))) in str(err.value)


def test_every_token_key_is_read_alike():
    """The token keys of every schema (the sweeps', contextevo's, evoharness's,
    robustness's windows, calibrate's cap, lengths and needle_at) take ``"8k"``."""
    from experiments.config import SCHEMAS, validate

    keys = {n: token_keys(n) for n in SCHEMAS}
    assert keys["pressure"] == {"budget", "levels"}
    assert keys["evoharness"] == {"growth", "budget", "long_growth", "long_budget"}
    assert keys["contextevo"] == {"loca_growth", "loca_budget", "browse_window"}
    assert keys["calibrate"] == {"cap", "lengths", "needle_at"}
    for name, names in keys.items():
        for key in names:
            shipped = load_config(name)[key]
            written = ([f"{v / 1000:g}k" for v in shipped] if isinstance(shipped, list)
                       else f"{shipped / 1000:g}k")
            assert validate(name, {key: written})[key] == shipped, (name, key)
