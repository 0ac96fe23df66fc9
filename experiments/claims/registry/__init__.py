"""The claims registry: every checkable claim of the three papers, one module per
paper, looked up by the paper's own item or by claim id.

Items are named as the paper names them (``"VISTA Fig. 4"``, ``"ContextEvo Table 5"``).

>>> from experiments.claims.registry import REGISTRY
>>> [c.id for c in REGISTRY.item("VISTA Fig. 8")][:2]
['Fig8a-no-archive', 'Fig8a-no-dashboard']
"""

from __future__ import annotations

from typing import Iterator

from experiments.claims.records import Claim
from experiments.claims.registry import contextevo, evoharness, vista


class Registry:
    """An ordered, validated collection of claims (ids unique)."""

    def __init__(self, claims: tuple[Claim, ...]):
        seen: dict[str, Claim] = {}
        for c in claims:
            if c.id in seen:
                raise ValueError(f"duplicate claim id {c.id!r}")
            seen[c.id] = c
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

    def __getitem__(self, claim_id: str) -> Claim:
        """The claim with id ``claim_id``.

        Raises:
            KeyError: for an unknown id.
        """
        if claim_id not in self._by_id:
            raise KeyError(f"no claim {claim_id!r}")
        return self._by_id[claim_id]


#: every claim: VISTA, then ContextEvo, then Evo-Harness
REGISTRY = Registry(vista.CLAIMS + contextevo.CLAIMS + evoharness.CLAIMS)
