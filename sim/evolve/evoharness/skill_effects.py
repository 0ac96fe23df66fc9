"""How a skill changes a synthetic agent: an explicit model (Evo-Harness §3; ContextEvo
§6 "three limits of skill evolution").

The agent sees skills only as text: the pinned ``<skills>`` block in its view
(:func:`sim.evolve.evoharness.select.skill_block`). :class:`SkillAwareAgent` is a
:class:`~sim.agents.synthetic.SyntheticAgent` that parses that block; nothing is keyed
by a program or an arm name, and with no skill block it acts exactly like its base
agent (same common random numbers). A real model simply gets the block in its prompt.

The model, per skill in the block (each draw a common random number keyed by the
episode seed, the skill name and the decision point):

1. **Reading** (invocation gap). At a decision point the agent reads a skill with
   ``P = read_max * (1 - pressure_drop * min(1, u))``, ``u`` = its perceived request
   tokens / budget: the fuller the context, the less likely the skill is used.
   Context directives are read at the first view showing the block (low pressure);
   procedural directives at the final answer (high pressure in long tasks).
2. **Following**. A read directive is followed with probability ``follow``.
3. **What a followed directive changes** (the body's ``do:`` word):

   * ``verify`` (general): re-check values against their evidence lines before the
     answer; removes a *verification slip* (one kind of the profile's context-free
     failure, ``base_error``);
   * ``rule <topic>`` (topic): apply the task type's own gotcha; removes a *rule slip*
     in a task of that topic; in another topic's task it is a misapplied rule that
     causes a slip with probability ``misapply`` (a wrong skill hurting);
   * ``recover``: three more recovery reads per needed value before answering;
   * ``keep``: never archive a tool result that shows a needed evidence line;
   * ``notes``: restate every evidence line seen (``p_note`` = 1).

   Any other directive is read and ignored (it only costs its tokens).
4. **Slips**. Whether the episode has a context-free failure is the base agent's own
   draw (``failed_base``, rate ``Profile.base_error``); its kind is ``verify`` with
   probability ``general_share`` else ``rule``, a second keyed draw. Only the
   matching directive can remove it, so topic skills and general skills fix
   different failures (Evo-Harness Table 3's general-only / topic-only ablations).

A skill holds one or more ``do:`` lines (a merged skill keeps every directive); the
agent reads the skill once per decision point and then acts on each of its directives
(each followed by its own draw), so merging two skills never silences one of them.

Parameters are the agent's (:class:`SkillUse`), the same for every profile: profiles
differ only in the capabilities :class:`~sim.agents.profiles.Profile` documents (slip
rate, note-taking, size perception), so how much a stronger solver gains from the
same guidance (Evo-Harness Table 2) is an outcome of those, not a per-profile follow
rate. The defaults are an assumption with prior ranges (``SKILL_USE_PRIOR``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sim.agents.protocol import Action, View
from sim.agents.synthetic import SyntheticAgent, find_value
from sim.evolve.evoharness.select import BLOCK_OPEN

#: directives with an effect (others are inert text)
DIRECTIVES = ("verify", "rule", "recover", "keep", "notes")
CONTEXT_DIRECTIVES = frozenset({"recover", "keep", "notes"})
_HEAD = re.compile(r"^## skill (\S+) \((general|topic (\S+))\)$")


@dataclass(frozen=True)
class SkillUse:
    """A synthetic agent's use of skill text (probabilities in [0, 1]).

    Attributes:
        read_max: P(read a skill at a decision point with an empty context).
        pressure_drop: how much a full context lowers it (P falls linearly in the
            request's fill fraction, to ``read_max * (1 - pressure_drop)`` at full).
        follow: P(follow a directive once read).
        misapply: P(a followed topic rule of another topic causes a slip).
        general_share: P(a context-free failure is a verification slip, not a rule
            slip).

    Raises:
        ValueError: naming a field outside [0, 1].
    """

    read_max: float = 0.8
    pressure_drop: float = 0.6
    follow: float = 0.7
    misapply: float = 0.2
    general_share: float = 0.5

    def __post_init__(self):
        for f in ("read_max", "pressure_drop", "follow", "misapply", "general_share"):
            v = getattr(self, f)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"SkillUse.{f} must be in [0, 1], got {v!r}")


#: prior ranges of the :class:`SkillUse` fields (our assumption: the papers report no
#: reading or following rates; instruction-following benchmarks put frontier models'
#: per-instruction compliance at roughly 0.6-0.9, e.g. IFEval, Zhou et al. 2023)
SKILL_USE_PRIOR = {"read_max": (0.6, 0.95), "pressure_drop": (0.3, 0.8),
                   "follow": (0.5, 0.9), "misapply": (0.05, 0.4),
                   "general_share": (0.3, 0.7)}


def parse_block(text: str) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
    """``(name, topic or "", ((directive, argument), ...))`` for each skill in a
    block's text: every ``do:`` line of the skill, in order."""
    out = []
    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            out.append([m.group(1), m.group(3) or "", []])
            continue
        body = line.strip().lstrip("-* ").strip()
        if out and body.startswith("do:"):
            words = body[3:].split()
            if words:
                out[-1][2].append((words[0], words[1] if len(words) > 1 else ""))
    return [(n, t, tuple(d)) for n, t, d in out]


def unseen_keys(task, view: View, answer) -> tuple[str, ...]:
    """The keys of ``answer`` whose evidence line (``task.facts[key]``) the final
    request ``view`` does not show: what a trajectory's last request tells about
    where a value was lost."""
    return tuple(k for k in answer if find_value(view.entries, task.facts[k]) is None)


class SkillAwareAgent(SyntheticAgent):
    """A :class:`SyntheticAgent` that reads the pinned skill block (module docstring).

    Args:
        profile: profile or name (as the base agent).
        use: a :class:`SkillUse` (default :class:`SkillUse()`, every profile).
        channel: as the base agent.

    After an episode: ``skills_shown`` (names in the block), ``skills_read``,
    ``followed`` (directives followed), ``slip`` (``""``, ``"verify"`` or ``"rule"``),
    ``answer`` (the final values given), ``unseen`` (answered keys whose evidence line
    was not in the final request: what its trajectory shows) and ``believes_solved`` (its own view: every
    value found, none answered unknown).
    """

    def __init__(self, profile="medium", use: SkillUse | None = None,
                 channel: str = "auto"):
        super().__init__(profile, channel)
        self.use = use or SkillUse()
        self.base_profile = self.profile

    def reset(self, task, seed: int) -> None:
        self.profile = self.base_profile
        super().reset(task, seed)
        self.topic = task.family
        self.skills_shown: list[str] = []
        self.skills_read: list[str] = []
        self.followed: list[str] = []
        self._skills: list | None = None
        self._final_done = False
        self.keep_evidence = False
        self.answer: dict[str, str] = {}
        self.unseen: tuple[str, ...] = ()
        self.slip = ""
        if self.failed_base:
            self.slip = ("verify" if self._u("slip-kind") < self.use.general_share
                         else "rule")

    # -- reading the block -------------------------------------------------------------
    def _pressure(self, view: View) -> float:
        return min(1.0, self.total(view) / max(1, view.budget))

    def _reads(self, view: View, name: str, point: str) -> bool:
        p = self.use.read_max * (1.0 - self.use.pressure_drop * self._pressure(view))
        read = self._u("skill-read", name, point) < p
        if read and name not in self.skills_read:
            self.skills_read.append(name)
        return read

    def _follows(self, name: str, point: str) -> bool:
        return self._u("skill-follow", name, point) < self.use.follow

    def _first_view(self, view: View) -> None:
        text = next((e.text for e in view.entries
                     if e.status == "pinned" and e.text.startswith(BLOCK_OPEN)), "")
        self._skills = parse_block(text)
        self.skills_shown = [s[0] for s in self._skills]
        p = self.profile
        for name, _topic, ds in self._skills:
            ctx = [(d, a) for d, a in ds if d in CONTEXT_DIRECTIVES]
            if not ctx or not self._reads(view, name, "start"):
                continue
            for d, _arg in ctx:
                if not self._follows(name, f"start:{d}"):
                    continue
                self.followed.append(d)
                if d == "recover":
                    p = p.with_(max_attempts=p.max_attempts + 3)
                elif d == "notes":
                    p = p.with_(p_note=1.0)
                elif d == "keep":
                    self.keep_evidence = True
        self.profile = p

    def _final(self, view: View) -> None:
        """Procedural directives, read at the answer."""
        todo = []
        for name, topic, ds in self._skills:
            proc = [(d, a) for d, a in ds if d in ("verify", "rule")]
            if proc and self._reads(view, name, "final"):
                todo += [(name, topic, d, a) for d, a in proc
                         if self._follows(name, f"final:{d}:{a}")]
        for name, topic, d, arg in todo:
            self.followed.append(d)
            target = arg or topic
            if d == "verify" and self.slip == "verify":
                self.slip, self.failed_base = "", False
            elif d == "rule" and target == self.topic and self.slip == "rule":
                self.slip, self.failed_base = "", False
            elif d == "rule" and target != self.topic and not self.failed_base \
                    and self._u("misapply", name) < self.use.misapply:
                self.slip, self.failed_base = "rule", True

    # -- behaviour -------------------------------------------------------------------
    def _candidates(self, view, protect=None):
        cands = super()._candidates(view, protect)
        if not self.keep_evidence:
            return cands
        facts = self.task.facts.values()
        return [e for e in cands if not any(f.extract(e.text) is not None for f in facts)]

    def act(self, view: View) -> Action:
        if self._skills is None:
            self._first_view(view)
        if self.task.steps[self.pos].kind == "final" and not self._final_done:
            self._final_done = True
            self._final(view)
        action = super().act(view)
        if action.kind == "answer":
            self.answer = dict(action.values)
            self.unseen = unseen_keys(self.task, view, self.answer)
        return action

    @property
    def believes_solved(self) -> bool:
        """The agent's own verdict: it found every value it answered with."""
        return bool(self.answer) and all(v != "unknown" for v in self.answer.values())
