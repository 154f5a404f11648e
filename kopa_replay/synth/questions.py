"""Question writers: the Korean question a trajectory answers, never disclosing what is handed between calls.

A :class:`QuestionWriter` has one verb, ``write(trajectory, catalog) -> str``.

* :class:`TemplateWriter` (the offline default) builds the question from what
  the user knows — the arguments nobody handed over (a company, a date, a
  region; see :func:`kopa_replay.synth.facts.given_args`) — the Korean titles
  of the tools along the chain, each junction's reduction (가장 큰/작은,
  기준 초과, 가장 많이 나온), and the final ask read from the answer spec
  (``meta["answer_spec"]``: 몇 건, 합계는 얼마, 몇 % 증감, 어느 …가 가장 …,
  예/아니오). It states no value handed between calls and not the answer: it
  never reads them, and a guard proves it on every call (the text must not
  change when they are swapped for placeholders, see :func:`blinded`).
* :class:`LLMWriter` asks a model (any :class:`~kopa_replay.llm.ChatClient`)
  with the paper's instruction — never expose a value handed between calls,
  because revealing it lets the step be skipped — and a five-item self-check
  before output. The filter still checks its output: the paper found leaks in
  the output of a model given exactly these instructions.

Writers never fail silently: an empty model answer, or a template whose text
depends on a secret, raises an error naming the trajectory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from kopa_replay.errors import KopaError, SourceError
from kopa_replay.synth.intents import josa
from kopa_replay.synth.model import Trajectory

__all__ = [
    "QuestionWriter",
    "TemplateWriter",
    "IntentWriter",
    "LLMWriter",
    "WRITER_SYSTEM",
    "SELF_CHECK",
    "clean_question",
    "blinded",
    "field_label",
    "param_label",
    "josa",
    "write_all",
]


class QuestionWriter(Protocol):
    """Writes the Korean question ``trajectory`` answers (never a handed value, never the answer)."""

    name: str

    def write(self, trajectory: Trajectory, catalog: Any) -> str: ...


# -- Korean helpers (particles: one reading for every writer, kopa_replay.synth.intents.josa) ------------------
_PAREN = re.compile(r"\([^)]*\)|（[^）]*）")
_CUT = re.compile(r"[;:.=]|\s예[:\s]|\s예$|,")
_FORMAT = re.compile(
    r"\b(?:YYYYMMDDHHMMSS|YYYYMMDD|YYYYMM|YYYY|HHMMSS|HHMM)\b|\d+\s*자리|\b부분일치\b|정확히 일치|일부$"
)


def _korean(description: str) -> str:
    return description.split(" | ", 1)[0]


def _clean_label(description: str, fallback: str) -> str:
    text = _korean(description)
    text = _PAREN.sub(" ", text)
    text = re.sub(r"[(（].*$", " ", text)  # a parenthesis the " | " split left open
    text = _CUT.split(text, 1)[0].strip()
    text = _FORMAT.sub(" ", text)
    text = " ".join(text.split())
    return text or fallback


def param_label(catalog: Any, tool: str, param: str) -> str:
    """The Korean name of a tool parameter, from its description (``"DART 고유번호 8자리 (예 …)"`` → ``"DART 고유번호"``)."""
    try:
        prop = catalog.get(tool).input_schema.get("properties", {}).get(param, {})
    except (KopaError, AttributeError):  # an unknown tool (or no catalog): the parameter's own name will do
        return param
    return _clean_label(str(prop.get("description", "")), param)


def field_label(catalog: Any, tool: str, field: str) -> str:
    """The Korean name of an output field (``"종가(원)"`` → ``"종가"``)."""
    try:
        schema = catalog.get(tool).output_field_schema(field)
    except (KopaError, AttributeError):
        return field
    return _clean_label(str(schema.get("description", "")), field)


def _title(catalog: Any, tool: str) -> str:
    try:
        return catalog.get(tool).title or tool
    except (KopaError, AttributeError):
        return tool


def _date_text(value: str, description: str) -> str | None:
    """A date argument as Korean writes it (``20260831`` → ``2026년 8월 31일``), or None if it is not one."""
    text = str(value)
    try:
        if re.fullmatch(r"\d{8}", text) and any(w in description for w in ("YYYYMMDD", "일자", "날짜", "기준일")):
            when = date(int(text[:4]), int(text[4:6]), int(text[6:]))
            return f"{when.year}년 {when.month}월 {when.day}일"
        if re.fullmatch(r"\d{6}", text) and ("YYYYMM" in description or "년월" in description):
            month = int(text[4:])
            if 1 <= month <= 12:
                return f"{text[:4]}년 {month}월"
        if re.fullmatch(r"\d{4}", text) and ("YYYY" in description or "연도" in description or "년도" in description):
            return f"{text}년"
    except ValueError:
        return None
    return None


def _arg_text(catalog: Any, tool: str, param: str, value: Any) -> str:
    try:
        description = str(catalog.get(tool).input_schema.get("properties", {}).get(param, {}).get("description", ""))
    except (KopaError, AttributeError):
        description = ""
    shown = _date_text(str(value), _korean(description)) or str(value)
    return f"{param_label(catalog, tool, param)} {shown}"


# -- the template -------------------------------------------------------------------
_ORDINAL = ("첫 번째", "두 번째", "세 번째", "네 번째", "다섯 번째", "여섯 번째")


def _number(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else str(x)


class _Template:
    """One question under construction (the trajectory, the catalog, the groups' tools and given args)."""

    def __init__(self, trajectory: Trajectory, catalog: Any) -> None:
        from kopa_replay.synth.facts import given_args  # what the user knows (the filter reads the same)

        self.t, self.catalog = trajectory, catalog
        self.groups: dict[int, list[Any]] = {}
        for step in trajectory.steps:
            self.groups.setdefault(step.group, []).append(step)
        self.given: dict[int, list[str]] = {}
        self.group_of = {step.index: step.group for step in trajectory.steps}
        tool_of = {step.index: step.tool for step in trajectory.steps}
        for index, param, value in given_args(trajectory, catalog):
            text = _arg_text(catalog, tool_of[index], param, value)
            bucket = self.given.setdefault(self.group_of[index], [])
            if text not in bucket:
                bucket.append(text)

    def tool(self, group: int) -> str:
        return self.groups[group][0].tool

    def titled(self, group: int) -> str:
        return f"「{_title(self.catalog, self.tool(group))}」"

    def call(self, group: int, pair: str) -> str:
        """「title」 with the group's own arguments in parentheses; the particle follows the title's reading."""
        title = self.titled(group)
        args = self.given.get(group, [])
        particle = josa(title, pair)[len(title) :]
        return f"{title}({', '.join(args)}){particle}" if args and group else f"{title}{particle}"

    def start(self) -> str:
        args = self.given.get(0, [])
        if not args:
            return f"{self.call(0, '을/를')} 호출하고,"
        return f"{josa(', '.join(args), '으로/로')} {self.call(0, '을/를')} 호출하고,"

    def junction(self, k: int) -> str:
        junction = self.t.junctions[k]
        source, target = self.group_of[junction.source], self.group_of[junction.target]
        source_tool, target_tool = self.tool(source), self.tool(target)
        params = ", ".join(param_label(self.catalog, target_tool, p) for p in sorted(junction.binding))
        call = self.call(target, "을/를")
        reduction = junction.reduction
        if reduction is not None:
            which = self.reduction(source_tool, reduction)
            if len(junction.values) == 1:
                return f"그 결과 중 {which} {josa(params, '으로/로')} {call} 호출하고,"
            return f"그 결과 중 {which} {params} 각각에 대해 {call} 호출하고,"
        if junction.kind == "fan_out":
            return f"그 결과에 나오는 {params} 각각에 대해 {call} 호출하고,"
        return f"그 결과의 {josa(params, '으로/로')} {call} 호출하고,"

    def reduction(self, tool: str, reduction: Any) -> str:
        field = field_label(self.catalog, tool, reduction.field)
        kept = reduction.kept
        many = f" {kept}개" if kept and kept > 1 else ""
        if reduction.op == "max":
            return f"{josa(field, '이/가')} 가장 큰{many}"
        if reduction.op == "min":
            return f"{josa(field, '이/가')} 가장 작은{many}"
        if reduction.op == "threshold":
            return f"{josa(field, '이/가')} {_number(reduction.threshold)} 초과인"
        return f"가장 많이 나온{many}"

    # the ask
    def figure(self, spec: Mapping[str, Any]) -> str:
        """A numeric spec as a noun phrase (``「주식시세」 결과의 종가``)."""
        op = spec.get("op")
        if op == "count":
            return f"{self.titled(spec['group'])} 결과 건수"
        if op == "sum":
            field = field_label(self.catalog, self.tool(spec["group"]), spec["field"])
            return f"{self.titled(spec['group'])} 결과의 {field} 합계"
        if op == "value":
            group = spec["group"]
            field = field_label(self.catalog, self.tool(group), spec["field"])
            which = ""
            if len(self.groups.get(group, ())) > 1:
                which = f" {_ORDINAL[min(spec.get('branch', 0), len(_ORDINAL) - 1)]} 조회"
            return f"{self.titled(group)}{which} 결과의 {field}"
        if op == "pct_change":
            return f"{self.figure(spec['b'])} 대비 {self.figure(spec['a'])}의 증감률"
        if op == "difference":
            return f"{self.figure(spec['a'])}에서 {self.figure(spec['b'])}을(를) 뺀 값"
        raise KopaError(
            f"question writer 'template': trajectory {self.t.id} has an answer spec {op!r} it cannot phrase"
        )

    def unit(self) -> str:
        unit = self.t.answer.unit
        return {"s": "초"}.get(unit, unit)

    def ask(self) -> str:
        spec = self.t.meta.get("answer_spec") or {}
        op = spec.get("op")
        if op is None:
            return self.ask_without_spec()
        if op == "count":
            return f"{self.titled(spec['group'])} 결과는 모두 몇 건입니까?"
        if op == "pct_change":
            a, b = self.figure(spec["a"]), self.figure(spec["b"])
            return f"{josa(a, '은/는')} {b}보다 몇 % 높습니까? (낮으면 음수로 답하세요)"
        if op in ("sum", "value", "difference"):
            unit = self.unit()
            tail = f"몇 {unit}입니까?" if unit else "얼마입니까?"
            return f"{josa(self.figure(spec), '은/는')} {tail}"
        if op in ("argmax", "argmin"):
            return self.ask_compare(spec)
        if op == "threshold":
            cmp = "보다 큽니까" if spec["cmp"] == ">" else "보다 작습니까"
            unit = self.unit() if spec["of"].get("op") != "pct_change" else "%"
            return f"{josa(self.figure(spec['of']), '이/가')} {_number(spec['threshold'])}{unit}{cmp}? (예/아니오)"
        raise KopaError(
            f"question writer 'template': trajectory {self.t.id} has an answer spec {op!r} it cannot phrase"
        )

    def ask_compare(self, spec: Mapping[str, Any]) -> str:
        group = spec["group"]
        tool = self.tool(group)
        metric = spec["metric"]
        most = spec["op"] == "argmax"
        if metric["agg"] == "count":
            what = f"{self.titled(group)} 결과 건수가 가장 {'많은' if most else '적은'}"
        else:
            field = field_label(self.catalog, tool, metric["field"])
            field = f"{field} 합계" if metric["agg"] == "sum" else field
            what = f"{self.titled(group)} 결과의 {josa(field, '이/가')} 가장 {'큰' if most else '작은'}"
        if spec.get("label"):
            label = field_label(self.catalog, tool, spec["label"])
        else:  # the branches are named by the values handed to them: say which parameter those fill
            feeding = [j for j in self.t.junctions if self.group_of.get(j.target) == group]
            params = sorted(feeding[0].binding) if feeding else []
            label = ", ".join(param_label(self.catalog, tool, p) for p in params) or "대상"
        return f"{what} 것은 어느 {label}입니까?"

    def ask_without_spec(self) -> str:
        kind, unit = self.t.answer.kind, self.unit()
        if kind == "number":
            return f"최종 결과는 몇 {unit}입니까?" if unit else "최종 결과 값은 얼마입니까?"
        if kind == "bool":
            return "조건을 만족합니까? (예/아니오)"
        if kind == "set":
            return "해당하는 항목을 모두 나열하면 무엇입니까?"
        return "최종 결과는 무엇입니까?"

    def question(self) -> str:
        parts = [self.start()] + [self.junction(k) for k in range(len(self.t.junctions))]
        # the last call closes the chain: "…을 호출했을 때, <ask>"
        parts[-1] = re.sub(r"호출하고,$", "호출했을 때,", parts[-1])
        return f"{' '.join(parts)} {self.ask()}"


class TemplateWriter:
    """The deterministic Korean question (see the module docstring); the same trajectory gives the same text."""

    name = "template"

    def write(self, trajectory: Trajectory, catalog: Any) -> str:
        question = _Template(trajectory, catalog).question()
        # The guard: the text must not change when every handed value and the answer are swapped for
        # placeholders — then no secret reached it. (A secret that merely coincides with fixed words, a
        # tool title saying 서울시 when 서울시 is handed, is the filter's to judge, not a writer failure.)
        if _Template(blinded(trajectory), catalog).question() != question:
            raise KopaError(
                f"question writer 'template': the question for trajectory {trajectory.id} depends on "
                "a value handed between calls or on the answer"
            )
        return question


class IntentWriter:
    """The question a person would ask (:mod:`kopa_replay.synth.intents`): the named start, the authored
    relation phrase of every link, each junction's reduction, the answer program's phrase — never a tool, a
    call or a handed code. Deterministic; refuses (``IntentError``, a :class:`KopaError`) what the table
    cannot phrase, and, like :class:`TemplateWriter`, any text that changes when the handed values and the
    answer are blinded."""

    name = "intent"

    def __init__(self, intents: Any = None) -> None:
        self._intents = intents

    def intents(self, catalog: Any) -> Any:
        if self._intents is None:
            from kopa_replay.synth.intents import load_intents

            self._intents = load_intents(catalog=catalog)
        return self._intents

    def write(self, trajectory: Trajectory, catalog: Any) -> str:
        from kopa_replay.synth.phrasing import Phrasing

        intents = self.intents(catalog)
        question = Phrasing(intents, trajectory).question()
        if Phrasing(intents, blinded(trajectory)).question() != question:
            raise KopaError(
                f"question writer 'intent': the question for trajectory {trajectory.id} depends on "
                "a value handed between calls or on the answer"
            )
        return question


def blinded(trajectory: Trajectory) -> Trajectory:
    """``trajectory`` with every handed value and the answer value replaced by placeholders (same shapes)."""
    import dataclasses

    def mask(value: Any, n: int) -> Any:
        if isinstance(value, Mapping):
            return {k: f"⟨{n}.{k}⟩" for k in value}
        return f"⟨{n}⟩"

    junctions = [
        dataclasses.replace(j, values=tuple(mask(v, 100 * k + i) for i, v in enumerate(j.values)))
        for k, j in enumerate(trajectory.junctions)
    ]
    bound: dict[int | None, set[str]] = {}
    group_of = {step.index: step.group for step in trajectory.steps}
    for junction in trajectory.junctions:
        bound.setdefault(group_of.get(junction.target), set()).update(junction.binding)
    steps = [
        dataclasses.replace(
            step,
            args={p: (f"⟨{step.index}.{p}⟩" if p in bound.get(step.group, ()) else v) for p, v in step.args.items()},
        )
        for step in trajectory.steps
    ]
    answer = dataclasses.replace(trajectory.answer, value="⟨answer⟩")
    return dataclasses.replace(trajectory, steps=steps, junctions=junctions, handed=(), answer=answer)


# -- the model-backed writer ------------------------------------------------------------
WRITER_SYSTEM = (
    "당신은 한국 공공데이터 API 도구를 여러 번 호출해야 풀 수 있는 과제의 한국어 질문을 작성합니다.\n"
    "규칙:\n"
    "1. 호출과 호출 사이에 넘겨지는 값(아래 '노출 금지 값')을 질문에 절대 쓰지 마세요. 그 값을 드러내면 "
    "그 값을 얻는 호출 단계를 건너뛸 수 있게 되어 과제가 무너집니다. 숫자·날짜·코드는 쉼표, 소수점, "
    "날짜 형식, 앞자리 0, 띄어쓰기를 바꾼 표기도 모두 노출입니다.\n"
    "2. 정답이나 정답을 짐작하게 하는 값도 쓰지 마세요.\n"
    "3. 사용자가 아는 시작 정보(회사명, 날짜, 지역 등)는 질문에 분명히 적으세요.\n"
    "4. 자연스러운 한국어로 쓰고, 한자·일본어 문자나 영어 필드명을 섞지 마세요.\n"
    "5. 답이 하나로 정해지고 자동 채점할 수 있게 물으세요(숫자, 짧은 이름, 예/아니오)."
)

#: the five-item self-check the model runs before answering (the paper's query-generation prompt has one)
SELF_CHECK = (
    "출력하기 전에 다음 다섯 가지를 스스로 점검하고, 하나라도 어긋나면 고쳐 쓰세요(점검 내용은 출력하지 마세요):\n"
    "① 노출 금지 값이 어떤 표기로도 질문에 들어 있지 않은가?\n"
    "② 정답 값이 질문에 드러나지 않는가?\n"
    "③ 모든 호출 단계를 거쳐야만 답할 수 있는가(건너뛸 수 있는 단계가 없는가)?\n"
    "④ 답이 하나로 정해지고 자동 채점이 가능한 형식인가?\n"
    "⑤ 한자·가나 없이 자연스러운 한국어 질문 한 문장(또는 두 문장)인가?\n"
    "질문 문장만 출력하세요."
)

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_LABEL = re.compile(r"^(?:질문|최종 질문|question)\s*[:：]\s*", re.IGNORECASE)
_QUOTES = "\"'“”‘’「」『』`"


def clean_question(text: str) -> str:
    """The question in a model's answer: code fences, a ``질문:`` label and surrounding quotes removed."""
    text = (text or "").strip()
    text = _FENCE.sub("", text).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    text = " ".join(lines)
    text = _LABEL.sub("", text).strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


class LLMWriter:
    """A model writes the question. ``client`` has ``chat(messages) -> str`` (a ChatClient)."""

    def __init__(self, client: Any, *, draft: QuestionWriter | None = None) -> None:
        self.client = client
        self.draft = draft if draft is not None else IntentWriter()
        self.name = f"llm:{getattr(client, 'model', 'model')}"

    def messages(self, trajectory: Trajectory, catalog: Any) -> list[dict[str, str]]:
        """The prompt (public, so tests and logs can read it)."""
        from kopa_replay.synth.facts import answer_values, given_args, handed_values

        steps = []
        for step in trajectory.steps:
            steps.append(f"- 단계 {step.index} (묶음 {step.group}): {_title(catalog, step.tool)} [{step.tool}]")
        links = []
        for k, j in enumerate(trajectory.junctions):
            how = j.kind if j.reduction is None else f"{j.kind}, {j.reduction.op}({j.reduction.field})"
            links.append(f"- 연결 {k}: 단계 {j.source} 결과 → 단계 {j.target} 입력 {dict(j.binding)} ({how})")
        given = [
            f"{param_label(catalog, tool, p)}={v}"
            for tool, p, v in ((trajectory.steps[i].tool, p, v) for i, p, v in given_args(trajectory, catalog))
        ]
        forbidden = [str(v) for v in handed_values(trajectory)] + [str(v) for v in answer_values(trajectory)]
        try:
            draft = self.draft.write(trajectory, catalog)
        except KopaError:
            draft = ""
        user = "\n".join(
            [
                "과제의 실행 기록:",
                *steps,
                *links,
                f"사용자가 아는 시작 정보: {', '.join(given) or '없음'}",
                f"정답 형식: {trajectory.answer.kind}"
                + (f" (단위 {trajectory.answer.unit})" if trajectory.answer.unit else ""),
                f"정답 계산식: {trajectory.answer.derivation}",
                f"노출 금지 값: {json.dumps(forbidden, ensure_ascii=False)}",
                *([f"참고 초안(더 자연스럽게 고쳐 쓰세요): {draft}"] if draft else []),
                "",
                SELF_CHECK,
            ]
        )
        return [{"role": "system", "content": WRITER_SYSTEM}, {"role": "user", "content": user}]

    def write(self, trajectory: Trajectory, catalog: Any) -> str:
        answer = self.client.chat(self.messages(trajectory, catalog))
        question = clean_question(answer)
        if not question:
            raise SourceError(
                f"question writer {self.name!r}: the model answered no question for trajectory "
                f"{trajectory.id} (got {str(answer)[:80]!r})"
            )
        return question


def write_all(writer: QuestionWriter, trajectories: Sequence[Trajectory], catalog: Any) -> list[Trajectory]:
    """Each trajectory with its question written (copies; the inputs are not modified)."""
    import dataclasses

    return [dataclasses.replace(t, question=writer.write(t, catalog)) for t in trajectories]
