"""The optional LLM binding scorer: an OpenAI-compatible model judges a (source, target) pair.

EDGE's Phase A asks a model whether the source tool's output can fill the
target tool's inputs and with which binding. The paper's lesson, kept in the
instructions here, is that Korean public APIs name the same value differently
on every platform (``SIGUN_NM`` / ``REGION_NM`` / ``rgn``), so the model must
judge by meaning and check formats, not compare names.

The model's answer is untrusted text: :func:`parse_answer` finds the JSON
object in it (fences and chatter tolerated) and :func:`verdict` turns it into a
:class:`~kopa_replay.graph.model.Scored`, clamping the feasibility and
dropping bindings that name parameters or fields the tools do not have. An
answer that cannot be read scores 0 with a reason instead of raising, so one
bad completion costs one candidate link, not the run. Both are pure functions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kopa_replay.catalog.model import Tool
from kopa_replay.errors import SourceError, UsageError
from kopa_replay.graph.model import Scored

__all__ = ["ChatModel", "LLMScorer", "LANGUAGES", "build_messages", "parse_answer", "verdict"]

#: how much of an unreadable answer a reason quotes
_EXCERPT = 120

_MAPPING_TABLE = """\
| meaning / 의미 | names / 이름 |
|---|---|
| region name / 지역명 | SIGUN_NM, REGION_NM, rgn |
| DART corporate code, 8 digits / DART 고유번호 8자리 | corp_code, fssCorpUnqNo |
| stock code, 6 digits / 종목코드 6자리 | srtnCd, ISU_SRT_CD, stock_code |
| date YYYYMMDD / 날짜 YYYYMMDD | basDt, basDd, bas_dd, MLSV_YMD |"""

_ANSWER_SHAPE = '{"feasibility": <0..1>, "bindings": {"<target_param>": "<source_field>"}, "reason": "..."}'

_INSTRUCTIONS = {
    "en": f"""\
You judge candidate links of a tool-dependency graph over Korean public APIs. A link from a SOURCE tool to a \
TARGET tool is feasible when values of the SOURCE tool's output fields can be passed as the TARGET tool's input \
parameters, so that calling SOURCE first and then TARGET works.

Judge by MEANING, not by name:
- Bind a TARGET parameter to a SOURCE field whenever both hold the same kind of value, even when their names \
differ. Never reject a binding merely because the names look different.
- Fields that mean the same thing under different names, for example:
{_MAPPING_TABLE}
- Check formats before binding, even when names are equal: digit counts (an 8-digit corp_code is not a 6-digit \
stock code), YYYYMMDD vs YYYYMM, and code namespaces (a legal-dong code is not an administrative-dong code; an \
exchange issue code is not a DART corporate code).
- Bind only parameters of the TARGET tool to output fields of the SOURCE tool, spelled exactly as listed. Leave \
out parameters the SOURCE cannot supply (a caller fills them, e.g. date ranges).
- feasibility: 0 = SOURCE can fill no TARGET input; 1 = it clearly fills the key inputs in the right format.

Answer with ONLY a JSON object and no other text:
{_ANSWER_SHAPE}""",
    "ko": f"""\
당신은 한국 공공 API 도구 의존 그래프의 후보 연결을 판정합니다. SOURCE 도구의 출력 필드 값을 TARGET 도구의 입력 \
파라미터로 넘겨 SOURCE를 먼저, TARGET을 다음에 호출할 수 있으면 SOURCE → TARGET 연결이 성립합니다.

이름이 아니라 의미로 판단하세요 (judge by MEANING, not by name):
- 두 값이 같은 종류의 값이면 이름이 달라도 TARGET 파라미터를 SOURCE 필드에 바인딩하세요. 이름이 달라 보인다는 \
이유만으로 바인딩을 거부하지 마세요.
- 이름은 다르지만 같은 뜻인 필드의 예:
{_MAPPING_TABLE}
- 이름이 같아도 바인딩 전에 형식을 확인하세요: 자릿수(8자리 corp_code는 6자리 종목코드가 아닙니다), YYYYMMDD와 \
YYYYMM, 코드 체계(법정동 코드와 행정동 코드, 거래소 종목코드와 DART 고유번호는 서로 다릅니다).
- TARGET 도구의 파라미터만 SOURCE 도구의 출력 필드에, 아래에 적힌 이름 그대로 바인딩하세요. SOURCE가 채울 수 \
없는 파라미터(예: 조회 기간)는 빼세요. 호출자가 채웁니다.
- feasibility: 0 = SOURCE가 TARGET 입력을 하나도 채울 수 없음, 1 = 핵심 입력을 올바른 형식으로 분명히 채움.

다른 텍스트 없이 JSON 객체 하나만 답하세요:
{_ANSWER_SHAPE}""",
}

_LABELS = {
    "en": {
        "source": "SOURCE tool (its output fields feed the target)",
        "target": "TARGET tool (its input parameters are to be filled)",
        "name": "name",
        "title": "title",
        "description": "description",
        "inputs": "input parameters",
        "outputs": "output fields",
        "required": "required",
        "optional": "optional",
        "none": "(none)",
        "ask": "Which TARGET input parameters can SOURCE output fields fill? Answer with the JSON object only.",
    },
    "ko": {
        "source": "SOURCE 도구 (출력 필드가 TARGET 입력이 됨)",
        "target": "TARGET 도구 (입력 파라미터를 채울 도구)",
        "name": "이름",
        "title": "제목",
        "description": "설명",
        "inputs": "입력 파라미터",
        "outputs": "출력 필드",
        "required": "필수",
        "optional": "선택",
        "none": "(없음)",
        "ask": "SOURCE의 출력 필드로 TARGET의 어떤 입력 파라미터를 채울 수 있습니까? JSON 객체만 답하세요.",
    },
}

LANGUAGES = tuple(sorted(_INSTRUCTIONS))


class ChatModel(Protocol):
    """What the scorer needs of a client: the model's name and one chat call (see :class:`~kopa_replay.llm.ChatClient`)."""

    model: str

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> str: ...


# -- the prompt -------------------------------------------------------------------
def _pick(text: str, language: str) -> str:
    """One side of a catalog's bilingual ``"한국어 | English"`` text (both when it is not bilingual)."""
    ko, sep, en = str(text).partition(" | ")
    if not sep:
        return ko.strip()
    return (ko if language == "ko" else en).strip() or (en or ko).strip()


def _describe(tool: Tool, labels: Mapping[str, str], language: str) -> list[str]:
    description = (
        (tool.description_ko if language == "ko" else tool.description_en) or tool.description_en or tool.description_ko
    )
    lines = [
        f"{labels['name']}: {tool.name}",
        f"{labels['title']}: {tool.title}",
        f"{labels['description']}: {description}",
        f"{labels['inputs']}:",
    ]
    properties = tool.input_schema.get("properties", {})
    required = set(tool.required)
    for param in tool.params:
        schema = properties.get(param, {})
        need = labels["required"] if param in required else labels["optional"]
        # The pattern states the format (digit counts, YYYYMMDD), which is what the model must check.
        pattern = f" [pattern {schema['pattern']}]" if schema.get("pattern") else ""
        lines.append(
            f"- {param} ({schema.get('type', 'any')}, {need}): "
            f"{_pick(schema.get('description', ''), language)}{pattern}"
        )
    if not tool.params:
        lines.append(labels["none"])
    lines.append(f"{labels['outputs']}:")
    for name in tool.output_fields:
        schema = tool.output_field_schema(name)
        lines.append(f"- {name} ({schema.get('type', 'any')}): {_pick(schema.get('description', ''), language)}")
    if not tool.output_fields:
        lines.append(labels["none"])
    return lines


def build_messages(source: Tool, target: Tool, language: str = "ko") -> list[dict[str, str]]:
    """The system instructions and the user message that shows both tools (deterministic for a pair)."""
    if language not in _INSTRUCTIONS:
        raise UsageError(f"unknown scorer language {language!r} (use one of: {', '.join(LANGUAGES)})")
    labels = _LABELS[language]
    user = [
        f"## {labels['source']}",
        *_describe(source, labels, language),
        "",
        f"## {labels['target']}",
        *_describe(target, labels, language),
        "",
        labels["ask"],
    ]
    return [{"role": "system", "content": _INSTRUCTIONS[language]}, {"role": "user", "content": "\n".join(user)}]


# -- reading the answer ---------------------------------------------------------------
def parse_answer(text: str) -> dict[str, Any] | None:
    """The JSON object in a model's answer, or None.

    Scans every ``{`` and decodes the JSON value starting there, so fences,
    preambles and trailing remarks are skipped. The first object carrying a
    ``feasibility`` key wins (an example object in the chatter does not); failing
    that, the first object found.
    """
    decoder = json.JSONDecoder()
    first: dict[str, Any] | None = None
    start = text.find("{")
    while start != -1:
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # not JSON here (or absurdly nested / long digits): keep scanning
            value = None
        if isinstance(value, dict):
            if "feasibility" in value:
                return value
            first = first if first is not None else value
        start = text.find("{", start + 1)
    return first


def _feasibility(value: Any) -> float | None:
    """A number in [0, 1] from what the model wrote (numbers or numeric strings), or None."""
    if isinstance(value, bool):  # bool is an int to Python, but "true" is no probability
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isnan(number):
        return None
    return min(1.0, max(0.0, number))


def _excerpt(text: str) -> str:
    return repr(text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else ""))


def verdict(text: str, source: Tool, target: Tool) -> Scored:
    """A model's answer as a :class:`Scored`; never raises on what the model wrote."""
    answer = parse_answer(text)
    if answer is None:
        return Scored(0.0, {}, f"unparseable LLM answer (no JSON object): {_excerpt(text)}")
    feasibility = _feasibility(answer.get("feasibility"))
    if feasibility is None:
        return Scored(0.0, {}, f"unparseable LLM answer ('feasibility' missing or not a number): {_excerpt(text)}")
    notes: list[str] = []
    raw = answer.get("bindings", answer.get("binding", {}))
    if not isinstance(raw, Mapping):
        notes.append(f"ignored 'bindings' that is not an object ({type(raw).__name__})")
        raw = {}
    params, fields = set(target.params), set(source.output_fields)
    binding: dict[str, str] = {}
    for param, field in raw.items():
        if not isinstance(field, str):
            notes.append(f"dropped {param}←{field!r}: the source field is not a name")
        elif param.strip() not in params:
            notes.append(f"dropped {param}←{field}: {target.name} has no input parameter {param!r}")
        elif field.strip() not in fields:
            notes.append(f"dropped {param}←{field}: {source.name} has no output field {field!r}")
        else:
            binding[param.strip()] = field.strip()
    if not binding and feasibility > 0.0:
        # A link is only executable through a binding; a verdict without one must not pass the threshold.
        notes.append(f"feasibility {feasibility:g} set to 0: no usable binding")
        feasibility = 0.0
    reason = answer.get("reason", "")
    reason = reason if isinstance(reason, str) else json.dumps(reason, ensure_ascii=False)
    return Scored(feasibility, dict(sorted(binding.items())), "; ".join(part for part in (reason, *notes) if part))


# -- the scorer ------------------------------------------------------------------------
class LLMScorer:
    """A :class:`~kopa_replay.graph.model.BindingScorer` that asks a chat model (temperature 0)."""

    def __init__(self, client: ChatModel, *, language: str = "ko") -> None:
        if language not in _INSTRUCTIONS:
            raise UsageError(f"unknown scorer language {language!r} (use one of: {', '.join(LANGUAGES)})")
        self.client = client
        self.language = language
        self.name = f"llm:{client.model}"

    def score(self, source: Tool, target: Tool) -> Scored:
        messages = build_messages(source, target, self.language)
        try:
            text = self.client.chat(messages, temperature=0.0)
        except SourceError as exc:
            raise SourceError(f"scorer {self.name} on {source.name} → {target.name}: {exc}") from exc
        return verdict(text, source, target)
