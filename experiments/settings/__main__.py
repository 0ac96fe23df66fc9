"""``python -m experiments.settings write|check``: write the shipped
``experiments/configs/NAME.toml`` of every settings class with TOML keys from the
class (:meth:`experiments.settings.Settings.toml_text`), or check that each file
is exactly that text (exit 1 naming the files that differ, 0 when none does)."""

from __future__ import annotations

import pathlib
import sys

from experiments.settings import REGISTRY, settings_for

CONFIGS = pathlib.Path(__file__).resolve().parents[1] / "configs"


def generated() -> dict[pathlib.Path, str]:
    """path -> generated text, for every registered class with TOML keys."""
    out = {}
    for name in REGISTRY:
        cls = settings_for(name)
        if cls.toml_keys():
            out[CONFIGS / f"{name}.toml"] = cls.toml_text()
    return out


def stale() -> list[pathlib.Path]:
    """The shipped files that differ from their class's text (or are missing)."""
    return [p for p, text in generated().items()
            if not p.exists() or p.read_text() != text]


def main(argv: list[str]) -> int:
    """``write`` (regenerate every shipped config file) or ``check`` (exit 1 naming
    each stale file); returns the exit status (2 for any other argument list)."""
    if argv == ["write"]:
        for path, text in generated().items():
            path.write_text(text)
            print(path)
        return 0
    if argv == ["check"]:
        bad = stale()
        for path in bad:
            print(f"{path}: differs from its settings class; run `python -m "
                  "experiments.settings write`", file=sys.stderr)
        if bad:
            return 1
        print(f"{len(generated())} shipped config files up to date")
        return 0
    print("usage: python -m experiments.settings write|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
