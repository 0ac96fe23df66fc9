"""The README's examples work as written: every Python block runs (in a temp dir),
every ``ctxsim`` command line it shows parses with today's options, and its
``--config`` example is a valid file for the default and the ``--quick`` grid."""

import pathlib
import re
import shlex

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, re.S)


def test_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    from sim.agents.registry import PLUGIN_AGENTS
    from sim.plugins import unregister
    from sim.policies import PLUGIN_PROGRAMS

    assert len(PYTHON_BLOCKS) >= 3
    monkeypatch.chdir(tmp_path)
    before = set(PLUGIN_PROGRAMS), set(PLUGIN_AGENTS)
    try:
        for i, block in enumerate(PYTHON_BLOCKS):
            try:
                exec(compile(block, f"README block {i}", "exec"), {})
            except Exception as exc:  # name the block that broke
                pytest.fail(f"README python block {i} ({block.splitlines()[0]!r}) raised "
                            f"{type(exc).__name__}: {exc}")
    finally:  # the plugin example registers names in-process: later tests must not see them
        for name in set(PLUGIN_PROGRAMS) - before[0]:
            unregister("program", name)
        for name in set(PLUGIN_AGENTS) - before[1]:
            unregister("agent", name)
    assert (tmp_path / "ws-dir").is_dir()  # the workspace example persisted its store
    assert capsys.readouterr().out.strip()  # the games example printed its numbers


def _command_lines() -> list[str]:
    """Every ``ctxsim ...`` line of the README: in bash blocks and in inline code."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                part = part.split("#")[0].strip()
                if part.startswith("ctxsim "):
                    lines.append(part)
    for code in re.findall(r"`(ctxsim [^`]*)`", TEXT):
        if not re.search(r"[A-Z]{3,}|\[|\||/ ", code):   # templates such as NAME, [FILTER]
            lines.append(code.strip())
    return sorted(set(lines))


COMMANDS = _command_lines()


def test_readme_shows_commands():
    assert len(COMMANDS) >= 10
    assert any(c.startswith("ctxsim run theorem1") for c in COMMANDS)


@pytest.mark.parametrize("line", COMMANDS)
def test_readme_command_parses(line):
    from experiments.cli import build_parser

    argv = shlex.split(line)[1:]
    try:
        build_parser(argv).parse_args(argv)
    except SystemExit as stop:
        if stop.code != 0:  # --help and --version exit 0
            pytest.fail(f"README command {line!r} does not parse (exit {stop.code})")


def test_readme_config_example_works_with_and_without_quick(tmp_path):
    from experiments.config import load_config

    [toml] = re.findall(r"```toml\n(.*?)```", TEXT, re.S)
    path = tmp_path / "grid.toml"
    path.write_text(toml)
    for section in ("default", "quick"):
        config = load_config("theorem1", section, path)
        assert config["panels"] == [[10, 4], [12, 8]]
