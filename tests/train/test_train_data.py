"""Training rows: tool schemas from the catalog, retrieved tool sets, and the corpus checks (held-out, contamination)."""

from __future__ import annotations

import functools
import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.bench.suite import load_task_set
from kopa_replay.catalog import builtin_catalog
from kopa_replay.env.retrieval import ToolRetriever
from kopa_replay.errors import UsageError

PAPER = builtin_catalog("paper")
TOOLS = sorted(PAPER.names)


def test_every_tool_function_states_its_input_schema():
    """What a trained model reads is the catalog's inputSchema — names, JSON types, required, enums, descriptions —
    for every one of the 2,318 paper-scale tools (≈3 s)."""
    from kopa_replay.train.tools import tool_schema

    for name in TOOLS:
        tool = PAPER.get(name)
        function = tool_schema(tool)["function"]
        assert function["name"] == name
        props = tool.input_schema.get("properties", {})
        schema = function["parameters"]
        assert set(schema["properties"]) == set(props), name
        assert set(schema.get("required", ())) == set(tool.input_schema.get("required", ())), name
        for param, prop in props.items():
            stated = schema["properties"][param]
            assert stated["type"] == prop.get("type", "string"), (name, param)
            assert stated.get("enum") == prop.get("enum"), (name, param)
            description = " ".join(str(prop.get("description") or param).split())
            assert stated["description"].startswith(description[:60].rstrip()), (name, param)


def test_tool_methods_pass_arguments_through_unchanged(catalog):
    """A wrong name or type reaches the environment (its structural_error), not a Python TypeError."""
    from kopa_replay.train.tools import tool_function

    seen = []
    method = tool_function(catalog.get("dart_corp_code"), lambda self, name, args: seen.append((name, args)) or "x")
    assert method(None, corp_name="라이트론", nonsense=3) == "x"
    assert seen == [("dart_corp_code", {"corp_name": "라이트론", "nonsense": 3})]


def test_tool_sets_route_equal_sets_to_one_class(catalog):
    from kopa_replay.train.tools import SourceSpec, ToolSets

    tool_sets = ToolSets(catalog, SourceSpec())
    a = tool_sets.add(["neis_school_info", "dart_corp_code"])
    assert tool_sets.add(["dart_corp_code", "neis_school_info"]) == a
    b = tool_sets.add(["dart_corp_code"])
    assert a != b and list(tool_sets.factories()) == sorted([a, b])
    cls = tool_sets.factories()[a]
    public = sorted(n for n in dir(cls) if not n.startswith("_") and n != "reset")
    assert public == ["dart_corp_code", "neis_school_info"]  # trl turns exactly these into tools


@functools.cache
def _retriever() -> ToolRetriever:
    return ToolRetriever(builtin_catalog())


@settings(max_examples=60, deadline=None)
@given(
    question=st.sampled_from([t.question_ko for t in load_task_set().tasks]),
    reference=st.lists(st.sampled_from(sorted(builtin_catalog().names)), min_size=1, max_size=4, unique=True),
    k=st.integers(4, 20),
)
def test_offered_tools_hold_the_reference_in_retrieval_order(question, reference, k):
    from kopa_replay.train.data import offered_tools

    retriever = _retriever()
    names, complete = offered_tools(question, reference, retriever, k)
    ranked = [name for name, _ in retriever.top_k(question, len(retriever.names))]
    assert len(names) == k and len(set(names)) == k and set(reference) <= set(names)
    assert names == sorted(names, key=ranked.index)  # a missing reference tool displaces the lowest-ranked other
    assert complete == (set(reference) <= set(ranked[:k]))
    plain, _ = offered_tools(question, reference, retriever, k, include_reference=False)
    assert plain == ranked[:k]


def _copy(corpus, tmp_path):
    target = tmp_path / "corpus"
    shutil.copytree(corpus, target)
    return target


def test_the_filtered_corpus_loads_and_offers_k_tools(catalog, corpus):
    from kopa_replay.synth.export import SYSTEM_PROMPT
    from kopa_replay.train.data import grpo_rows, load_corpus, rows_digest, sft_rows

    loaded = load_corpus(corpus, catalog)
    rows, _ = grpo_rows(loaded, catalog, top_k=6, system=SYSTEM_PROMPT)
    assert len(rows) == len(loaded.trajectories) > 0
    task = json.loads(rows[0]["task"])
    assert task["question_ko"] == rows[0]["prompt"][1]["content"] and task["reference_calls"]
    sft, _ = sft_rows(loaded, catalog, top_k=6)
    assert all(len(row["tools"]) == 6 for row in sft)
    calls = [c for m in sft[0]["messages"] for c in (m.get("tool_calls") or ())]
    assert calls and all(isinstance(c["function"]["arguments"], dict) for c in calls)
    assert rows_digest(rows) == rows_digest(grpo_rows(loaded, catalog, top_k=6, system=SYSTEM_PROMPT)[0])
    assert rows_digest(rows) != rows_digest(grpo_rows(loaded, catalog, top_k=5, system=SYSTEM_PROMPT)[0])


def test_a_corpus_touching_a_held_out_platform_is_refused(catalog, corpus, tmp_path):
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.train.data import load_corpus

    target = _copy(corpus, tmp_path)
    held_out = next(t for t in load_task_set().tasks if t.split == "held_out")
    plan = load_task_set().plans[held_out.id].to_dict()
    plan["id"] = "synth-held-out-0001"
    plan["question"] = "다른 말로 물어본 질문입니다"
    with (target / "trajectories.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(plan, ensure_ascii=False) + "\n")
    with pytest.raises(UsageError, match="held-out platforms") as caught:
        load_corpus(target, catalog)
    assert "synth-held-out-0001" in str(caught.value) and "--exclude-platform dart" in str(caught.value)


def test_a_corpus_holding_a_benchmark_task_is_refused(catalog, corpus, tmp_path):
    """The contamination the audit finds is measured on a benchmark plan written independently of the corpus."""
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.train.data import load_corpus

    task_set = load_task_set()
    main = next(t for t in task_set.tasks if t.split == "main")
    for variant, question in (("verbatim", main.question_ko), ("plan", "전혀 다른 문장으로 같은 일을 시킵니다")):
        target = _copy(corpus, tmp_path / variant)
        plan = task_set.plans[main.id].to_dict()
        plan["id"], plan["question"] = f"synth-leak-{variant}", question
        with (target / "trajectories.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(plan, ensure_ascii=False) + "\n")
        with pytest.raises(UsageError, match="bench audit") as caught:
            load_corpus(target, catalog)
        assert main.id in str(caught.value)


def test_a_malformed_corpus_is_named(catalog, tmp_path):
    from kopa_replay.train.data import load_corpus

    (tmp_path / "trajectories.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(UsageError, match="trajectories.jsonl"):
        load_corpus(tmp_path, catalog)
    (tmp_path / "trajectories.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="not a trajectory"):
        load_corpus(tmp_path, catalog)


def test_sft_conversations_must_be_checked_trajectories(catalog, corpus, tmp_path):
    from kopa_replay.train.data import load_corpus

    target = _copy(corpus, tmp_path)
    row = json.loads((target / "sft.jsonl").read_text(encoding="utf-8").splitlines()[0])
    row["id"] = "never-checked-0001"
    with (target / "sft.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    with pytest.raises(UsageError, match="never-checked-0001"):
        load_corpus(target, catalog)


def test_contamination_is_checked_without_plans(catalog, corpus, tmp_path):
    """A task set without plans.jsonl still has questions and reference calls: a verbatim question is refused."""
    from kopa_replay.bench.suite import BUILTIN_DIR, load_task_set
    from kopa_replay.train.data import load_corpus

    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    shutil.copyfile(BUILTIN_DIR / "tasks.jsonl", tasks_dir / "tasks.jsonl")
    task_set = load_task_set(tasks_dir)
    assert not task_set.plans
    main = next(t for t in task_set.tasks if t.split == "main")
    target = _copy(corpus, tmp_path)
    first = json.loads((target / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()[0])
    first["id"], first["question"] = "synth-leak-question", main.question_ko
    with (target / "trajectories.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(first, ensure_ascii=False) + "\n")
    with pytest.raises(UsageError, match="1 verbatim") as caught:
        load_corpus(target, catalog, task_set=task_set)
    assert main.id in str(caught.value)


def test_the_ablation_subsets_split_the_corpus_by_shape(catalog, corpus):
    """The paper's ablation: sequential only, parallel + mixed, full — one option, the same checked corpus."""
    from kopa_replay.synth.model import shape_of
    from kopa_replay.train.config import load_config
    from kopa_replay.train.data import load_corpus

    full = load_corpus(corpus, catalog)
    shapes = {t.id: shape_of(t) for t in full.trajectories}
    parts = {}
    for subset in ("sequential", "parallel"):
        wanted = {i for i, shape in shapes.items() if (shape == "sequential") == (subset == "sequential")}
        if not wanted:
            with pytest.raises(UsageError, match=f"no trajectory of the '{subset}' subset"):
                load_corpus(corpus, catalog, subset=subset)
            continue
        loaded = load_corpus(corpus, catalog, subset=subset)
        parts[subset] = {t.id for t in loaded.trajectories}
        assert parts[subset] == wanted and {row["id"] for row in loaded.sft} <= wanted
    assert set().union(*parts.values()) <= set(shapes) and not (
        parts.get("sequential", set()) & parts.get("parallel", set())
    )
    with pytest.raises(UsageError, match="subset must be one of sequential, parallel, full"):
        load_config(None, ["kind=sft", "model=m", "data=d", "output_dir=o", "subset=mixed"])


def test_a_corpus_asking_a_benchmark_question_about_another_place_is_refused(catalog, corpus, tmp_path):
    """Masked-equal: the benchmark's sentence with another name (the item's slot) is the same question."""
    from kopa_replay.bench.contamination import task_names
    from kopa_replay.train.data import load_corpus

    task_set = load_task_set()
    names = task_names(task_set)
    task, name = next(
        (t, n)
        for t in task_set.tasks
        for n in names[t.id]
        if len(n) >= 2 and n in t.question_ko and not any(ch.isdigit() for ch in n)
    )
    target = _copy(corpus, tmp_path)
    rows = [json.loads(line) for line in (target / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]
    leak = dict(rows[0], id="synth-masked-0001", question=task.question_ko.replace(name, "가나다라마바사"))
    leak["meta"] = {**rows[0]["meta"], "slots": {"place": "가나다라마바사"}}
    with (target / "trajectories.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(leak, ensure_ascii=False) + "\n")
    with pytest.raises(UsageError, match=r"0 verbatim, [1-9]\d* equal with names and numbers masked") as caught:
        load_corpus(target, catalog)
    assert task.id in str(caught.value)
