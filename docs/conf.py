"""Sphinx configuration of the ctxsim documentation site.

Build it with ``python3 -m sphinx -W --keep-going -b html docs docs/_build/html``
(after ``pip install -e ".[docs]"``); ``pytest -m docs`` runs the same build.
The gallery page is generated from the committed figures' JSON sidecars at build
time (:mod:`docs.gallery` is not a package: ``gallery.py`` beside this file).
"""

from __future__ import annotations

import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))   # the checkout's sim/, theory/, experiments/
sys.path.insert(0, str(HERE))   # gallery.py
os.environ.setdefault("MPLBACKEND", "Agg")

from sim import __version__  # noqa: E402

project = "ctxsim"
author = "the ctxsim developers"
release = version = __version__

extensions = [
    # MyST-NB: Markdown (it loads myst_parser) and the executed tutorial notebook
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    # MathJax 3 shipped with the site (_static/mathjax) instead of a CDN: the theory
    # page's mathematics renders offline (sphinx-mathjax-offline sets mathjax_path)
    "sphinx-mathjax-offline",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "api/generated/*.md"]
root_doc = "index"

# -- the API reference: one page per module, from the docstrings -----------------
autosummary_generate = True
autosummary_imported_members = False
# A package's ``__all__`` re-exports names defined in its modules: each object is
# documented once, where it is defined (``ignore-module-all``).
autodoc_default_options = {"members": True, "undoc-members": False,
                           "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# Optional back-ends the reference must not need: the embedded model, the OpenAI
# client and Dask are imported by the modules that use them; mocking them keeps the
# build independent of the [llm] and [dask] extras.
autodoc_mock_imports = ["llama_cpp", "openai", "dask", "distributed"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# An ``Attributes:`` section becomes fields of its class, not second descriptions of
# the attributes that ``#:`` comments already document.
napoleon_use_ivar = True
# Cross-references to names outside the package (numpy.random.Generator, ...) are
# not resolved: nitpicky mode would turn each unresolvable annotation into an error.
nitpicky = False
# A type annotation named like an attribute of several classes (``type``, ``trials``)
# has more than one target; the link is left out, the annotation is still shown.
suppress_warnings_python = ["ref.python"]

# -- Markdown (README, THEORY.md, DESIGN.md are included, not copied) ------------
# dollarmath + amsmath: $...$, $$...$$ and equation environments render with MathJax
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "amsmath"]
myst_heading_anchors = 3
# The included README/THEORY/DESIGN link to each other and to repository files by
# their paths in the repository; those links point outside the site.
suppress_warnings = ["myst.xref_missing", "myst.header", *suppress_warnings_python]

# -- the executed tutorial (MyST-NB): run at every build, a failing cell fails it ------
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300
nb_execution_show_tb = True

html_theme = "pydata_sphinx_theme"
html_title = f"ctxsim {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []


def _write_gallery(app) -> None:
    import gallery

    gallery.write(ROOT / "figures", HERE / "gallery.md")


def setup(app):
    app.connect("builder-inited", _write_gallery)
    return {"parallel_read_safe": True}
