"""Edit a store file the way someone holding it can: with SQLite, outside kopa-replay.

:func:`edit_past_triggers` drops the store's triggers, runs the statements and puts the triggers back as they were,
so the file's schema is the one its version has (a store whose schema was changed is refused when opened: that
attack is tested apart) and only the digests can tell.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def edit_past_triggers(path: str | Path, *statements: str, params: tuple = ()) -> int:
    """Run ``statements`` on the store at ``path`` with its triggers dropped and then put back; returns how many
    rows they changed."""
    conn = sqlite3.connect(path)
    try:
        triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").fetchall()
        for name, _ in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        before = conn.total_changes
        for statement in statements:
            conn.execute(statement, params)
        changed = conn.total_changes - before
        for _, sql in triggers:
            conn.execute(sql)
        conn.commit()
        return changed
    finally:
        conn.close()
