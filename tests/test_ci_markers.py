"""Every marker the default suite deselects is run by .ci/run: a test moved behind a
marker leaves the default suite, never CI."""

import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def deselected(pyproject: str) -> set[str]:
    """The markers ``addopts`` deselects (``-m "not a and not b"``)."""
    opts = tomllib.loads(pyproject)["tool"]["pytest"]["ini_options"]
    expr = re.search(r'-m\s+"(.*)"', opts["addopts"]).group(1)
    return set(re.findall(r"not\s+(\w+)", expr))


def run_by_ci(script: str) -> set[str]:
    """The markers some uncommented ``pytest -m EXPR`` line of ``script`` selects."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("#")]
    exprs = re.findall(r'pytest\s+-m\s+"([^"]+)"|pytest\s+-m\s+(\w+)', "\n".join(lines))
    names = set()
    for quoted, bare in exprs:
        names |= set(re.findall(r"\w+", quoted or bare)) - {"or", "and", "not"}
    return names


def not_run(pyproject: str, script: str) -> set[str]:
    return deselected(pyproject) - run_by_ci(script)


def test_every_deselected_marker_runs_in_ci():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert {"llm", "docs", "long"} <= deselected(pyproject)   # the parse found them
    missing = not_run(pyproject, (ROOT / ".ci" / "run").read_text())
    assert not missing, f"deselected by addopts but not run by .ci/run: {sorted(missing)}"


def test_a_marker_only_in_addopts_or_only_in_a_comment_is_reported():
    pyproject = ('[tool.pytest.ini_options]\n'
                 'addopts = "-ra -m \\"not llm and not long\\""\n')
    assert not_run(pyproject, 'python3 -m pytest -m llm\n') == {"long"}
    assert not_run(pyproject, '# python3 -m pytest -m "llm or long"\n') == {"llm", "long"}
    assert not_run(pyproject, 'python3 -m pytest -m "llm or long"\n') == set()
