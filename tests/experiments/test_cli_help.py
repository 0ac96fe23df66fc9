"""Every option of every ``ctxsim`` command states its default in its help
(issue 10, item 11)."""

from __future__ import annotations

import argparse

import pytest

from experiments.cli import COMMAND_GROUPS, EXPERIMENTS, build_parser


def _parsers(parser: argparse.ArgumentParser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _commands():
    out = [("run", name) for name in EXPERIMENTS]
    return out + [(name,) for name in COMMAND_GROUPS]


@pytest.mark.parametrize("command", _commands(), ids=" ".join)
def test_every_option_gives_its_default(command):
    parser = build_parser(list(command))
    missing = []
    for path, p in _parsers(parser):
        if path[:len(command)] != command:
            continue
        for action in p._actions:
            if not action.option_strings or isinstance(
                    action, (argparse._HelpAction, argparse._VersionAction)) \
                    or action.required:
                continue
            text = (action.help or "") % {"default": action.default} \
                if action.help else ""
            if "default" not in text.lower():
                missing.append(f"{' '.join(path)} {action.option_strings[-1]}")
    assert not missing, f"options whose help omits the default: {missing}"
