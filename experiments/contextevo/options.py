"""The command-line options of ``ctxsim run contextevo`` (ContextEvo §4-6)."""

from __future__ import annotations

NAME = "contextevo"


def add_arguments(parser) -> None:
    """Options of ``ctxsim run contextevo``."""
    from experiments.arguments import (Distinct, add_no_progress, base_url, float_in,
                                       fraction)
    from experiments.config import add_config_argument
    from experiments.sweep import nonnegative_int, positive_int
    from sim.evolve.contextevo.spec import SURFACES
    from sim.policies import PROGRAMS

    # built-in programs only: ContextEvo edits a program's spec in its grammar, which
    # a plugin class (sim.plugins) does not have
    builtin = list(PROGRAMS)

    add_no_progress(parser)
    add_config_argument(parser, NAME)
    parser.add_argument("--out", default="figures", help="output directory (default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer tasks (LOCA-like 15x2, BrowseComp-like 15x1; with "
                             "--backend llm: LOCA-like 15x1 at 8K growth, budget 6K; default: off)")
    parser.add_argument("--backend", choices=("synthetic", "llm"), default="synthetic",
                        help="annotator/editor back-end (default: %(default)s)")
    parser.add_argument("--start", default=None, metavar="PROGRAM", choices=builtin,
                        help="start from this built-in program only (default: react "
                             f"and masking; not a plugin: ContextEvo edits a built-in "
                             f"program's spec); valid: {', '.join(builtin)}")
    parser.add_argument("--spec", default=None, metavar="FILE",
                        help="start from a ProgramSpec JSON file instead (default: none)")
    parser.add_argument("--seed", type=nonnegative_int, default=0,
                        help="base seed: task instances, agent draws and the synthetic "
                             "back-end's mislabels (the split seed stays 15, the paper's; "
                             "default: %(default)s)")
    parser.add_argument("--iterations", type=positive_int, default=2,
                        help="evolution iterations (default: %(default)s)")
    parser.add_argument("--candidates", type=positive_int, default=3,
                        help="candidate changesets evaluated per iteration (default: 3)")
    parser.add_argument("--held-in-fraction", default=None, metavar="F",
                        type=float_in(0.0, 1.0, lo_open=True, hi_open=True),
                        help="share of tasks held in (default: 76/174, the paper's split)")
    parser.add_argument("--mislabel", type=fraction, default=0.2,
                        help="synthetic back-end mislabel rate (default: %(default)s)")
    parser.add_argument("--no-ablations", action="store_true",
                        help="skip the ablations and baselines (the llm back-end always "
                             "skips them; default: off)")
    parser.add_argument("--surfaces", nargs="+", choices=SURFACES, action=Distinct,
                        default=None,
                        metavar="SURFACE",
                        help="surfaces the harness adapter exposes to the editor; edits "
                             "to others are discarded and counted (default: all): "
                             + ", ".join(SURFACES))
    parser.add_argument("--ef-seeds", type=nonnegative_int, default=5,
                        help="seeds of the ContextEvo vs evidence-free comparison from "
                             "the first start on both task sets (0: skip; the llm "
                             "back-end skips it; default: %(default)s)")
    parser.add_argument("--llm-calls", type=positive_int, default=150,
                        help="model-call budget of the llm back-end (default: %(default)s)")
    parser.add_argument("--base-url", type=base_url, default=None,
                        help="OpenAI-compatible endpoint (default: the embedded model, "
                             "served locally for the run)")
    parser.add_argument("--model", default=None, help="model name at --base-url (default: the endpoint's)")
