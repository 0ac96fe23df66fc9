"""The numeric literals of the episode-changing code that are not world parameters,
each with its reason (read by ``tests/test_episode_literals.py``; issue 31, "Every
number in the table").

An entry is ``(file, scope, value, kind, reason)``: ``scope`` is the enclosing
``Class.function`` (``<module>`` at top level), ``value`` the number as the code
spells it (12 and 12.0 are different entries), ``kind`` one of :data:`KINDS`. One
entry explains every use of that value in that scope; the reason says what each use
is. A literal that is a property of the simulated world (a rate, a size, a skill)
belongs in the world table instead (``sim/world_param.py``), and an entry of kind
``pending`` says which are candidates not yet moved, and why.
"""

#: kind -> what makes such a literal no property of the simulated world
KINDS = {
    "format": "how a value, id, line or text looks; an outcome depends on it only "
              "through equality or a fixed rendering, never on its size",
    "stream": "a label of a random stream or of a common-random-number key: changing "
              "it redraws, the law of every draw stays the same",
    "guard": "a loop guard or a cap that does not bind in a normal episode",
    "cache": "a memo or cache size: speed only (the fast and plain paths are checked "
             "byte-identical in tests/experiments/test_fast_episodes.py)",
    "structure": "the design of the task suite (DESIGN.md's family table and the "
                 "benchmark it mirrors), chosen to produce one pathology per archetype, "
                 "not an uncertain property of agents or tools",
    "validation": "the bound of an input check, raising a clear error outside it",
    "accounting": "a constant of the cost report: it changes reported tokens or "
                  "dollars, never a decision of the agent or the program",
    "variant": "the knob value of a registered program variant, with its source "
               "(the program's own definition)",
    "sweep": "a sweep's levels, the paper's figure axis",
    "math": "a constant of a derived formula (an exponent, a normalisation), fixed "
            "by the arithmetic the docstring derives, not chosen",
    "pending": "a world-parameter candidate not moved yet; the reason says why",
}

_A, _C, _H, _PC = ("sim/agents/synthetic.py", "sim/cost.py", "sim/harness.py",
                   "sim/program_context.py")
_P, _AG, _S = "sim/policies/__init__.py", "sim/policies/agentic.py", \
    "sim/policies/summarize.py"
_B, _BR, _F, _L, _T, _TR = ("sim/tasks/base.py", "sim/tasks/browse.py",
                            "sim/tasks/families.py", "sim/tasks/loca.py",
                            "sim/tasks/tokens.py", "sim/tasks/trajectory_tasks.py")
_SL = "sim/tasks/size_law.py"

ALLOWED = (
    # -- the synthetic agent -----------------------------------------------------------
    (_A, "<module>", 40, "format",
     "_PLACEHOLDER_COST: the agent's reading of what an archived block still costs "
     "(the placeholder's framing, 30 tokens in ProgramContext, plus a short "
     "replacement); a model reads that off its view, it is no skill"),
    (_A, "<module>", 60, "format",
     "_RECOVER_MARGIN: the '[recovered ...]' prefix and the new dashboard row the "
     "agent adds to a refused recovery's stated overshoot"),
    (_A, "perturb", 97, "format",
     "which digit step a wrong value takes: 97 spreads u over the 9 non-zero steps; "
     "any wrong digit is as wrong"),
    (_A, "perturb", 9, "format", "the nine non-zero changes of one decimal digit"),
    (_A, "perturb", 10, "format", "a decimal digit wraps modulo 10"),
    (_A, "_short", 160, "format",
     "the length of a call as an index entry names it (characters), far above the "
     "generators' call texts, so no key is cut"),
    (_A, "_episode_noise", 8192, "stream",
     "size of the per-block common-random-number tables (block ids wrap modulo it; "
     "an episode registers far fewer blocks)"),
    (_A, "_episode_noise", 2, "stream",
     "stream label of the ledger-row misread draws ([seed, 2])"),
    (_A, "_episode_noise", 16, "cache",
     "episode seeds whose noise tables are kept (a sweep job plays one seed)"),
    (_A, "_uniform", 16, "cache",
     "2**16 common-random-number draws kept per process (a job's programs repeat "
     "the same draws)"),
    (_A, "SyntheticAgent.perceived", 8192, "stream",
     "the block's index into the content-noise table (same size as in reset)"),
    (_A, "SyntheticAgent._rows", 8192, "stream",
     "the block's index into the row-misread table (same size as in reset)"),
    (_A, "SyntheticAgent._wrong", 0.5, "stream",
     "a fixed draw for a second perturbation when the first one hit the truth: any "
     "u in [0, 1) gives a value of the same form"),
    # -- cost ledger -------------------------------------------------------------------
    (_C, "<module>", 0.5, "accounting",
     "uncached input price, $/1M tokens (THEORY.md §4, VISTA Table 2)"),
    (_C, "<module>", 0.05, "accounting",
     "cached input price, $/1M tokens (THEORY.md §4, VISTA Table 2)"),
    (_C, "<module>", 3.0, "accounting",
     "output price, $/1M tokens (THEORY.md §4, VISTA Table 2)"),
    (_C, "<module>", 120, "accounting",
     "THINKING_TOKENS: output tokens a call costs besides its visible text (a guess); "
     "it enters output_tokens and the dollar cost only"),
    (_C, "<module>", 14, "cache", "the output-token memo holds 2**14 texts"),
    (_C, "cost_usd", 1000000.0, "format", "prices are per million tokens"),
    # -- harness and program context ---------------------------------------------------
    (_H, "run_episode", 7, "stream",
     "stream label of the program-side generator ([seed, 7]: the summarizer's draws)"),
    (_H, "_play", 40, "guard",
     "actions per task step before the loop stops (a step takes a few context calls "
     "and recoveries; max_context_actions bounds them per turn)"),
    (_H, "_play", 100, "guard", "the loop guard's constant slack (actions)"),
    (_PC, "<module>", 17, "cache", "the shared ledger-row memo holds 2**17 rows"),
    (_PC, "_placeholder_tokens", 14, "cache", "the replacement-count memo holds 2**14 texts"),
    (_PC, "_placeholder_tokens", 30, "format",
     "an archived item's framing in a program's and the agent's view (id, handle, "
     "status) on top of its replacement text; the request's exact total is the "
     "workspace's assembly"),
    # -- programs ----------------------------------------------------------------------
    (_P, "<module>", 0.5, "variant",
     "clearing_loca: LOCA-bench's reset ratio, clear the oldest half"),
    (_P, "<module>", 100, "variant", "masking_openhands: OpenHands' window of 100"),
    (_P, "<module>", 400, "variant",
     "vista_bounded_ledger: the bounded ledger's 400-token cap (issue 14)"),
    (_AG, "ContextFolding.child_to_parent", 1000, "stream",
     "offsets a fold's knowledge-round key from active compression's rounds, so the "
     "two never share the agent's draws"),
    (_S, "SyntheticSummarizer.__call__", 2, "format",
     "m.group(2) is the value's regex group; an inexact paraphrase keeps the first "
     "half of the value then '...' (its probability is the agent's summary_p_garble)"),
    # -- tasks: base, tokens, trajectories ---------------------------------------------
    (_B, "_compiled", 4096, "cache", "compiled fact patterns kept (lru_cache)"),
    (_T, "_vocab_lines", 3, "format",
     "three filler line kinds (log, table row, file entry), three random fields each"),
    (_T, "_vocab_lines", 10000, "format", "range of a filler line's random fields"),
    (_T, "_vocab_lines", 4, "format", "a filler log line has four levels"),
    (_T, "_vocab_lines", 12, "format", "a filler line names one of twelve services"),
    (_T, "_vocab_lines", 32, "format", "instance numbers of a filler service"),
    (_T, "_vocab_lines", 16, "format", "a filler line uses one of sixteen words"),
    (_T, "_vocab_lines", 997, "format", "a filler latency field's range"),
    (_T, "_vocab_lines", 8, "format", "eight filler column names"),
    (_T, "_vocab_lines", 9973, "format", "a filler table cell's range"),
    (_T, "_vocab_lines", 5, "format", "a filler table row has one to five columns"),
    (_T, "LineVocab.__init__", 512, "format",
     "filler lines in the vocabulary (token counts measured once each)"),
    (_T, "LineVocab.__init__", 7, "stream", "the filler vocabulary's seed"),
    (_T, "LineVocab.compose", 1.3, "stream",
     "lines drawn before the cut (30% over the mean's estimate): how many draws, "
     "not which law; the loop extends if short"),
    (_T, "LineVocab.compose", 4, "stream", "the draw count's constant slack"),
    (_T, "default_vocab", 2, "cache", "filler vocabularies kept in memory (lru_cache)"),
    (_TR, "_candidates", 40, "guard",
     "questions examined per type (each check scans the whole stream)"),
    (_TR, "_candidates", 12, "format",
     "a 'line after' question needs a preceding line of at least 12 characters (a "
     "distinctive anchor)"),
    (_TR, "_candidates", 8, "format", "an answer line of 8 to 120 characters"),
    (_TR, "_candidates", 120, "format", "an answer line of 8 to 120 characters"),
    (_TR, "_candidates", 60, "format", "the anchor line as the question quotes it"),
    (_TR, "_candidates", 2, "format", "m.group(2): the field's value group"),
    (_TR, "replay_task", 4, "format",
     "at most one question per type, and there are four types"),
    (_TR, "replay_task", 2, "structure",
     "questions come from the first half of the session, so each is needed later"),
    # -- tasks: the BrowseComp-like generator ------------------------------------------
    (_BR, "<module>", 4000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 8000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 12000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 16000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 24000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 32000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 64000, "sweep", "VISTA Fig. 6 window level (tokens)"),
    (_BR, "<module>", 60, "format",
     "MIN_DOC: the smallest document, a title and a snippet (tokens)"),
    (_BR, "browse_task", 3, "stream", "stream label of the facts ([base_seed, 3, ...])"),
    (_BR, "browse_task", 4, "stream",
     "stream label of the documents ([base_seed, 4, ...])"),
    (_BR, "browse_task", 2, "structure",
     "two or three gold documents per query (2 + query % 2): BrowseComp-like "
     "retrieval-then-synthesis needs more than one"),
    (_BR, "browse_task.entity", 1000, "format", "an entity id has four digits"),
    (_BR, "browse_task.entity", 9999, "format", "an entity id has four digits"),
    (_BR, "browse_task.value", 1000, "format", "a value's four-digit part"),
    (_BR, "browse_task.value", 9999, "format", "a value's four-digit part"),
    (_BR, "browse_task.value", 100, "format", "a value's three-digit part"),
    (_BR, "browse_task.value", 999, "format", "a value's three-digit part"),
    # -- tasks: the LOCA-like families -------------------------------------------------
    (_F, "family_spec", 5, "structure",
     "five archetypes: family i has archetype i % 5 and variant i // 5"),
    (_F, "family_spec", 0.05, "structure",
     "evidence arrives in the first 5% of the results (overflow: early lookups)"),
    (_F, "family_spec", 0.7, "structure", "updates arrive at 70% of the results"),
    (_F, "family_spec", 800, "structure",
     "variant 1's median result (tokens): a mean of about 2K under the size law"),
    (_F, "family_spec", 1600, "structure",
     "variant 2's median result (tokens): a mean of about 4K"),
    (_F, "family_spec", 2600, "structure",
     "variant 3's median result (tokens): a mean of about 6.5K"),
    (_F, "family_spec", 0.6, "structure", "a stale family's updates arrive at 60%"),
    (_F, "family_spec", 0.2, "structure", "a churn family's evidence arrives at 20%"),
    (_F, "family_spec", 3, "structure",
     "a churn family's three intermediate writes need the evidence"),
    (_F, "family_spec", 0.8, "structure", "a late family's evidence arrives at 80%"),
    (_L, "<module>", 5, "structure", "LOCA-bench's 5 seeds per family (75 tasks)"),
    (_L, "<module>", 8000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 16000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 32000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 64000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 128000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 256000, "sweep", "VISTA Fig. 4 growth level (tokens)"),
    (_L, "<module>", 40, "format",
     "_MIN_RESULT: the smallest tool result, about one line with its framing"),
    (_L, "_value", 100, "format", "a decimal value's integer part starts at 100; its cents run 0..99"),
    (_L, "_value", 99999, "format", "a value's upper digit range"),
    (_L, "_value", 10, "format", "a record id takes one of ten prefixes"),
    (_L, "_value", 10000, "format", "a record id's five-digit part"),
    (_L, "_value", 5000, "format", "a row reference's range"),
    (_L, "_value", 500, "format", "a row reference's quantity range (1..499)"),
    (_L, "loca_task", 1000, "validation", "growth must be >= 1000 tokens"),
    (_L, "loca_task", 2, "structure",
     "stream label of the documents ([base_seed, 2, ...]); no result above its share "
     "total / (2 n_facts + 2) nor below 2 x the smallest; linspace's two end points "
     "(the last evidence and 90% of the task) are not uses"),
    (_L, "loca_task.entity", 10, "format", "a record id takes one of ten prefixes"),
    (_L, "loca_task.entity", 1000, "format", "a record id has four digits"),
    (_L, "loca_task.entity", 9999, "format", "a record id has four digits"),
    (_L, "loca_task", 4, "format", "four field names (total, owner id, ...)"),
    (_L, "loca_task", 3, "format", "three value forms (decimal, id, row/qty)"),
    (_L, "loca_task", 100, "structure",
     "a small task's median result is at least 100 tokens"),
    (_L, "loca_task", 16, "structure",
     "a small task's median result is at most 1/16 of its growth (at least about "
     "16 results)"),
    (_L, "loca_task", 5, "format",
     "a distractor's entity uses one of the next five id prefixes"),
    (_L, "loca_task", 0.9, "structure",
     "intermediate writes spread evenly up to 90% of the task (the final answer "
     "comes after)"),
    (_SL, "_shipped", 2, "validation",
     "a law needs at least two shipped sizes (sim/data/result_sizes.csv)"),
    (_SL, "_biased_cdf", 64, "cache",
     "the memo of size-biased CDFs, one per distinct size_sd"),
    (_SL, "draw_size", 0.5, "math",
     "Phi(z) = erfc(-z / sqrt 2) / 2, the standard normal CDF"),
    (_SL, "draw_size", 2.0, "math",
     "Phi(z) = erfc(-z / sqrt 2) / 2, the standard normal CDF"),
    (_L, "bulk_facts", 3, "stream",
     "the label of the late-reuse draws' own stream ([base_seed, 3, family, seed]), "
     "so no other draw of the task moves"),
)
