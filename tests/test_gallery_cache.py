"""The docs gallery says when a figure's answers came from a cache (issue 33): a
calibration run "made in 4 s" was that fast only because its model answers were
cached, and the gallery says so; a run that asked the model says nothing of a cache."""

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


def _made_line(page: str, name: str) -> str:
    """The ``- made at`` line of figure ``name``'s section of a rendered gallery."""
    section = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
    (line,) = [ln for ln in section.splitlines() if ln.startswith("- made at")]
    return line


def test_the_committed_calibration_says_whether_its_answers_were_cached(gallery):
    """The committed run asked the model (no cache hits): its line gives the time and
    no cache note; the same sidecar with every answer cached gets the note."""
    sidecar = json.loads((ROOT / "figures" / "calibration.json").read_text())
    line = _made_line(gallery.render(ROOT / "figures"), "calibration")
    note = gallery.cached_answers(sidecar)
    if note:
        assert note in line and f"its {sidecar['cache_hits']} model answers" in line
    else:
        assert "answer cache" not in line and sidecar["model_calls"] > 0


def test_a_calibration_replayed_from_its_cache_says_so(gallery, tmp_path):
    sidecar = json.loads((ROOT / "figures" / "calibration.json").read_text())
    calls = sidecar["model_calls"] + sidecar["cache_hits"]
    sidecar.update(cache_hits=calls, model_calls=0,
                   answers_cost={"seconds": 1117.3}, run_seconds=3.9)
    (tmp_path / "calibration.json").write_text(json.dumps(sidecar))
    (tmp_path / "calibration.png").write_bytes((ROOT / "figures" / "calibration.png").read_bytes())
    line = _made_line(gallery.render(tmp_path), "calibration")
    assert (f"in 4 s, its {calls} model answers all from the answer cache "
            "(asked first in 1117 s)") in line
