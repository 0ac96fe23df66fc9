"""The real model under Evo-Harness: the skill text is simply in its prompt.

:class:`LLMSkillAgent` is :class:`sim.agents.llm.LLMAgent` plus the bookkeeping the
loop reads after an episode (skills shown, the answer given, the tokens of the request
it was given on, and its own verdict). The pinned ``<skills>`` block, which the base
agent leaves out of its stream with the other pinned user messages, is appended to the
task statement message, so the model reads it every turn and pays its tokens.
"""

from __future__ import annotations

from sim.agents.llm import LLMAgent
from sim.agents.protocol import ANSWER, Action, View
from sim.evolve.evoharness.select import BLOCK_OPEN
from sim.evolve.evoharness.lesson_agent import unseen_keys
from sim.evolve.evoharness.lessons import parse_block


class LLMSkillAgent(LLMAgent):
    """An :class:`LLMAgent` that shows the skill block; after an episode:
    ``skills_shown``, ``skills_read`` (= shown: a model's reading is not observed),
    ``answer``, ``unseen`` and ``answer_tokens`` (as :class:`SkillAwareAgent`) and
    :attr:`believes_solved`."""

    def reset(self, task, seed: int) -> None:
        super().reset(task, seed)
        self.skills_shown: list[str] = []
        self.skills_read: list[str] = []
        self.answer: dict[str, str] = {}
        self.unseen: tuple[str, ...] = ()
        self.answer_tokens = 0
        self._block = None

    def messages_for(self, view: View, tools: list[dict]) -> list[dict]:
        if self._block is None:
            self._block = next((e.text for e in view.entries if e.status == "pinned"
                                and e.text.startswith(BLOCK_OPEN)), "")
            self.skills_shown = [s[0] for s in parse_block(self._block)]
            self.skills_read = list(self.skills_shown)
        msgs = super().messages_for(view, tools)
        if self._block:
            msgs[1] = {**msgs[1], "content": msgs[1]["content"] + "\n" + self._block}
        return msgs

    def act(self, view: View) -> Action:
        action = super().act(view)
        if action.kind == ANSWER:
            self.answer = dict(action.values)
            self.unseen = unseen_keys(self.task, view, self.answer)
            self.answer_tokens = sum(e.tokens for e in view.entries)
        return action

    @property
    def believes_solved(self) -> bool:
        """Its own verdict: it gave a value for everything it answered."""
        return bool(self.answer) and all(v not in ("", "unknown")
                                         for v in self.answer.values())
