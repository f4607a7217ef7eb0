#!/usr/bin/env python3
"""The package's wings as its imports show them: read every ``import`` of vizad/ (at module
level and inside functions, leaving out ``if TYPE_CHECKING:`` blocks), find import circles,
and draw the wings and the imports between them.

    .venv/bin/python tools/architecture.py      # rewrites docs/architecture.dot and .svg

The layers themselves are import-linter's contracts (pyproject.toml, ``lint-imports`` in
``make check``); the diagram's boxes are the wings of those contracts and the modules of the
top level. tests/test_architecture.py runs import-linter, the circle check, and fails when the
committed diagram is not the one the code gives.
"""

from __future__ import annotations

import ast
import tomllib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vizad"
PYPROJECT = ROOT / "pyproject.toml"
DIAGRAM = ROOT / "docs" / "architecture.dot"

#: Where import circles are allowed: the needle compatibility package mirrors needle's own
#: modules, which import each other.
CIRCLES_ALLOWED = ("vizad.classroom.courses.needle",)


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _runtime_nodes(tree: ast.AST):
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (iteratively)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports() -> dict[str, set[str]]:
    """{module: the vizad modules it imports}."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                submodules = [f"{target}.{a.name}" for a in node.names]
                submodules = [s for s in submodules if s in known]
                if submodules:
                    found.update(submodules)
                elif target in known:
                    found.add(target)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in known)
        found.discard(name)
        edges[name] = found
    return edges


def layer_rows() -> list[tuple[str, list[str]]]:
    """The diagram's boxes, lowest first: the wings of import-linter's "wings" contract
    (pyproject.toml; the errors, which every wing raises, with the engine), then the modules of
    the top level that use them."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (wings,) = [c for c in config["contracts"] if c["id"] == "wings"]
    rows = []
    for layer in reversed(wings["layers"]):
        rows += [(m.strip().removeprefix("vizad."), [m.strip()]) for m in layer.split("|")]
    rows[0][1].append("vizad.errors")
    rows += [
        ("op authors' door", ["vizad.extend"]),
        ("command line", ["vizad.cli", "vizad.__main__", "vizad.expr"]),
    ]
    return rows + [("front door", ["vizad"])]


def layers() -> list[list[str]]:
    """The modules (or packages) of each box, lowest first."""
    return [modules for _, modules in layer_rows()]


def layer_of(module: str, table: list[list[str]]) -> int:
    """The index of the box holding ``module`` (its longest listed prefix)."""
    best, depth = -1, -1
    for k, row in enumerate(table):
        for entry in row:
            if (module == entry or module.startswith(entry + ".")) and len(entry) > depth:
                best, depth = k, len(entry)
    if best < 0:
        raise ValueError(f"{module} is in no box of the diagram: add it to tools/architecture.py")
    return best


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles (strongly connected components of more than one module) outside
    :data:`CIRCLES_ALLOWED`; iterative Tarjan."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            for target in pending:
                if target not in edges or target == "vizad":
                    continue
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 and not all(
                        m.startswith(CIRCLES_ALLOWED) for m in component
                    ):
                        found.append(sorted(component))
    return found


def diagram(edges: dict[str, set[str]], table: list[list[str]], names: list[str]) -> str:
    """DOT source of the layers (one box each, lowest at the bottom, listing its modules) and
    their imports: an arrow from a layer to each layer it imports, leaving out the arrows that
    a path of other arrows already implies (the imports' transitive reduction)."""
    arrows = set()
    for source, targets in edges.items():
        for target in targets:
            if target == "vizad" or source.startswith(target + "."):
                continue
            a, b = layer_of(source, table), layer_of(target, table)
            if a != b:
                arrows.add((a, b))
    lines = [
        "// made by tools/architecture.py from the package's imports: do not edit",
        "digraph vizad {",
        "  rankdir=TB; nodesep=0.3; ranksep=0.3; splines=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#f4f6fb", fontname="Helvetica",',
        '        fontsize=10, margin="0.12,0.04"];',
        '  edge [color="#5a6b8c60", arrowsize=0.5];',
    ]
    for k, row in enumerate(table):
        modules = "  ".join(e.removeprefix("vizad.") if e != "vizad" else "vizad" for e in row)
        label = f"<<b>{names[k]}</b><br/>{modules}>"
        lines.append(f"  layer{k} [label={label}];")
    arrows = _reduced(arrows)
    for k in range(len(table) - 1, 0, -1):  # the layers as a column, the lowest at the bottom
        lines.append(f"  layer{k} -> layer{k - 1} [style=invis, weight=100];")
    for a, b in sorted(arrows):
        lines.append(f"  layer{a} -> layer{b} [weight=0];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _reduced(arrows: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The arrows not implied by a path of two or more other arrows (layers import downwards
    only, so the graph has no cycle)."""
    below: dict[int, set[int]] = {}
    for a, b in arrows:
        below.setdefault(a, set()).add(b)

    def reachable(start: int) -> set[int]:
        seen, stack = set(), list(below.get(start, ()))
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(below.get(node, ()))
        return seen

    return {(a, b) for a, b in arrows if not any(b in reachable(c) for c in below[a] if c != b)}


def main() -> int:
    edges, table = imports(), layers()
    problems = ["import circle: " + " -> ".join(c) for c in circles(edges)]
    for problem in problems:
        print(problem, file=sys.stderr)
    source = diagram(edges, table, [name for name, _ in layer_rows()])
    DIAGRAM.write_text(source, encoding="utf-8")
    subprocess.run(
        ["dot", "-Tsvg", str(DIAGRAM), "-o", str(DIAGRAM.with_suffix(".svg"))], check=True
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
