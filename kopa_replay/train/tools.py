"""Catalog tools as the Python callables trl's ``GRPOTrainer`` runs, and the environments that own them.

trl turns an environment's public methods into tools: it renders each with
transformers' ``get_json_schema`` (type hints + a Google-style docstring) and
calls ``method(**arguments)`` when the model asks. :func:`tool_function` builds
such a callable for one catalog :class:`~kopa_replay.catalog.model.Tool` from
its ``inputSchema`` — a keyword-only parameter per property with its JSON type
as the hint, a docstring line per parameter with its description and enum as
``(choices: …)``, required properties without a default — so the schema the
model reads is the catalog's (:func:`tool_schema`, pinned by a property test).
The body takes ``**kwargs`` and hands them to the
:class:`~kopa_replay.env.ToolEnvironment` unchanged, so a wrong argument name
or type is the environment's ``structural_error`` (as in ``bench run``), not a
Python ``TypeError``.

Each task offers its own top-k tools (retrieved as ``bench run`` does), and trl
fixes an environment's tools by its class, so :class:`ToolSets` makes one
:class:`RolloutEnvironment` subclass per distinct tool set, named by a digest
of the names; a dataset row's ``environment`` column routes it to its class
(trl's multi-environment mode). One instance serves one rollout at a time:
``reset(**row)`` clears its log, the tools run through
:func:`~kopa_replay.bench.chat_agent.answer_call` (the benchmark agent's own
path: a call the pinned snapshot lacks reads as an error message, never a
crash), and the reward reads the instance's log and state digest.

The source (the pinned snapshot, strict replay, by default) is opened once per
process on first use and shared by every environment of that process: a
sealed snapshot is a read-only file, so forking a rollout worker costs one
``open``.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kopa_replay.bench.chat_agent import answer_call
from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import UsageError

__all__ = [
    "JSON_TYPES",
    "RolloutEnvironment",
    "SourceSpec",
    "ToolSets",
    "tool_docstring",
    "tool_function",
    "tool_schema",
    "tool_schemas",
    "tool_set_name",
]

#: the Python hint for each JSON Schema type of an ``inputSchema`` property
JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}

_SPACE = re.compile(r"\s+")


def _one_line(text: Any) -> str:
    # get_json_schema reads one argument per docstring line: a description may not break a line, and a line of
    # its own starting "Returns:" would end the Args block
    return _SPACE.sub(" ", str(text or "")).strip()


def tool_docstring(tool: Tool) -> str:
    """The Google-style docstring ``get_json_schema`` reads: description, one ``Args`` line per parameter."""
    description = _one_line(
        " | ".join(part for part in (tool.description_ko, tool.description_en) if part) or tool.title or tool.name
    )
    lines = [description, "", "Args:"]
    for name, prop in tool.input_schema.get("properties", {}).items():
        text = _one_line(prop.get("description")) or name
        if prop.get("enum"):
            text += f" (choices: {json.dumps(list(prop['enum']), ensure_ascii=False)})"
        lines.append(f"    {name}: {text}")
    if len(lines) == 3:
        lines = lines[:1]
    lines += ["", "Returns:", "    JSON: outcome, code, message, total_count, page, more_pages and the records."]
    return "\n".join(lines)


def tool_function(tool: Tool, call: Callable[[Any, str, dict[str, Any]], str]) -> Callable[..., str]:
    """A method named after ``tool`` whose signature and docstring are its ``inputSchema``.

    Calling it on an instance runs ``call(instance, tool.name, kwargs)``.
    """
    schema = tool.input_schema
    props = schema.get("properties", {})
    required = set(schema.get("required", ()))
    name = tool.name

    def method(self: Any, **kwargs: Any) -> str:
        return call(self, name, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    hints: dict[str, Any] = {}
    # required first: a keyword-only parameter may come in any order, and this keeps "required" in schema order
    for param in sorted(props, key=lambda p: p not in required):
        kind = props[param].get("type", "string")
        if kind not in JSON_TYPES:
            raise UsageError(
                f"tool {tool.name!r}: parameter {param!r} has type {kind!r}, which a trained "
                f"model's tool schema cannot state (one of {', '.join(JSON_TYPES)})"
            )
        hints[param] = JSON_TYPES[kind]
        params.append(
            inspect.Parameter(
                param,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=hints[param],
                default=inspect.Parameter.empty if param in required else None,
            )
        )
    hints["return"] = str
    method.__name__ = method.__qualname__ = name
    method.__doc__ = tool_docstring(tool)
    method.__annotations__ = hints
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    return method


def _call_unbound(_: Any, __: str, ___: dict[str, Any]) -> str:
    raise UsageError("a schema-only tool function cannot be called")


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The schema a model trained here reads for ``tool``: transformers' ``get_json_schema`` of its function."""
    from transformers.utils import get_json_schema

    return get_json_schema(tool_function(tool, _call_unbound))


def tool_schemas(catalog: Catalog, names: Sequence[Any]) -> list[dict[str, Any]]:
    """:func:`tool_schema` for ``names`` (or ``top_k`` pairs) in name order, duplicates dropped — the order trl
    lists an environment's tools in (``inspect.getmembers``), so SFT rows and ``train eval`` offer a set as GRPO
    did and a checkpoint is asked the way it was trained."""
    unique = {item[0] if isinstance(item, tuple) else item for item in names}
    return [tool_schema(catalog.get(name)) for name in sorted(unique)]


def tool_set_name(names: Sequence[str]) -> str:
    """The ``environment`` a row with these tools routes to: a digest of the sorted names."""
    digest = hashlib.sha256("\n".join(sorted(names)).encode("utf-8")).hexdigest()[:16]
    return f"tools-{digest}"


@dataclass(frozen=True)
class SourceSpec:
    """Where rollout tools are answered: strict ``replay`` of ``snapshot`` in ``store`` (the default), or ``sim``.

    ``sim`` with a ``snapshot`` answers from the snapshot and only the calls it
    lacks from the simulator at ``sim_seed`` / ``as_of`` (nothing is recorded:
    the pinned store is opened read-only); ``sim`` without one answers every
    call from the simulator.
    """

    source: str = "replay"
    snapshot: str | None = "2026-09-01"
    store: str | None = None
    sim_seed: int = 0
    as_of: str | None = "2026-09-01"

    def __post_init__(self) -> None:
        from kopa_replay.env.source import is_sim

        if self.source != "replay" and not is_sim(self.source):
            raise UsageError(f"source must be 'replay' or 'sim' ('sim:<world>' names a world), not {self.source!r}")
        if self.source == "replay" and not self.snapshot:
            raise UsageError("source 'replay' needs a snapshot")

    def open(self, catalog: Catalog) -> Any:
        from kopa_replay.env.source import Source, open_source, snapshot_sim_source

        pinned = None
        if self.snapshot:
            pinned = open_source("replay", snapshot=self.snapshot, mode="replay", store=self.store, catalog=catalog)
            if self.source == "replay":
                return pinned
        # the simulator answers what the snapshot lacks on the world the snapshot was recorded on
        world = snapshot_sim_source(pinned.details["store"], str(self.snapshot)) if pinned is not None else None
        sim = open_source(world or self.source, seed=self.sim_seed, as_of=self.as_of, catalog=catalog)
        if pinned is None:
            return sim
        # the snapshot's answers through its replay fast path; a request it lacks goes to the simulator's client
        return Source(
            f"sim+{self.snapshot}",
            sim.client,
            sim.sim_key,
            {**pinned.details, "fallback": "sim"},
            [*sim.closers, pinned.close],
            pinned.replayer,
            rewinders=[*sim.rewinders, *pinned.rewinders],
        )


@dataclass
class _Shared:
    """What every environment of one process shares: the catalog, the opened source, the message limits."""

    catalog: Catalog
    spec: SourceSpec
    max_records: int = 30
    max_chars: int = 6000
    _source: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def source(self) -> Any:
        """The process's source, opened on first use."""
        with self._lock:
            if self._source is None:
                self._source = self.spec.open(self.catalog)
            return self._source

    def environment(self) -> Any:
        from kopa_replay.env import ToolEnvironment

        return ToolEnvironment(self.catalog, self.source())

    def close(self) -> None:
        with self._lock:
            if self._source is not None:
                self._source.close()
                self._source = None


class RolloutEnvironment:
    """One rollout's tools over the shared source; subclasses (one per tool set, :class:`ToolSets`) add them.

    trl calls ``reset(**row)`` before each rollout and every public method is a
    tool, so everything else here is private. ``_env`` is the
    :class:`~kopa_replay.env.ToolEnvironment` whose log the reward grades.
    """

    _shared: _Shared
    _tool_names: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._env: Any = None
        self._row: dict[str, Any] = {}

    def reset(self, **row: Any) -> None:
        """Start a rollout of ``row`` (its dataset columns): an empty log, nothing added to the prompt."""
        if self._env is None:
            self._env = self._shared.environment()
        self._env.reset()
        self._row = row

    def _call(self, name: str, args: Mapping[str, Any]) -> str:
        if self._env is None:
            raise UsageError(f"tool {name!r} called before reset()")
        shared = self._shared
        return answer_call(
            self._env, shared.catalog, name, args, max_records=shared.max_records, max_chars=shared.max_chars
        )


def _dispatch(instance: RolloutEnvironment, name: str, args: dict[str, Any]) -> str:
    return instance._call(name, args)


class ToolSets:
    """One :class:`RolloutEnvironment` subclass per distinct tool set, the ``environment_factory`` trl takes."""

    def __init__(self, catalog: Catalog, spec: SourceSpec, *, max_records: int = 30, max_chars: int = 6000) -> None:
        self.shared = _Shared(catalog, spec, max_records, max_chars)
        self.classes: dict[str, type[RolloutEnvironment]] = {}
        self._methods: dict[str, Callable[..., str]] = {}

    def add(self, names: Sequence[str]) -> str:
        """Register the tool set ``names`` (each a catalog tool); its ``environment`` name."""
        key = tool_set_name(names)
        if key not in self.classes:
            namespace: dict[str, Any] = {"_shared": self.shared, "_tool_names": tuple(sorted(names))}
            for name in sorted(names):
                if name not in self._methods:
                    self._methods[name] = tool_function(self.shared.catalog.get(name), _dispatch)
                namespace[name] = self._methods[name]
            self.classes[key] = type(f"Tools_{key[6:]}", (RolloutEnvironment,), namespace)
        return key

    def environment(self, names: Sequence[str]) -> RolloutEnvironment:
        """A fresh environment offering ``names`` (registered if new), as trl makes one: reset it before use."""
        return self.classes[self.add(names)]()

    def factories(self) -> dict[str, type[RolloutEnvironment]]:
        """``{environment name: class}`` in name order, for ``GRPOTrainer(environment_factory=...)``."""
        return dict(sorted(self.classes.items()))

    def close(self) -> None:
        self.shared.close()
