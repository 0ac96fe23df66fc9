"""Write the gallery page (``gallery.md``) from the committed figures.

Each figure gets its caption (:data:`experiments.figure_captions.CAPTIONS`), the
command that makes it (from its sidecar, else ``ctxsim run EXPERIMENT``), the commit
and date it was made at, and the claims of the scorecard (``figures/claims.json``)
whose CSV it wrote. Run by ``conf.py`` at the start of every build.
"""

from __future__ import annotations

import json
import pathlib


def _claims_by_csv(figures: pathlib.Path) -> dict[str, list[dict]]:
    try:
        claims = json.loads((figures / "claims.json").read_text())
    except (OSError, ValueError):
        return {}
    if isinstance(claims, dict):   # a registry that wraps its rows
        claims = claims.get("claims", [])
    by_csv: dict[str, list[dict]] = {}
    for claim in claims if isinstance(claims, list) else []:
        # the CSV a claim reads names the run (and so the figure) that checks it
        source = isinstance(claim, dict) and (claim.get("csv") or claim.get("figure"))
        if source:
            name = pathlib.PurePath(str(source)).name
            by_csv.setdefault(name if "." in name else f"{name}.csv", []).append(claim)
    return by_csv


def _stem_of_csv(csv: str, names: set[str]) -> str | None:
    """The figure whose run wrote ``csv`` (``window_episodes.csv`` -> ``window``)."""
    stem = csv.removesuffix(".csv")
    matches = [n for n in names if stem == n or stem.startswith(n + "_")]
    return max(matches, key=len) if matches else None


def cached_answers(sidecar: dict | None) -> str:
    """``", its 76 model answers from the answer cache (asked first in 842 s)"`` when
    the run that made a figure took answers from a cache (sidecar ``cache_hits``,
    ``model_calls``, ``answers_cost``), else ``""``: its wall time alone would
    say a real-model figure is made in seconds."""
    record = sidecar or {}
    hits, calls = record.get("cache_hits"), record.get("model_calls")
    if not isinstance(hits, int) or isinstance(hits, bool) or hits <= 0:
        return ""
    asked = record.get("answers_cost") or {}
    first = asked.get("seconds") if isinstance(asked, dict) else None
    when = f" (asked first in {first:.0f} s)" if isinstance(first, (int, float)) else ""
    if isinstance(calls, int) and calls > 0:
        return f", {hits} of its {hits + calls} model answers from the answer cache{when}"
    return f", its {hits} model answers all from the answer cache{when}"


def render(figures: pathlib.Path) -> str:
    """The gallery page as Markdown (MyST)."""
    from experiments.cli import EXPERIMENTS
    from experiments.figure_captions import CAPTIONS
    from experiments.figures_cli import committed_figures

    items = committed_figures(figures)
    names = {f.name for f in items}
    claims: dict[str, list[dict]] = {}
    for csv, rows in _claims_by_csv(figures).items():
        stem = _stem_of_csv(csv, names)
        if stem:
            claims.setdefault(stem, []).extend(rows)
    lines = [
        "# Gallery",
        "",
        "Every committed figure of `figures/`, with the command that makes it, the "
        "commit it was made at and the claims of the [scorecard](claims.md) it "
        "checks. `ctxsim figures` says which of them are current at HEAD; "
        "`ctxsim figures --verify NAME` redoes one and compares its CSV.",
        "",
    ]
    for fig in items:
        help_text = EXPERIMENTS.get(fig.experiment or "", ("", ""))[1]
        caption = CAPTIONS.get(fig.name, help_text or fig.name)
        command = (f"`{fig.command}`" if fig.command else
                   f"not recorded (made before sidecars named their command; the "
                   f"experiment is `ctxsim run {fig.experiment or '?'}`, its grid in "
                   f"the sidecar's config)")
        made = (fig.sidecar or {}).get("created_utc", "?")
        lines += [f"## {fig.name}", "",
                  f"```{{figure}} ../figures/{fig.name}.png",
                  f":alt: {fig.name}", ":width: 100%", "",
                  caption, "```", "",
                  f"- command: {command}",
                  f"- made at commit `{(fig.commit or '?')[:10]}`, {made}"
                  + (f", in {fig.redo_seconds:.0f} s" if fig.redo_seconds else "")
                  + cached_answers(fig.sidecar)
                  + (" (real model: redone by hand, not before every merge)"
                     if fig.real_model else "")]
        rows = claims.get(fig.name, [])
        if rows:
            lines.append("- claims checked: " + "; ".join(
                f"{c.get('id', '?')} ({c.get('verdict', '?')})" for c in rows))
        else:
            lines.append("- claims checked: none in the scorecard")
        lines.append("")
    return "\n".join(lines)


def write(figures: pathlib.Path, target: pathlib.Path) -> None:
    """Write :func:`render` to ``target`` unless it already holds exactly that (so an
    unchanged gallery does not make Sphinx rebuild the page)."""
    text = render(figures)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
