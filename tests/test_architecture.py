"""The layer map of docs/architecture.md holds in the code.

- Rust (crates/ccsim/src): every file's references to other modules (`use` lines,
  inline `crate::…`/`super::…` paths, a parent's paths into its children) form no
  cycle, file by file; and every reference from one top-level module to another
  points to a lower layer of the table in docs/architecture.md.
- Python (python/ccsim): no import cycle among the package's modules, counting
  imports inside functions too.

The checks read only source text; no build is needed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "crates" / "ccsim" / "src"
DOC = ROOT / "docs" / "architecture.md"


# ---- Rust ---------------------------------------------------------------------


def rust_modules(src: Path) -> dict[str, str]:
    """Module path ('' for lib.rs, 'cc', 'cc::cubic') -> source without tests,
    comments and string literals."""
    out = {}
    for p in sorted(src.rglob("*.rs")):
        rel = p.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "mod":
            parts.pop()
        if parts == ["lib"]:
            parts = []
        text = p.read_text(encoding="utf-8")
        # Unit tests sit at the end of a file behind #[cfg(test)]: not architecture.
        cut = text.find("#[cfg(test)]")
        if cut >= 0:
            text = text[:cut]
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
        out["::".join(parts)] = text
    return out


def resolve(path: str, modules: set[str]) -> str | None:
    """The longest module prefix of `a::b::c`, or None."""
    parts = path.split("::")
    for k in range(len(parts), 0, -1):
        m = "::".join(parts[:k])
        if m in modules:
            return m
    return None


def expand_groups(text: str) -> str:
    """`a::{b, c::{d, e}}` -> `a::b a::c::d a::c::e` (use lists, nested)."""
    pattern = re.compile(r"([A-Za-z_][\w:]*)::\{([^{}]*)\}")
    while True:
        new = pattern.sub(
            lambda m: " ".join(
                m.group(1) + "::" + item.strip().split(" as ")[0]
                for item in m.group(2).split(",")
                if item.strip()
            ),
            text,
        )
        if new == text:
            return text
        text = new


def rust_edges(modules: dict[str, str]) -> dict[str, set[str]]:
    names = set(modules)
    children = {m: set() for m in names}
    for m in names:
        if m:
            parent = m.rsplit("::", 1)[0] if "::" in m else ""
            children[parent].add(m.rsplit("::", 1)[-1])
    edges = {m: set() for m in names}
    for m, text in modules.items():
        text = expand_groups(text)
        parent = m.rsplit("::", 1)[0] if "::" in m else ""
        refs = []
        for p in re.findall(r"\bcrate::([A-Za-z_][\w:]*\w)", text):
            refs.append(p)
        for p in re.findall(r"\bsuper::([A-Za-z_][\w:]*\w)", text):
            refs.append(f"{parent}::{p}" if parent else p)
        for p in re.findall(r"\bself::([A-Za-z_][\w:]*\w)", text):
            refs.append(f"{m}::{p}" if m else p)
        # A parent's own paths into its children: `laws::Law`, `pub use link::Link`.
        for child in children[m]:
            if re.search(rf"(?<![\w:]){child}::", text):
                refs.append(f"{m}::{child}" if m else child)
        for r in refs:
            target = resolve(r, names)
            if target is not None and target != m:
                edges[m].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def layer_table(doc: Path) -> dict[str, int]:
    """Top-level module -> layer, from the table between the markers of
    docs/architecture.md (layer 0 at the bottom)."""
    text = doc.read_text(encoding="utf-8")
    body = text.split("<!-- layers:begin -->")[1].split("<!-- layers:end -->")[0]
    layers = {}
    for line in body.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            for name in re.findall(r"`([a-z_]+)`", m.group(2)):
                layers[name] = int(m.group(1))
    return layers


def top(m: str) -> str:
    return m.split("::")[0] if m else "lib"


def test_the_checker_sees_cycles_and_groups(tmp_path: Path):
    """The checker itself: a cycle through a use list, a parent's path into a child
    and a child's `super::` are all seen; comments and tests are not."""
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    (src / "a" / "mod.rs").write_text("pub mod x;\npub use x::X;\n")
    (src / "a" / "x.rs").write_text("use crate::b::{c::Y, Z};\npub struct X;\n")
    (src / "b.rs").write_text(
        "// use crate::a::x;\npub mod c { }\npub struct Z;\n"
        "fn f() { let _ = crate::a::X; }\n#[cfg(test)]\nmod t { use crate::a; }\n"
    )
    mods = rust_modules(src)
    e = rust_edges(mods)
    assert e["a"] == {"a::x"}
    assert e["a::x"] == {"b"}
    assert e["b"] == {"a"}
    assert cycles(e) == [["a", "a::x", "b"]]


def test_rust_modules_have_no_cycle():
    e = rust_edges(rust_modules(SRC))
    assert len(e) > 40, "the checker found the sources"
    assert cycles(e) == []


def test_rust_references_point_down_the_layer_map():
    layers = layer_table(DOC)
    e = rust_edges(rust_modules(SRC))
    tops = {top(m) for m in e}
    missing = sorted(t for t in tops if t not in layers)
    assert not missing, f"modules missing from docs/architecture.md's layer table: {missing}"
    stale = sorted(t for t in layers if t not in tops)
    assert not stale, f"the layer table lists modules the crate does not have: {stale}"
    wrong = sorted(
        f"{a} -> {b} (layer {layers[top(a)]} -> {layers[top(b)]})"
        for a, targets in e.items()
        for b in targets
        if top(a) != top(b) and layers[top(b)] >= layers[top(a)]
    )
    assert not wrong, "references that do not point down the layer map:\n" + "\n".join(wrong)


# ---- Python -------------------------------------------------------------------


def python_edges(pkg: Path) -> dict[str, set[str]]:
    names = {}
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(pkg.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = p
    edges = {m: set() for m in names}
    for m, p in names.items():
        is_pkg = p.name == "__init__.py"
        base = m if is_pkg else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    mod = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            for t in targets:
                # The longest prefix that is a module of the package.
                parts = t.split(".")
                for k in range(len(parts), 0, -1):
                    cand = ".".join(parts[:k])
                    if cand in names:
                        # Importing a name from a package is not importing its
                        # submodules; from a package's own submodule it is.
                        if cand != m:
                            edges[m].add(cand)
                        break
    return edges


def test_python_package_has_no_import_cycle():
    e = python_edges(ROOT / "python" / "ccsim")
    assert "ccsim.cli" in e, "the checker found the package"
    # A package's __init__ importing its submodules is its API, not a cycle: count
    # only edges between modules that are not each other's package.
    flat = {
        m: {t for t in ts if not (m.startswith(t + ".") or t.startswith(m + "."))}
        for m, ts in e.items()
    }
    assert cycles(flat) == []


if __name__ == "__main__":  # a readable map: python tests/test_architecture.py
    for m, ts in sorted(rust_edges(rust_modules(SRC)).items()):
        print(m or "lib", "->", ", ".join(sorted(ts)))
    raise SystemExit(pytest.main([__file__, "-q"]))
