"""The packages' import graph: no circle, and no import that runs up a layer.

Every ``import`` counts, at the top of a module or inside a function (a lazy
import that closes a circle is still a circle), type-checking ones too. A
compiled module (a ``.pyx``) is a node that imports nothing, since ``ast``
cannot read it. The layers follow ``DESIGN.md`` (data flows down): the
table below is the one place they are written; a new module of ``setgames``
gets a line in it.
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from pathlib import Path

from setgames import registry

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("tethsi_env", "bharg_env", "tusac_env")
PACKAGES = ("setgames", *GAMES)

# Lowest first. A module sits in the layer of its longest entry (the entry itself or a
# module under it); "{game}" stands for each game package, and "{game}" alone takes the
# game's modules that no other entry names: its rules and what they are built of.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cards and kernels", ("setgames._version", "setgames._seedhash", "setgames.bits", "setgames.cards",
                           "setgames.checks", "setgames.kernels", "setgames.registry", "{game}.descriptor")),
    ("the rules' core", ("setgames.actions", "setgames.spec", "setgames.seeding", "setgames.validate",
                         "setgames.obs", "setgames.history", "setgames.game")),
    ("engine and search core", ("setgames.engine", "setgames.search", "setgames.testing")),
    ("records and pictures", ("setgames.records", "setgames.draw")),
    ("a game's rules", ("{game}",)),
    # Below the envs: the single-agent views play the other seats with bots.
    ("compiled engines and bots", ("{game}._engine", "{game}._structure", "{game}._batch", "{game}._search",
                                   "{game}._greedy",
                                   "setgames.bots", "{game}.greedy", "{game}.levels")),
    # A package's __init__ re-exports its env (setgames's registers the Gymnasium ids).
    ("envs and batched views", ("setgames.aec", "setgames.batch", "setgames.wrappers", "setgames.gym_envs",
                                "={package}", "{game}.env")),
    ("arena, play session and the subcommands' shared parts", ("setgames.arena", "setgames.play",
                                                                "setgames.usage", "{game}.table")),
    ("learners and front ends", ("setgames.learn", "setgames.web", "setgames.bench", "setgames.docs")),
    ("the command line", ("setgames.cli",)),
)


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name (a package by its own name)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")) + sorted((root / package).rglob("*.pyx")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.setdefault(name, path)
    return found


def _targets(node: ast.Import | ast.ImportFrom, here: str, is_package: bool, known: dict) -> list[str]:
    """The modules an import statement in module ``here`` loads (the nearest known one)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = here.split(".")
            # `from . import x` in a package's __init__ means the package itself, elsewhere its parent
            keep = len(parts) - node.level + (1 if is_package else 0)
            base = ".".join(parts[:keep] + ([base] if base else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    out = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != here:
            out.append(name)
    return out


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports anywhere in its code."""
    files = module_files(root, packages)
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name].update(_targets(node, name, path.name == "__init__.py", files))
    return graph


@functools.cache
def _repo_graph() -> dict[str, frozenset[str]]:
    return {name: frozenset(deps) for name, deps in import_graph().items()}


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted.

    Two modules are in one component when each reaches the other; a reachability
    walk from every module is quadratic, and cheap for a few hundred modules.
    """
    reach = {v: _reach(graph, v) for v in graph}
    found, done = [], set()
    for v in sorted(graph):
        if v in done or v not in reach[v]:
            continue
        component = sorted(w for w in reach[v] if v in reach[w])
        done.update(component)
        found.append(component)
    return found


def cycle_through(graph: dict[str, set[str]], start: str) -> list[str]:
    """A shortest import path from ``start`` back to itself (``[start, ..., start]``)."""
    back = {w: start for w in graph[start]}
    todo = deque(sorted(graph[start]))
    while todo:
        v = todo.popleft()
        if v == start:
            break
        for w in sorted(graph[v] - back.keys()):
            back[w] = v
            todo.append(w)
    path = [start]
    while len(path) == 1 or path[-1] != start:
        path.append(back[path[-1]])
    return path[::-1]


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``module``'s layer (KeyError: it has none)."""
    best = (-1, -1)
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if entry == "={package}":
                if module in PACKAGES:
                    return index
                continue
            for name in ([entry.format(game=g) for g in GAMES] if "{game}" in entry else [entry]):
                if (module == name or module.startswith(name + ".")) and len(name) > best[0]:
                    best = (len(name), index)
    if best[1] < 0:
        raise KeyError(f"{module} has no layer: give it a line in LAYERS")
    return best[1]


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a module to one of a higher layer, as a readable line."""
    out = []
    for src in sorted(graph):
        for dst in sorted(graph[src]):
            if layer_of(dst) > layer_of(src):
                out.append(f"{src} ({LAYERS[layer_of(src)][0]}) imports {dst} ({LAYERS[layer_of(dst)][0]})")
    return out


def test_the_finder_finds_a_circle_of_two_modules_and_names_it():
    toy = {"a": {"b"}, "b": {"a", "c"}, "c": set(), "d": {"a"}}
    assert circles(toy) == [["a", "b"]]
    assert cycle_through(toy, "a") == ["a", "b", "a"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_reads_relative_dotted_and_function_level_imports(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("from . import a\n")
    (tmp_path / "p" / "a.py").write_text("def f():\n    import p.b\n")
    (tmp_path / "p" / "b.py").write_text("from .a import f\nfrom p import _c\n")
    (tmp_path / "p" / "_c.pyx").write_text("import p\n")
    graph = import_graph(tmp_path, ("p",))
    assert graph == {"p": {"p.a"}, "p.a": {"p.b"}, "p.b": {"p.a", "p._c"}, "p._c": set()}
    assert circles(graph) == [["p.a", "p.b"]]


def test_no_import_circle():
    graph = {name: set(deps) for name, deps in _repo_graph().items()}
    found = circles(graph)
    assert not found, "import circles: " + "; ".join(
        " -> ".join(cycle_through(graph, component[0])) + f" (component {', '.join(component)})"
        for component in found)


def test_every_module_has_a_layer_and_no_import_runs_up():
    graph = _repo_graph()
    for module in graph:
        layer_of(module)
    assert upward(graph) == []
    assert upward({"setgames.learn.cli": {"setgames.cli"}}), "the check sees a learner import the top"


def _strings_naming_a_game(path: Path) -> list[str]:
    """The string constants of a module, docstrings apart, that name a game package's module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)}
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and any(node.value.startswith((f"{g}.", f"{g}:")) or node.value == g for g in GAMES)]


def test_setgames_imports_no_game_and_only_the_registry_names_them():
    # The registry loads each game's descriptor from a "module" string (importlib, on first
    # use); the descriptors name the rest, so no import in setgames reaches a game package.
    assert sorted(registry.BUILTIN_DESCRIPTORS.values()) == sorted(f"{g}.descriptor" for g in GAMES)
    graph = _repo_graph()
    into_games = [f"{src} imports {dst}" for src in sorted(graph) if src.split(".")[0] == "setgames"
                  for dst in sorted(graph[src]) if dst.split(".")[0] in GAMES]
    assert into_games == []
    named = [line for path in sorted((ROOT / "setgames").rglob("*.py"))
             if path != ROOT / "setgames" / "registry.py" for line in _strings_naming_a_game(path)]
    assert named == []
