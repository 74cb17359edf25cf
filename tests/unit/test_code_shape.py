"""The shape of the code: small modules, short functions, and contracts that miss no package.

Every module under ``src/saphira`` stays at most ``MODULE_LINES`` lines and
every function or method at most ``FUNCTION_LINES`` (``def`` line to last
line, decorators excluded). ``LONGER`` lists the functions that are longer
today with their length: one may shrink, never grow, and leaves the list
once it fits (the test then asks for its line to go, so the list stays true).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "saphira"
MODULE_LINES = 600
FUNCTION_LINES = 60

#: (module path under src/saphira, qualified name) -> its length today.
LONGER: dict[tuple[str, str], int] = {
    ("db/identity/migrations/versions/0001_initial.py", "upgrade"): 91,
}

Functions = dict[tuple[str, str], int]


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + child.name
            yield name, (child.end_lineno or child.lineno) - child.lineno + 1
            yield from _functions(child, f"{name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        else:
            yield from _functions(child, prefix)


def function_lengths(package: Path) -> Functions:
    found: Functions = {}
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        for name, length in _functions(ast.parse(path.read_text(), str(path))):
            found[(module, name)] = max(length, found.get((module, name), 0))
    return found


def shape_errors(found: Functions, allowed: Functions, limit: int) -> list[str]:
    """What breaks the rule or the allow-list, one line each."""
    errors = []
    for key, length in sorted(found.items()):
        known = allowed.get(key)
        if length > limit and known is None:
            errors.append(f"{key[0]}: {key[1]} is {length} lines (at most {limit})")
        elif known is not None and length > known:
            errors.append(f"{key[0]}: {key[1]} grew to {length} lines (listed at {known})")
    for key, known in sorted(allowed.items()):
        length = found.get(key, 0)
        if length <= limit:
            errors.append(f"{key[0]}: {key[1]} is {length} lines now: drop it from LONGER")
        elif length < known:
            errors.append(f"{key[0]}: {key[1]} shrank to {length} lines: list it at {length}")
    return errors


def test_modules_are_at_most_600_lines() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text().splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_functions_are_at_most_60_lines_but_the_listed_ones() -> None:
    assert shape_errors(function_lengths(PACKAGE), LONGER, FUNCTION_LINES) == []


def test_the_allow_list_check_sees_new_grown_and_shrunk_functions() -> None:
    found = {("a.py", "new"): 61, ("a.py", "grown"): 70, ("a.py", "shrunk"): 62, ("a.py", "ok"): 9}
    allowed = {("a.py", "grown"): 65, ("a.py", "shrunk"): 64, ("a.py", "fits"): 80}
    assert shape_errors(found, allowed, 60) == [
        "a.py: grown grew to 70 lines (listed at 65)",
        "a.py: new is 61 lines (at most 60)",
        "a.py: fits is 0 lines now: drop it from LONGER",
        "a.py: shrunk shrank to 62 lines: list it at 62",
    ]


def test_function_lengths_leave_out_decorators_and_name_methods(tmp_path: Path) -> None:
    source = "class A:\n    @staticmethod\n    def f() -> None:\n        def g() -> None:\n"
    (tmp_path / "m.py").write_text(source + "            pass\n        g()\n")
    assert function_lengths(tmp_path) == {("m.py", "A.f"): 4, ("m.py", "A.f.g"): 2}


def test_no_product_package_may_import_devtools() -> None:
    """The devtools contract names every package and top-level module but devtools itself."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c.get("forbidden_modules") == ["saphira.devtools"]]
    product = {
        f"saphira.{path.stem if path.suffix else path.name}"
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    } - {"saphira.devtools"}
    assert set(contract["source_modules"]) == product
