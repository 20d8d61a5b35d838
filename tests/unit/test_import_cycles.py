"""No import cycle between texbudget's modules (issue 22: modules along their seams).

The graph has an edge A → B for every ``import`` or ``from … import`` statement in module A
that names module B of the package, wherever the statement is: at the top, inside a function
or method (a deferred import is still a dependency: it runs the first time the function
does, and a cycle through it is a cycle all the same, only found later), or under
``if TYPE_CHECKING:``. ``from texbudget.x import name`` is an edge to ``texbudget.x.name``
when that is a module, else to ``texbudget.x``; relative imports are resolved the same way.

Not counted: the implicit import of a package's ``__init__`` that importing one of its
submodules runs first. The ``__init__`` finishes before the submodule's own code runs, so
that order alone is never circular; an ``__init__`` that imports a submodule which imports
the package back by name is caught by the explicit edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "texbudget"


def modules(package: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package's ``__init__``) for every module under ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        init = parts[-1] == "__init__"
        if init:
            parts.pop()
        out[".".join(parts)] = (path, init)
    return out


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its body."""
    mods = modules(package)
    root = package.name

    def owner(name: str) -> str | None:
        """The module ``name`` is, or the nearest package or module it is in."""
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, (path, init) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [owner(a.name) for a in node.names if a.name.split(".")[0] == root]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name if init else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                if source.split(".")[0] != root:
                    continue
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in mods else owner(source) for a in node.names]
            graph[name].update(t for t in targets if t is not None and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or round a loop (the strongly
    connected components of more than one module; Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def test_no_module_of_texbudget_imports_itself_round_a_loop():
    graph = import_graph(PACKAGE)
    found = cycles(graph)
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_graph_holds_top_level_deferred_and_relative_imports():
    # the walk sees what the cycle test relies on, so an empty graph cannot pass it
    graph = import_graph(PACKAGE)
    assert len(graph) > 80
    assert "texbudget.engine" in graph["texbudget.policy.decision"]  # from … import at the top
    assert "texbudget.engine" in graph["texbudget.readers.godot"]
    assert {"texbudget.readers.godot", "texbudget.readers.unity"} <= graph["texbudget.readers.sidecars"]  # inside a function
    assert "texbudget.policy.profiles" in graph["texbudget.budget.settings"]  # inside a function
    assert "texbudget.tui.app" not in graph["texbudget.tui.screens.main"]
    assert "texbudget.tui.host" in graph["texbudget.tui.screens.asset"]


def test_a_cycle_through_a_function_local_import_is_found(tmp_path):
    pkg = tmp_path / "texbudget"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from texbudget.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .c import g\n    return g\n")
    (pkg / "sub" / "c.py").write_text("def g():\n    import texbudget.a\n")
    (pkg / "d.py").write_text("from texbudget import a\n")  # into the loop, not part of it
    graph = import_graph(pkg)
    assert graph["texbudget.sub.b"] == {"texbudget.sub.c"}
    assert graph["texbudget.sub.c"] == {"texbudget.a"}
    assert cycles(graph) == [["texbudget.a", "texbudget.sub.b", "texbudget.sub.c"]]
    (pkg / "sub" / "c.py").write_text("def g():\n    import json\n")
    assert cycles(import_graph(pkg)) == []
