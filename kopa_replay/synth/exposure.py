"""What a question must never expose: a tool, a call, a value a call returns, the answer, a code a person would
not hold, an exact yes/no threshold. One set of checks for the benchmark's tasks and the training corpus."""

from __future__ import annotations

from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.synth.model import Answer, Trajectory
from kopa_replay.text.keys import question_keys, value_keys
from kopa_replay.text.normalize import text_form

__all__ = ["CODE_DOMAINS", "question_problems", "round_threshold"]

#: value domains a person does not hold: codes a lookup must find (names, places, dates, stop numbers printed on
#: signs, route and stock names are what a question may give)
CODE_DOMAINS = frozenset(
    {
        "corp_code",
        "stock_code",
        "isin",
        "isin_part",
        "crno",
        "bizr_no",
        "rcept_no",
        "region_cd",
        "lawd_cd",
        "seoul_gu_cd",
        "admm_cd",
        "adstrd_cd",
        "tago_city_code",
        "tago_route_id",
        "tago_node_id",
        "seoul_route_id",
        "seoul_station_id",
        "seoul_station_ord",
        "neis_office_code",
        "school_code",
        "elementary_school_code",
        "middle_school_code",
        "high_school_code",
        "law_mst",
        "law_id",
        "prec_serial",
        "mona_cd",
        "bill_id",
        "bill_no",
        "sigun_cd",
    }
)


def round_threshold(threshold: Any) -> bool:
    """At most two significant digits (230, 1,000억, 0.026): a threshold that says nothing exact."""
    digits = str(threshold).lstrip("-").replace(".", "").lstrip("0").rstrip("0")
    return len(digits) <= 2


def question_problems(question: str, answer: Answer, plan: Trajectory, catalog: Catalog) -> list[str]:
    """The never-expose checks every question meets (a benchmark task, proposed or curated, and a corpus item): it
    names no tool (by name or title) and says no 호출, states no value a call returns (nor the answer), a yes/no
    threshold says nothing exact, and the first call gets no code a person would not hold; [] when nothing is
    wrong."""
    from kopa_replay.sim.truth import param_domain
    from kopa_replay.synth.facts import given_args, handed_values

    problems = []
    flat = text_form(question)
    for tool in catalog:
        if tool.name.casefold() in question.casefold() or (tool.title and text_form(tool.title) in flat):
            problems.append(f"the question names the tool {tool.name} ({tool.title})")
    if "호출" in question:
        problems.append("the question says 호출 (a call)")
    keys = question_keys(question)
    for value in [*handed_values(plan), *([] if answer.kind == "bool" else [answer.value])]:
        for key in value_keys(value):
            if key in keys or (key.startswith("T:") and key[2:] in flat):
                problems.append(f"the question states {value!r}, a value a call returns")
                break
    spec = plan.meta.get("answer_spec") or {}
    if spec.get("op") == "threshold" and not round_threshold(spec["threshold"]):
        problems.append(
            f"the yes/no threshold {spec['threshold']!r} is stated to more than two significant "
            "digits: a multiple of the figure it tests gives that figure away"
        )
    steps = {step.index: step for step in plan.steps}
    for index, param, value in given_args(plan, catalog):
        domain = param_domain(steps[index].tool, param)
        if domain in CODE_DOMAINS:
            problems.append(f"the question gives {param}={value!r}, a {domain} the person would not know")
    return problems
