"""The one error family of kopa-replay.

Every failure a user can cause (a bad file, an unknown tool, a wrong argument,
an unreadable snapshot) is raised as a subclass of :class:`KopaError`. The CLI
turns any ``KopaError`` into a single ``Error: ...`` line and exit code 1 in one
place; anything else is a bug and keeps its traceback.

    KopaError
    ├── UsageError            a bad argument or option value (CLI and library)
    ├── CatalogError          a catalog file or tool definition is invalid
    │   └── UnknownTool       a tool name that the catalog does not hold
    ├── SimError              the simulator cannot serve a request as asked
    ├── SourceError           a call could not be executed against its source
    ├── StoreError            a cassette store is unreadable, foreign or corrupt
    ├── SnapshotError         a snapshot is missing, sealed, or fails its digest
    ├── CassetteMiss          strict replay met a request the snapshot never recorded
    └── DriftError            a drift diff cannot be computed or rendered as asked

Messages name the thing that is wrong (file, tool, field, request) and never
contain an API key: callers pass redacted URLs only.
"""

from __future__ import annotations

__all__ = [
    "KopaError",
    "UsageError",
    "CatalogError",
    "UnknownTool",
    "SimError",
    "SourceError",
    "StoreError",
    "SnapshotError",
    "CassetteMiss",
    "DriftError",
]


class KopaError(Exception):
    """Root of every error kopa-replay raises on purpose."""

    def __reduce__(self) -> tuple:
        # rebuilt from its message and attributes, not by calling __init__ again (whose signature differs per
        # class): an error raised in a worker process (Ray, a process pool) arrives whole, message and fields
        return _rebuild, (type(self), self.args, dict(self.__dict__))


def _rebuild(cls: type[KopaError], args: tuple, state: dict) -> KopaError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class UsageError(KopaError):
    """A bad argument or option value."""


class CatalogError(KopaError):
    """A catalog file or a tool definition is invalid.

    ``source`` is the file (or "<built-in>"), ``tool`` and ``field`` locate the
    problem inside it; all three appear in the message.
    """

    def __init__(
        self, message: str, *, source: str | None = None, tool: str | None = None, field: str | None = None
    ) -> None:
        self.source, self.tool, self.field = source, tool, field
        where = ", ".join(
            part
            for part in (
                source and f"file {source}",
                tool and f"tool {tool!r}",
                field and f"field {field!r}",
            )
            if part
        )
        super().__init__(f"{where}: {message}" if where else message)


class UnknownTool(CatalogError):
    """A tool name that the catalog does not hold."""

    def __init__(self, name: str, suggestions: list[str] | None = None) -> None:
        hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
        super().__init__(f"no tool named {name!r} in the catalog{hint}")
        self.tool = name


class SimError(KopaError):
    """The simulator cannot serve a request as asked (bad seed, date, world)."""


class SourceError(KopaError):
    """A tool call could not be executed against its source."""


class StoreError(KopaError):
    """A cassette store is unreadable, foreign (not ours), from a newer version, or corrupt."""


class SnapshotError(KopaError):
    """A snapshot is missing, sealed against writes, or does not match its manifest digest."""


class CassetteMiss(KopaError):
    """Strict replay met a request the snapshot never recorded; no socket was opened.

    The message names the tool, the method, the redacted URL and the snapshot.
    """

    def __init__(self, *, tool: str | None, method: str, url: str, snapshot: str, store: str) -> None:
        self.tool, self.method, self.url, self.snapshot, self.store = tool, method, url, snapshot, store
        what = f"tool {tool!r}: " if tool else ""
        super().__init__(
            f"cassette miss: {what}{method} {url} was not recorded in snapshot {snapshot!r} "
            f"(store {store}); record it with --mode record or replay-or-record"
        )


class DriftError(KopaError):
    """A drift diff cannot be computed or rendered as asked."""
