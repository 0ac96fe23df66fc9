"""The docs gallery says when a figure's answers came from a cache (issue 33): the
calibration figure is "made in 4 s" only because its 76 model answers were cached."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gallery():
    spec = importlib.util.spec_from_file_location("gallery", ROOT / "docs" / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("sidecar, says", [
    ({"cache_hits": 76, "model_calls": 0, "answers_cost": {"seconds": 842.2}},
     ", its 76 model answers all from the answer cache (asked first in 842 s)"),
    ({"cache_hits": 10, "model_calls": 5},
     ", 10 of its 15 model answers from the answer cache"),
    ({"cache_hits": 0, "model_calls": 5}, ""),
    ({"cache_hits": True}, ""), ({}, ""), (None, ""),
])
def test_cached_answers(gallery, sidecar, says):
    assert gallery.cached_answers(sidecar) == says


def test_the_committed_calibration_says_its_answers_were_cached(gallery):
    sidecar = json.loads((ROOT / "figures" / "calibration.json").read_text())
    page = gallery.render(ROOT / "figures")
    (line,) = [ln for ln in page.splitlines()
               if ln.startswith("- made at") and "answer cache" in ln]
    assert f"its {sidecar['cache_hits']} model answers" in line
