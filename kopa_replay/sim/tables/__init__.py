"""Operation tables: a platform's operations kept as data, one row each (botocore's pattern).

One YAML file per platform (``assembly.yaml`` …) beside this module. A row says everything about an operation
that is not particular to it: the tool name and its route (service id, endpoint name or path), the parameters
(which are required, which filter exactly, which partially), the record fields in the order the platform sends
them (type, format, whether the platform may send them empty), the world table that answers it, the ground-truth
domains of its inputs and outputs, a call that answers, the text an agent reads, and the sources every fact was
taken from. Three readers share it:

* the simulator: :func:`endpoints` turns every row into an :class:`~kopa_replay.sim.core.Endpoint` answered by
  :func:`serve`, the one generic handler (required parameters, filters, the row's fields in order, "no data"),
  over the world table the row names — the platform module registers its tables, nothing per operation;
* the catalog: ``scripts/gen_tables.py`` writes each row's MCP tool (description, parameters, output schema,
  HTTP binding from the file's ``binding`` template) after the generated marker of
  ``kopa_replay/catalog/builtin/<platform>.yaml``;
* the response contract: the same script writes each row's entry of ``kopa_replay/sim/spec/<platform>.yaml``.

``tests/sim/test_tables.py`` checks that the generated parts are up to date and that every row answers its own
example with exactly its fields. A new operation is a row plus, where no table answers it yet, the world data.

A file holds ``platform`` (the catalog's platform id), ``catalog`` (the catalog file's stem when it is not the
module's: ``datagokr_fsc``), ``binding`` (``path`` with ``{route}``, ``envelope`` paths with ``{route}``, ``params``
appended to every tool: name → a YAML alias of the catalog's head such as ``"*pindex"``), ``sources`` and
``operations``, and ``domains`` (``params`` and ``fields``: name → ground-truth domain, for every row that has a
parameter or field of that name and does not give it another, or ``null``, in its ``inputs``/``outputs``: a name
that means one thing in every operation, such as the Assembly's year columns); other top-level keys are the
platform's own (the Assembly's ``registry``). A row's ``options`` reach its endpoint (the protocol's
per-operation settings); ``options.http`` overrides the file's binding for that row (``path``, ``base_url`` of a
second host, ``envelope``, ``format``, ``fixed_query``, ``pagination``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from kopa_replay.errors import SimError
from kopa_replay.sim.core import Endpoint, NoData, Protocol, Query
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.util import load_yaml

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = ["Operation", "Table", "load_table", "serve", "endpoints", "TableRows"]

#: a world table: every record an operation over it can answer, before the row's filters
TableRows = Callable[["World", Query], Iterable[dict[str, Any]]]

_ROW_KEYS = {
    "tool": "the catalog tool name",
    "route": "the service id, endpoint name or path the platform routes by",
    "name": "{ko, en}: the operation's name in the platform's guide",
    "table": "the world table that answers it",
    "params": "name → {ko, en, required, enum, pattern, type, minimum, maximum}",
    "fields": "name → {ko, en, type, format, optional}",
    "required": "parameters the platform refuses a call without",
    "exact": "parameters that filter the field of the same name exactly",
    "partial": "parameters that filter the field of the same name by substring",
    "inputs": "parameter → ground-truth domain",
    "outputs": "field → ground-truth domain",
    "description": "{ko, en}: what an agent reads (written from name, params and fields when absent)",
    "example": "parameters of a call that answers",
    "sources": "where each fact was taken from",
    "category": "the platform's own grouping",
    "options": "platform-specific settings of the operation",
}
_REQUIRED_KEYS = ("tool", "route", "name", "table", "fields", "example", "sources")


@dataclass(frozen=True)
class Operation:
    """One row of an operation table."""

    platform: str
    tool: str
    route: str
    name: Mapping[str, str]
    table: str
    fields: Mapping[str, Mapping[str, Any]]
    example: Mapping[str, Any]
    sources: tuple[str, ...]
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()
    partial: tuple[str, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)
    outputs: Mapping[str, str] = field(default_factory=dict)
    description: Mapping[str, str] | None = None
    category: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Table:
    platform: str
    binding: Mapping[str, Any]
    sources: tuple[str, ...]
    operations: tuple[Operation, ...]
    extra: Mapping[str, Any]

    def operation(self, tool: str) -> Operation:
        found = next((op for op in self.operations if op.tool == tool), None)
        if found is None:
            raise SimError(f"operation table {self.platform}: no operation {tool!r}")
        return found


def _operation(platform: str, index: int, row: Any, by_name: Mapping[str, Mapping[str, str]]) -> Operation:
    where = f"operation table {platform}, row {index + 1}"
    if not isinstance(row, dict):
        raise SimError(f"{where}: a row is a mapping, not {type(row).__name__}")
    where = f"operation table {platform}, {row.get('tool', f'row {index + 1}')}"
    unknown = sorted(set(row) - set(_ROW_KEYS))
    if unknown:
        raise SimError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_ROW_KEYS)})")
    missing = [key for key in _REQUIRED_KEYS if key not in row]
    if missing:
        raise SimError(f"{where}: missing {missing[0]!r} ({_ROW_KEYS[missing[0]]})")
    params = row.get("params") or {}
    for name in (*row.get("required", ()), *row.get("exact", ()), *row.get("partial", ())):
        if name not in params:
            raise SimError(f"{where}: {name!r} filters or is required but is not among its params")
    required = tuple(row.get("required", ()))
    return Operation(
        platform=platform,
        tool=row["tool"],
        route=str(row["route"]),
        name=row["name"],
        table=row["table"],
        fields=row["fields"],
        example=row["example"] or {},
        sources=tuple(row["sources"]),
        params={name: {**p, "required": True} if name in required else p for name, p in params.items()},
        required=required,
        exact=tuple(row.get("exact", ())),
        partial=tuple(row.get("partial", ())),
        inputs=_domains(by_name.get("params", {}), params, row.get("inputs")),
        outputs=_domains(by_name.get("fields", {}), row["fields"], row.get("outputs")),
        description=row.get("description"),
        category=row.get("category"),
        options=row.get("options") or {},
    )


def _domains(by_name: Mapping[str, str], names: Iterable[str], own: Mapping[str, str | None] | None) -> dict[str, str]:
    """A row's ground-truth domains: the table's domain for each of its names, then the row's own (``null`` there
    takes a name's domain away)."""
    chosen: dict[str, str | None] = {name: by_name[name] for name in names if name in by_name}
    chosen.update(own or {})
    return {name: domain for name, domain in chosen.items() if domain is not None}


@lru_cache(maxsize=None)
def load_table(module: str) -> Table:
    """The operation table of a platform module (``kopa_replay/sim/tables/<module>.yaml``; the module is the
    simulator's platform module, ``fsc`` and ``mois`` for the two halves of the catalog platform ``datagokr``)."""
    resource = resources.files(__name__).joinpath(f"{module}.yaml")
    if not resource.is_file():
        raise SimError(f"no operation table for platform {module!r}")
    doc = load_yaml(resource.read_text(encoding="utf-8")) or {}
    platform = str(doc.get("platform") or module)
    rows = doc.get("operations") or []
    by_name = doc.get("domains") or {}
    if not isinstance(by_name, dict) or set(by_name) - {"params", "fields"}:
        raise SimError(f"operation table {platform}: domains maps 'params' and 'fields' to name → domain")
    operations = tuple(_operation(platform, i, row, by_name) for i, row in enumerate(rows))
    seen: dict[str, str] = {}
    for op in operations:
        for key in (op.tool, f"route {op.route}"):
            if key in seen:
                raise SimError(f"operation table {platform}: {key} twice")
            seen[key] = op.tool
    extra = {k: v for k, v in doc.items() if k not in ("platform", "catalog", "binding", "sources", "operations")}
    return Table(platform, doc.get("binding") or {}, tuple(doc.get("sources") or ()), operations, extra)


class _Projected(Sequence):
    """Records cut to an operation's fields in its order, made as they are read (a page of a lazy table)."""

    def __init__(self, rows: Sequence[dict[str, Any]], names: tuple[str, ...]) -> None:
        self._rows, self._names = rows, names

    def _one(self, record: dict[str, Any]) -> dict[str, Any]:
        return {name: record.get(name) for name in self._names}

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._one(r) for r in self._rows[index]]
        return self._one(self._rows[index])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._one(r) for r in self._rows)


def serve(op: Operation, table: TableRows) -> Callable[["World", Query], Sequence[dict[str, Any]]]:
    """The handler of one operation: its table's records, filtered as the row says, cut to the row's fields.

    An exact filter compares the field of the same name as text; a partial one looks for the text inside it. A
    table whose rows are made on demand may say which fields a row's key gives (``keyed``): filters on those are
    met from the keys, and only the page served is made. No record left is "no data" (the platform's own code).
    """
    names = tuple(op.fields)

    def handler(world: "World", q: Query) -> Sequence[dict[str, Any]]:
        for name in op.required:
            q.require(name)
        exact = [(name, value) for name in op.exact if (value := q.get(name)) is not None]
        partial = [(name, value) for name in op.partial if (value := q.get(name)) is not None]
        rows = table(world, q)
        if isinstance(rows, LazyRows) and any(name in rows.keyed for name, _ in (*exact, *partial)):
            # filters on fields a row's key gives are met from the keys, without making a row per key
            keyed = rows.keyed
            on_keys = [(keyed[n], v, True) for n, v in exact if n in keyed]
            on_keys += [(keyed[n], v, False) for n, v in partial if n in keyed]
            rows = rows.where(lambda key: all(_matches(read(key), v, whole) for read, v, whole in on_keys))
            exact = [(n, v) for n, v in exact if n not in keyed]
            partial = [(n, v) for n, v in partial if n not in keyed]
        if exact or partial or not isinstance(rows, Sequence):
            rows = [
                r
                for r in rows
                if all(_matches(r.get(n), v, True) for n, v in exact)
                and all(_matches(r.get(n), v, False) for n, v in partial)
            ]
        if not len(rows):
            raise NoData()
        return _Projected(rows, names)

    handler.__name__ = f"serve_{op.tool}"
    return handler


def _matches(value: Any, wanted: str, whole: bool) -> bool:
    """An exact filter compares the value as text; a partial one looks for the text inside it (None: empty)."""
    return str(value) == wanted if whole else wanted in str(value or "")


def endpoints(
    module: str, host: str, protocol: Protocol, tables: Mapping[str, TableRows], **options: Any
) -> list[Endpoint]:
    """Every operation of a platform module's table as a simulated endpoint over the module's world tables."""
    out = []
    for op in load_table(module).operations:
        if op.table not in tables:
            raise SimError(f"operation table {module}, {op.tool}: no world table {op.table!r}")
        out.append(
            Endpoint(
                tool=op.tool,
                platform=op.platform,
                host=host,
                route=op.route,
                protocol=protocol,
                handler=serve(op, tables[op.table]),
                required=op.required,
                inputs=op.inputs,
                outputs=op.outputs,
                options={**options, **op.options},
            )
        )
    return out
