"""The claims registry: every checkable claim of the three papers, one module per
paper, looked up by the paper's own item or by claim id.

Items are named as the paper names them (``"VISTA Fig. 4"``, ``"ContextEvo Table 5"``).

>>> from experiments.claims.registry import REGISTRY
>>> [c.id for c in REGISTRY.item("VISTA Fig. 8")][:2]
['Fig8a-no-archive', 'Fig8a-no-dashboard']

Each VISTA number is a :class:`~experiments.claims.records.Cell` with a role (issue 30):
``fit`` (the baselines' numbers and Table 5's perception numbers, what a world is
fitted to) or ``predict`` (VISTA's own numbers, checked against what that world
predicts). A fitting routine takes :meth:`Registry.fit_cells` and nothing else:

>>> sorted(c.id for c in REGISTRY.fit_cells())[:3]
['FIG4:react_128k', 'FIG4:react_8k', 'FIG4:react_tokens']

ContextEvo's and Evo-Harness's numbers have no cells: their loops run on benchmarks
(SWE-bench, CL-Bench, BrowseComp-Plus with their own models) that the fitted world does
not model, so they are neither observations of it nor predictions from it.
"""

from __future__ import annotations

from typing import Iterator

from experiments.claims.records import Cell, Claim, Paper, Role
from experiments.claims.registry import contextevo, evoharness, vista, vista_more


class Registry:
    """An ordered, validated collection of claims (ids unique)."""

    def __init__(self, claims: tuple[Claim, ...]):
        seen: dict[str, Claim] = {}
        for c in claims:
            if c.id in seen:
                raise ValueError(f"duplicate claim id {c.id!r}")
            seen[c.id] = c
            # every VISTA number carries its role (a number without one could reach a
            # fit unnoticed, or be left out of the predictions)
            if c.paper is Paper.VISTA and set(c.number.cells) != set(c.number.values):
                raise ValueError(f"claim {c.id}: VISTA numbers {sorted(c.number.values)} "
                                 f"need a cell with a role each; cells: "
                                 f"{sorted(c.number.cells)}")
        self._claims = tuple(claims)
        self._by_id = seen

    def __iter__(self) -> Iterator[Claim]:
        return iter(self._claims)

    def __len__(self) -> int:
        return len(self._claims)

    @property
    def items(self) -> tuple[str, ...]:
        """Every paper item with a claim, in registry order (``"VISTA Fig. 4"``, ...)."""
        return tuple(dict.fromkeys(c.item_key for c in self._claims))

    def item(self, key: str) -> tuple[Claim, ...]:
        """The claims of one paper item, e.g. ``"ContextEvo Table 5"``.

        Raises:
            KeyError: naming the known items, for an unknown one.
        """
        hit = tuple(c for c in self._claims if c.item_key == key)
        if not hit:
            raise KeyError(f"no claim for paper item {key!r}; known: "
                           f"{', '.join(self.items)}")
        return hit

    def cells(self, role: Role | None = None) -> tuple[Cell, ...]:
        """Every paper cell the claims use, once each, in registry order; only those
        of ``role`` when given.

        Raises:
            ValueError: when two claims hold different values or roles for one cell
                id (a number transcribed twice).
        """
        out: dict[str, Cell] = {}
        for c in self._claims:
            for x in c.number.cells.values():
                if out.setdefault(x.id, x) != x:
                    raise ValueError(f"cell {x.id} differs between claims: "
                                     f"{out[x.id]} vs {x}")
        return tuple(x for x in out.values() if role is None or x.role is role)

    def fit_cells(self) -> tuple[Cell, ...]:
        """The cells a world is fitted to (role ``fit``): never a ``predict`` one."""
        return self.cells(Role.FIT)

    def predict_cells(self) -> tuple[Cell, ...]:
        """The cells a fitted world is checked against (role ``predict``)."""
        return self.cells(Role.PREDICT)

    def __getitem__(self, claim_id: str) -> Claim:
        """The claim with id ``claim_id``.

        Raises:
            KeyError: for an unknown id.
        """
        if claim_id not in self._by_id:
            raise KeyError(f"no claim {claim_id!r}")
        return self._by_id[claim_id]


#: every claim: VISTA (its two modules), then ContextEvo, then Evo-Harness
REGISTRY = Registry(vista.CLAIMS + vista_more.CLAIMS + contextevo.CLAIMS
                    + evoharness.CLAIMS)
