"""Imports inside ``sim`` point one way (issue 13, "Architecture"): the episode loop
sits on top, agents and policies below it, and nothing imports back up.

Every import statement of every module is read with :mod:`ast`, including imports
inside functions (a lazy import is still a dependency).
"""

import ast
from pathlib import Path

SIM = Path(__file__).resolve().parents[1] / "sim"

#: component -> layer; a module may import its own component or a lower layer only
LAYERS = {
    "rng": 0, "data": 0,
    # NumPy's PCG64 streams inside numba kernels, seeded from sim.rng's seed words
    "pcg64": 0,
    # loading MODULE:ATTRIBUTE and entry points for the program and agent registries
    "plugin_spec": 0,
    # a dataclass field that is also a world-table row (tasks and agents declare them)
    "world_param": 0,
    # a dict and a set that record their changed keys (the memoised view reads them)
    "tracked": 0,
    "games": 1, "workspace": 1,
    "tasks": 2, "token_cache": 2,
    "cost": 3,
    "agents": 4, "policies": 4,
    "program_context": 5,
    # one episode's workspace set-up (budget, guard, prompt), read by the harness
    "episode": 5,
    # the synthetic world's parameter table builds agent profiles and task parameters
    "world": 5,
    "harness": 6,
    # evolution loops (ContextEvo, Evo-Harness) drive episodes: above the harness
    "evolve": 7,
    # plugin programs and agents: checked by playing an episode (above the harness)
    "plugins": 7,
}


def _component(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "sim" or len(parts) < 2:
        return None
    return parts[1]


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, imported sim component)`` for every absolute import in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names
                                     if node.module == "sim"]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            comp = _component(name)
            if comp is not None:
                out.append((node.lineno, comp))
    return out


def violations(root: Path = SIM) -> list[str]:
    """Every import from a module to its own layer's other components or upward."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        own = rel.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        if own not in LAYERS:
            bad.append(f"{rel}: component {own!r} has no layer in tests/test_layers.py")
            continue
        for line, comp in imports_of(path):
            if comp == own:
                continue
            if comp not in LAYERS or LAYERS[comp] >= LAYERS[own]:
                bad.append(f"{rel}:{line} imports sim.{comp} (layer "
                           f"{LAYERS.get(comp)}) from layer {LAYERS[own]}")
    return bad


def test_imports_point_down():
    assert violations() == []


def test_checker_catches_an_upward_import(tmp_path):
    # the checker itself must be able to fail: an agent importing the harness
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "bad.py").write_text(
        "def f():\n    from sim.harness import run_episode\n")
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "bad.py").write_text("import sim.agents.synthetic\n")
    (tmp_path / "cost.py").write_text("from sim import program_context\n")
    found = violations(tmp_path)
    assert len(found) == 3, found
    assert any("agents/bad.py:2 imports sim.harness" in v for v in found)


def test_harness_exports_only_its_own_names():
    """The harness re-exports nothing (issue 36): a name has one import path, the
    module that defines it (sim.cost, sim.program_context, sim.token_cache ...)."""
    import sim.harness

    assert sorted(sim.harness.__all__) == ["run_episode", "scratch_dir"]
    for name in sim.harness.__all__:
        assert getattr(sim.harness, name).__module__ == "sim.harness"
