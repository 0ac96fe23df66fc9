"""Evo-Harness: online harness learning that compiles executions into general and topic
skills under a budget (Evo-Harness paper, §3-4).

Skills and the capped harness file (:mod:`.skills`, :mod:`.skill_harness`), caps from
the lesson catalogue (:mod:`.budget`), the measured similarity (:mod:`.similarity`),
retrieval (:mod:`.select`), proposal from executions by level-free rules
(:mod:`.propose`) or by a model as reflector (:mod:`.reflector`), curation under the caps (:mod:`.curate`), the skill-following agents
(:mod:`.lessons`, :mod:`.lesson_agent`, :mod:`.uptake`, :mod:`.llm_skills`) and the online / train-split streams
(:mod:`.online`).
"""
