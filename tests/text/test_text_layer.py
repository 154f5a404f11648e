"""The foundation's text module stands on errors and util alone, and its package surface is whole."""

from __future__ import annotations

import ast
from pathlib import Path

import kopa_replay.text as text

ROOT = Path(text.__file__).parent


def test_the_text_module_imports_nothing_of_kopa_replay_but_errors_and_util():
    allowed = ("kopa_replay.errors", "kopa_replay.util", "kopa_replay.text")
    for path in sorted(ROOT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                if name.startswith("kopa_replay"):
                    assert name.startswith(allowed), f"{path.name} imports {name}"


def test_every_exported_name_loads():
    assert sorted(text.__all__) == sorted(set(text.__all__))
    for name in text.__all__:
        assert getattr(text, name) is not None
