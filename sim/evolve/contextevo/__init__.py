"""ContextEvo: a context program evolved from trajectories (ContextEvo paper, §4-6).

The grammar of eight intervention points (:mod:`.spec`, compiled by :mod:`.compile`),
traced episodes (:mod:`.trace`), case cards and paginated review (:mod:`.cards`,
:mod:`.review`), the judge's screens and decision-point replay (:mod:`.judge`,
:mod:`.replay`), the constrained editor (:mod:`.editor`), the reviewer back-ends
(:mod:`.backends`) and the held-in / held-out loop (:mod:`.loop`).
"""
