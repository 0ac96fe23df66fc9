"""The registry's fit/predict split (issue 30): every VISTA number is a cell with a role,
the fit cells are the baselines' and Table 5's numbers, the predict cells VISTA's own,
and what a fitting routine is handed holds no predict number."""

from __future__ import annotations

import dataclasses
import json

import pytest

from experiments.claims.records import CellValues, Paper, PaperNumber, Role
from experiments.claims.registry import REGISTRY, Registry
from experiments.claims.registry import vista as V

# the issue's own lists (issue 30, "Simulation-based inference"), written here from its
# text rather than read from the registry: what must be fit and what must be predicted
ISSUE_FIT = {84.0, 22.7, 3.51e6, 1.26, 1.02, 52.0, 0.43, 0.84}
ISSUE_PREDICT = {86.7, 50.7, 38, 2.86e6, 0.93, 58.0, 27, 28, 69, 105, 255, 57}


def test_the_issues_fit_numbers_are_fit_and_its_predictions_are_predict():
    fit = {c.value for c in REGISTRY.fit_cells()}
    predict = {c.value for c in REGISTRY.predict_cells()}
    assert ISSUE_FIT <= fit
    assert ISSUE_PREDICT <= predict
    assert not ISSUE_PREDICT & fit, "a VISTA number among the fitted observations"


def test_fit_and_predict_partition_the_cells_and_fit_holds_no_prediction():
    cells = REGISTRY.cells()
    fit, predict = REGISTRY.fit_cells(), REGISTRY.predict_cells()
    assert {c.id for c in fit} | {c.id for c in predict} == {c.id for c in cells}
    assert not {c.id for c in fit} & {c.id for c in predict}
    assert all(c.role is Role.FIT for c in fit)
    assert all(c.role is Role.PREDICT for c in predict)
    # every table cell a claim uses has a declared role, and every declared role is used
    used = {c.id for c in cells}
    declared = {f"{n}:{k}" for n, (t, _) in V.TABLES.items() for k in t}
    assert used <= declared
    assert set(V.ROLES) == set(V.TABLES)
    for name, (table, _) in V.TABLES.items():
        assert set(V.ROLES[name]) == set(table), name


def test_every_vista_number_has_a_cell_and_its_value_is_the_claims():
    for claim in REGISTRY:
        cells = claim.number.cells
        if claim.paper is Paper.VISTA:
            assert set(cells) == set(claim.number.values), claim.id
        else:  # ContextEvo, Evo-Harness: no role (module docstring of the registry)
            assert cells == {}, claim.id
        for label, c in cells.items():
            assert claim.number.values[label] == c.value
            assert V.TABLES[c.id.split(":")[0]][0][c.id.split(":")[1]] == c.value


def _claim(cid, values, paper=Paper.VISTA):
    base = REGISTRY["Fig4-8K"]
    return dataclasses.replace(base, id=cid, paper=paper,
                               number=PaperNumber("x", values, "%", "s"))


def test_a_vista_number_without_a_role_is_refused_and_with_one_accepted():
    with pytest.raises(ValueError, match="need a cell with a role"):
        Registry((_claim("a", {"vista": 86.7}),))
    ok = Registry((_claim("a", CellValues({"vista": V.cell("FIG4", "vista_8k")})),))
    assert [c.id for c in ok.predict_cells()] == ["FIG4:vista_8k"]
    assert ok.fit_cells() == ()
    # a plain dict is fine where the paper's numbers have no role
    Registry((_claim("b", {"x": 1.0}, paper=Paper.CONTEXTEVO),))


def test_one_cell_transcribed_twice_with_two_values_is_refused():
    a = V.cell("FIG4", "react_8k")
    b = dataclasses.replace(a, value=85.0)
    reg = Registry((_claim("a", CellValues({"react": a})),
                    _claim("b", CellValues({"react": b}))))
    with pytest.raises(ValueError, match="FIG4:react_8k differs"):
        reg.cells()


def test_an_unknown_table_or_cell_is_named():
    with pytest.raises(KeyError, match="no table 'FIG99'"):
        V.cell("FIG99", "vista")
    with pytest.raises(KeyError, match="table FIG4 has no cell 'gpt'"):
        V.cell("FIG4", "gpt")


def test_the_scorecard_record_names_each_numbers_role(tmp_path):
    from experiments.claims.judge import judge

    result = judge(REGISTRY["Fig4-128K"], tmp_path)
    row = json.loads(json.dumps(result.as_dict()))
    assert row["paper_roles"] == {"vista": "predict", "react": "fit"}
    assert set(row["paper_roles"]) == set(row["paper_values"])
