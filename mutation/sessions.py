"""Resumable cosmic-ray sessions (``python3 -m mutation.run --session DIR``): the state
a module's results depend on (the module and its mapped tests with every file of the
repository they import, conftest.py files, pyproject.toml, the test ids, settings and
tool versions), and whether a session saved under one state goes on under another."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mutation.config import Config, ConfigError, ModuleSpec


def _module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def dependency_files(spec: ModuleSpec, root: Path) -> list[str]:
    """The files (relative paths under ``root``) one module's mutation results depend
    on: the module and its mapped test files with everything of the repository they
    import transitively (``sim``, ``theory``, ``experiments``, ``tests`` helpers and
    the packages' ``__init__.py``: :func:`experiments.figures_cli.import_closure`),
    every ``conftest.py`` on a test file's way down from ``tests/``, and
    pyproject.toml (pytest's settings).

    Raises:
        experiments.figures_cli.UsageError: the module or a mapped test file is
            missing under ``root``."""
    from experiments.figures_cli import import_closure

    paths = [spec.path, *dict.fromkeys(t.split("::")[0] for t in spec.tests)]
    packages = tuple({"sim", "theory", "experiments", "tests", spec.path.split("/")[0]})
    files = {"pyproject.toml"} if (root / "pyproject.toml").is_file() else set()
    for path in paths:
        files.update(import_closure(_module_name(path), root, packages))
        for parent in Path(path).parents:
            if (root / parent / "conftest.py").is_file():
                files.add((parent / "conftest.py").as_posix())
    return sorted(files)


def session_state(spec: ModuleSpec, cfg: Config, root: Path) -> dict:
    """What one module's cosmic-ray results depend on: ``files``, the sha256 (hex) of
    each file of :func:`dependency_files` under ``root``; ``tests``, the mapped test
    ids; ``settings``, the sha256 of the theory filters, the timeout, the excluded
    operators and the cosmic-ray and numba versions.

    Raises:
        experiments.figures_cli.UsageError: as :func:`dependency_files`."""
    import cosmic_ray
    import numba

    files = {name: hashlib.sha256((root / name).read_bytes()).hexdigest()
             for name in dependency_files(spec, root)}
    settings = json.dumps([spec.theory, cfg.timeout, cfg.exclude_operators,
                           getattr(cosmic_ray, "__version__", "?"), numba.__version__])
    return {"files": files, "tests": list(spec.tests),
            "settings": hashlib.sha256(settings.encode()).hexdigest()}


def resume_mode(saved: dict, now: dict) -> str | None:
    """How a session saved with state ``saved`` (:func:`session_state`) goes on under
    ``now``: "resume" (nothing changed: every result stands), "rerun survivors"
    (tests were only added: new test files or helpers under ``tests/``, none of them a
    conftest.py, every old file and test id unchanged, the same settings; a mutant
    the old tests killed is still killed, a survivor must meet the new tests), or
    None (anything else changed: no result can be trusted)."""
    if saved == now:
        return "resume"
    if saved.get("settings") != now["settings"]:
        return None
    old, new = saved.get("files", {}), now["files"]
    if any(new.get(name) != digest for name, digest in old.items()):
        return None
    added = set(new) - set(old)
    if any(not a.startswith("tests/") or a.endswith("conftest.py") for a in added):
        return None
    if not set(saved.get("tests", [])) <= set(now["tests"]):
        return None
    return "rerun survivors"


def file_tag(spec: ModuleSpec) -> str:
    """A file-name stem for ``spec``'s cosmic-ray files (its path, / as _)."""
    return spec.path.replace("/", "_")


def session_files(spec: ModuleSpec, cfg: Config, session: Path, root: Path
                  ) -> tuple[Path, Path, str, dict]:
    """(database, metadata, mode, state) of ``spec``'s cosmic-ray session in
    ``session``: ``state`` is :func:`session_state` of ``root``; mode "new" when there
    is no database, else :func:`resume_mode` of the state the metadata saved against it.

    Raises:
        ConfigError: a database whose metadata is missing or unreadable, or whose
            code, tests or settings changed other than by added tests."""
    db, meta = session / f"{file_tag(spec)}.sqlite", session / f"{file_tag(spec)}.json"
    now = session_state(spec, cfg, root)
    if not db.exists():
        return db, meta, "new", now
    try:
        saved = json.loads(meta.read_text())["state"]
        if not isinstance(saved, dict):
            raise TypeError(f"state is a {type(saved).__name__}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{meta}: no readable state for {db} ({exc}); delete "
                          f"both files to start {spec.path}'s session afresh") from None
    mode = resume_mode(saved, now)
    if mode is None:
        changed = sorted(n for n in {*saved.get("files", {}), *now["files"]}
                         if saved.get("files", {}).get(n) != now["files"].get(n))
        raise ConfigError(f"{db}: made for other code or tests than {spec.path}'s now "
                          f"(changed: {', '.join(changed[:5]) or 'settings or test ids'}"
                          f"{' ...' if len(changed) > 5 else ''}); delete it and "
                          f"{meta.name} to start afresh")
    return db, meta, mode, now
