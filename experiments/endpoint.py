"""The real-model endpoint an experiment runs against: the one given by
``--base-url`` (an OpenAI-compatible server), else the embedded model
(:mod:`sim.agents.llm_server`) served on 127.0.0.1 for the duration.

Shared by every experiment with a real-model back-end (VISTA's perception,
presentation and pressure probes, the calibration, ContextEvo and Evo-Harness with
``--backend llm``); it was ``experiments.vista.perception.endpoint``.
"""

from __future__ import annotations


def endpoint(args):
    """A context manager yielding ``(LLMSettings, sidecar record)``: ``--base-url``
    as given, else the embedded model served locally for the duration.

    Args:
        args: the parsed options: ``base_url`` (None: the embedded model),
            ``model``, ``seed``, and for the embedded model ``n_ctx`` (tokens,
            default :data:`sim.agents.llm_server.N_CTX`) and ``n_threads`` when present.
    """
    import contextlib

    from sim.agents.llm import LLMSettings

    @contextlib.contextmanager
    def cm():
        if args.base_url:
            s = LLMSettings.from_env(base_url=args.base_url, model=args.model,
                                     seed=args.seed)
            yield s, {"model": s.model, "base_url": s.base_url, "server": "external",
                      "structured": s.structured}
            return
        from sim.agents.llm_server import N_CTX, local_server

        with local_server(n_ctx=getattr(args, "n_ctx", N_CTX),
                          n_threads=getattr(args, "n_threads", None)) as info:
            s = LLMSettings(base_url=info.base_url, model=info.model, seed=args.seed,
                            max_tokens=80, timeout=600)
            yield s, {**info.describe(), "structured": s.structured}

    return cm()
