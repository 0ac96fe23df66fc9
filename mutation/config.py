"""mutation's configuration: modules.toml (which modules to mutate and the tests that
cover each) and equivalents.toml (surviving mutants listed as equivalent, with the
reason), parsed into checked records (issue 38; the runner: :mod:`mutation.run`)."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODULES = HERE / "modules.toml"
EQUIVALENTS = HERE / "equivalents.toml"


class ConfigError(ValueError):
    """A bad modules.toml or equivalents.toml (the message names file and entry)."""


@dataclasses.dataclass(frozen=True)
class ModuleSpec:
    """One module to mutate: its path, the pytest node ids that cover it and the
    ``ctxsim theory`` filters run after them."""

    path: str
    tests: tuple[str, ...]
    theory: tuple[str, ...] = ()

    def test_files(self) -> set[str]:
        return {t.split("::", 1)[0] for t in self.tests}


@dataclasses.dataclass(frozen=True)
class Config:
    timeout: float
    exclude_operators: tuple[str, ...]
    modules: dict[str, ModuleSpec]


@dataclasses.dataclass(frozen=True)
class Equivalent:
    """A surviving mutant listed as equivalent, with the reason. ``tool``: "mutmut"
    (``where`` is the function as mutmut names it, e.g. ``x_gap_verdict`` or
    ``xǁTotalBoundǁafter``) or "cosmic-ray" (``where`` is the operator, e.g.
    ``core/NumberReplacer``, and ``line`` the line). ``text``: the mutated line(s) as
    the mutant reads them, stripped (mutmut) or the clean line (cosmic-ray).
    ``mutated`` (cosmic-ray only, optional): the line as the mutant reads it, stripped;
    without it the listing covers every mutant of its operator on its line (one
    operator can make several there: NumberReplacer moves each number up and down)."""

    tool: str
    module: str
    where: str
    text: str
    reason: str
    line: int | None = None
    mutated: str | None = None

    def key(self) -> tuple:
        return (self.tool, self.module, self.where, self.line, self.text.strip(),
                None if self.mutated is None else self.mutated.strip())


def _strings(value, what: str, empty_ok: bool = True) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value) \
            or not (value or empty_ok):
        raise ConfigError(f"{what} must be a list of non-empty strings"
                          f"{'' if empty_ok else ' (at least one)'}, got {value!r}")
    return tuple(value)


def load_config(text: str, where: str = "modules.toml") -> Config:
    """Parse modules.toml. Raises :class:`ConfigError` naming the bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    settings = data.get("settings", {})
    timeout = settings.get("timeout", 180)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{where}: settings.timeout must be a number of seconds > 0, "
                          f"got {timeout!r}")
    excl = _strings(settings.get("exclude-operators", []), f"{where}: exclude-operators")
    for pattern in excl:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{where}: exclude-operators {pattern!r}: {exc}") from None
    mods = {}
    raw = data.get("modules")
    if not isinstance(raw, dict) or not raw:
        raise ConfigError(f"{where}: expected a [modules.\"PATH\"] table per module")
    for path, spec in raw.items():
        if not path.endswith(".py") or not isinstance(spec, dict):
            raise ConfigError(f"{where}: module {path!r} must be a .py path with a table")
        unknown = set(spec) - {"tests", "theory"}
        if unknown:
            raise ConfigError(f"{where}: module {path!r}: unknown keys {sorted(unknown)}")
        tests = _strings(spec.get("tests"), f"{where}: {path} tests", empty_ok=False)
        theory = _strings(spec.get("theory", []), f"{where}: {path} theory")
        mods[path] = ModuleSpec(path, tests, theory)
    return Config(float(timeout), excl, mods)


def load_equivalents(text: str, where: str = "equivalents.toml") -> list[Equivalent]:
    """Parse equivalents.toml. Raises :class:`ConfigError` naming the bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    out, seen = [], set()
    for i, e in enumerate(data.get("equivalent", []), 1):
        missing = {"tool", "module", "where", "text", "reason"} - set(e)
        if missing:
            raise ConfigError(f"{where}: entry {i} lacks {sorted(missing)}")
        if e["tool"] not in ("mutmut", "cosmic-ray"):
            raise ConfigError(f"{where}: entry {i}: tool must be mutmut or cosmic-ray, "
                              f"got {e['tool']!r}")
        line = e.get("line")
        if e["tool"] == "cosmic-ray" and (isinstance(line, bool) or not isinstance(line, int)
                                          or line < 1):
            raise ConfigError(f"{where}: entry {i}: a cosmic-ray entry needs line, an "
                              f"integer >= 1, got {line!r}")
        if not isinstance(e["reason"], str) or len(e["reason"].split()) < 3:
            raise ConfigError(f"{where}: entry {i}: a reason of at least a few words is "
                              f"needed, got {e['reason']!r}")
        mutated = e.get("mutated")
        if mutated is not None and (e["tool"] != "cosmic-ray" or not isinstance(mutated, str)
                                    or not mutated.strip()):
            raise ConfigError(f"{where}: entry {i}: mutated is for a cosmic-ray entry, the "
                              f"mutant's line as a non-empty string, got {mutated!r}")
        eq = Equivalent(e["tool"], str(e["module"]), str(e["where"]), str(e["text"]),
                        e["reason"].strip(), line if e["tool"] == "cosmic-ray" else None,
                        mutated)
        if eq.key() in seen:
            raise ConfigError(f"{where}: entry {i} repeats an earlier one")
        seen.add(eq.key())
        out.append(eq)
    return out


def is_listed(key: tuple, equivalents: list[Equivalent]) -> Equivalent | None:
    """The listing for a survivor's key (:meth:`Equivalent.key`), or None."""
    return next((e for e in equivalents if e.key() == key), None)


def empty_counts() -> dict:
    """One module's tally for one tool, every count 0. ``timed_out`` counts the
    killed mutants whose tests only ran past the timeout: a kill a loaded machine can
    make, so the report names how many (a slow test can hide a mapped test that never
    fails on the mutant)."""
    return dict(generated=0, filtered=0, killed=0, timed_out=0, survived=0, equivalent=0,
                not_run=0, seconds=0.0)
