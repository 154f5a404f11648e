"""Operation tables: the generated catalog and spec parts are up to date, and every row answers as it says."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.errors import SimError
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import _operation, load_table

ROOT = Path(__file__).resolve().parents[2]
PLATFORMS = sorted(p.stem for p in (ROOT / "kopa_replay/sim/tables").glob("*.yaml"))
_SIM = Simulator(seed=0)


def test_the_catalog_and_spec_parts_are_generated_from_the_tables_and_up_to_date():
    done = subprocess.run(
        [sys.executable, "scripts/gen_tables.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_row_answers_its_example_with_exactly_its_fields_in_order(platform):
    # through the catalog binding (path, fixed query, envelope), as an agent's call goes
    from kopa_replay.env import ToolEnvironment

    env = ToolEnvironment.open(builtin_catalog(), source="sim", seed=0)
    for op in load_table(platform).operations:
        result = env.call(op.tool, dict(op.example))
        assert result.outcome == "ok", (op.tool, result.outcome, result.message)
        assert result.records, op.tool
        for record in result.records:
            assert list(record) == list(op.fields), op.tool
            for name, field in op.fields.items():
                if not field.get("optional"):
                    assert record[name] not in (None, ""), (op.tool, name)


def test_a_row_with_an_unknown_key_or_a_filter_it_does_not_take_is_refused_by_name():
    row = {"tool": "x_tool", "route": "r", "name": {"ko": "k", "en": "e"}, "table": "t", "fields": {}}
    row.update(example={}, sources=["s"])
    with pytest.raises(SimError, match=r"x_tool: unknown key 'colour'"):
        _operation("x", 0, {**row, "colour": "red"}, {})
    with pytest.raises(SimError, match=r"x_tool: 'AGE' filters or is required but is not among its params"):
        _operation("x", 0, {**row, "required": ["AGE"]}, {})
    with pytest.raises(SimError, match=r"x_tool: missing 'sources'"):
        _operation("x", 0, {k: v for k, v in row.items() if k != "sources"}, {})


def test_a_tables_domains_by_name_reach_every_row_that_does_not_say_otherwise():
    row = {"tool": "x_tool", "route": "r", "name": {"ko": "k", "en": "e"}, "table": "t", "example": {}}
    row.update(sources=["s"], params={"YR": {}, "Q": {}}, fields={"YR": {}, "N": {}})
    by_name = {"params": {"YR": "any_year", "Z": "year"}, "fields": {"YR": "any_year"}}
    plain = _operation("x", 0, row, by_name)
    assert (dict(plain.inputs), dict(plain.outputs)) == ({"YR": "any_year"}, {"YR": "any_year"})
    own = _operation("x", 0, {**row, "inputs": {"YR": "year", "Q": "date"}, "outputs": {"YR": None}}, by_name)
    assert (dict(own.inputs), dict(own.outputs)) == ({"YR": "year", "Q": "date"}, {})
    # the shipped tables: a year column of the Assembly's yearly tables, in every row that does not opt out
    assembly = load_table("assembly")
    years = [op for op in assembly.operations if "YR" in op.params]
    assert len(years) >= 10 and sum(op.inputs.get("YR") == "any_year" for op in years) >= len(years) - 2


#: what a value of a domain given by name looks like (the domains of truth.py)
_LOOKS = {
    "any_year": r"[12][0-9]{3}",
    "date": r"20[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])",
    "past_date": r"(19|20)[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])",
    "law_mst": r"[0-9]+",
}


def test_a_field_given_a_domain_by_name_carries_values_of_it():
    """Every field that takes its table's domain by name answers, on its row's own example, values that look like
    the domain's (a year column the simulator writes as text is one the row must opt out of)."""
    import re

    from kopa_replay.util import load_yaml

    checked = 0
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as client:
        for module in ("assembly", "fsc", "mois", "law"):
            doc = load_yaml((Path(__file__).parents[2] / "kopa_replay/sim/tables" / f"{module}.yaml").read_text())
            by_name = (doc.get("domains") or {}).get("fields") or {}
            for row in doc["operations"]:
                named = {f: by_name[f] for f in row["fields"] if f in by_name and f not in (row.get("outputs") or {})}
                if not named:
                    continue
                tool = builtin_catalog().get(row["tool"])
                for record in execute(tool, tool.examples[0], client, "sim-key").records[:50]:
                    for field, domain in named.items():
                        value = record.get(field)
                        if value not in (None, ""):
                            assert re.fullmatch(_LOOKS[domain], str(value)), (row["tool"], field, value)
                            checked += 1
    assert checked > 200


def test_an_unknown_platform_has_no_table():
    with pytest.raises(SimError, match="no operation table for platform 'nope'"):
        load_table("nope")


def test_an_operation_is_reachable_over_plain_http_with_the_platforms_own_envelope():
    op = load_table("assembly").operations[0]
    client = httpx.Client(transport=SimTransport(_SIM))
    got = client.get(
        f"https://open.assembly.go.kr/portal/openapi/{op.route}",
        params={"KEY": "sim-key", "Type": "json", **op.example},
    )
    assert got.status_code == 200 and op.route in got.json()


def test_filters_on_keyed_fields_pick_the_rows_the_records_would():
    """A table of rows made on demand may say which fields a row's key gives; the engine filters those on the keys
    and must keep exactly the rows it keeps when it makes every record and compares."""
    from kopa_replay.sim.core import Query
    from kopa_replay.sim.tables import Operation, serve
    from kopa_replay.sim.world.finance import LazyRows

    made: list[int] = []

    def make(n: int) -> dict:
        made.append(n)
        return {"N": str(n), "NAME": f"bill {n % 7} of {n}", "KIND": "odd" if n % 2 else "even"}

    keyed = {"N": lambda n: str(n), "NAME": lambda n: f"bill {n % 7} of {n}"}
    op = Operation(
        platform="x", tool="x_tool", route="r", name={"ko": "k", "en": "e"}, table="t",
        fields={"N": {}, "NAME": {}, "KIND": {}}, example={}, sources=("s",), params={"N": {}, "NAME": {}, "KIND": {}},
        required=(), exact=("N", "KIND"), partial=("NAME",),
    )  # fmt: skip
    plain = serve(op, lambda world, q: LazyRows(range(1000), make))
    fast = serve(op, lambda world, q: LazyRows(range(1000), make, keyed))
    for values in ({"NAME": "bill 3"}, {"NAME": "bill 3", "KIND": "odd"}, {"N": "42"}, {"N": "042"}, {"KIND": "even"}):
        q = Query(values, as_of=dt.date(2026, 9, 1))
        try:
            expected = list(plain(None, q))
        except Exception as error:  # no data
            with pytest.raises(type(error)):
                list(fast(None, q))
            continue
        made.clear()
        got = fast(None, q)
        assert list(got) == expected
        if "KIND" not in values:  # only keyed filters: only the rows served were made
            assert len(made) == len(expected)


def test_a_bill_tables_keyed_fields_are_the_records_own():
    from kopa_replay.sim.core import Query
    from kopa_replay.sim.platforms.assembly_tables import _BILL_KEYED, TABLES

    simulator = Simulator(seed=0)
    world = simulator.world
    for name in ("bills", "bills_plenary_en", "bills_decided"):
        rows = TABLES[name](world, Query({}, as_of=simulator.as_of))
        assert len(rows) > 20 and set(rows.keyed) == set(_BILL_KEYED)
        for i in range(0, len(rows), max(1, len(rows) // 25)):
            record, bill = rows[i], rows._keys[i]
            for field, read in rows.keyed.items():
                assert read(bill) == record.get(field), (name, field)
