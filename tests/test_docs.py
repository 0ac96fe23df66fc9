"""The documentation site builds with warnings as errors (marker ``docs``: deselected
by default, run by CI with ``pytest -m docs`` after installing the ``docs`` extra)."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.docs
def test_docs_build_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra: pip install -e '.[docs]'")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    html = tmp_path / "html"
    gallery = (html / "gallery.html").read_text()
    # every committed figure is in the gallery, with its command
    for png in sorted((ROOT / "figures").glob("*.png")):
        assert f"{png.stem}.png" in gallery, png.name
    assert gallery.count("command:") == len(list((ROOT / "figures").glob("*.png")))
    assert "claims checked: T1-" in gallery   # the scorecard's claims reach the gallery
    assert "Claims scorecard" in (html / "claims.html").read_text()
    assert "Theory reference" in (html / "theory.html").read_text()
    # the getting-started page was executed at build time (MyST-NB): its outputs are
    # there, the plugin ran beside VISTA, the plot is an image, the replay reported
    tutorial = (html / "tutorial.html").read_text()
    assert "exit status 0" in tutorial and "keep_last:KeepLast" in tutorial
    assert "<img" in tutorial and "questions answered exactly" in tutorial
    assert "Fig4-8K" in tutorial
    assert 'href="tutorial.html"' in (html / "index.html").read_text()
    # the theory page renders its mathematics (dollarmath/amsmath, MathJax)
    theory = (html / "theory.html").read_text()
    assert theory.count('class="math notranslate nohighlight"') >= 30
    assert "mathjax" in theory.lower()
    # ... with MathJax from the site itself, not a CDN (an offline reader sees math)
    assert 'src="_static/mathjax/tex-chtml.js' in theory and "cdn.jsdelivr" not in theory
    assert (html / "_static" / "mathjax" / "tex-chtml.js").stat().st_size > 100_000
    assert (html / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()
    api = (html / "generated" / "sim.games.eviction.html").read_text()
    assert "recovery burden" in api.lower()   # the docstrings made it into the reference
