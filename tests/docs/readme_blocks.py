"""The README's fenced code blocks and their shell lines, read as a user's shell reads them (no execution here).

A block is keyed by its first line (stable: editing it makes ``tests/docs/test_readme.py`` ask for the block
to be placed in its table again). A shell block is read line by line: backslash continuations joined, blank and
comment-only lines dropped; a trailing ``# exit N`` comment is the exit status the README says the line ends
with. A line splits into simple commands at ``&&``, ``||``, ``;``, ``|`` and ``&``, without redirections and
with ``$NAME`` expanded from the block's own assignments (``S=/tmp/drift/…``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Block", "Command", "commands", "expected_exit", "fenced_blocks", "read_blocks", "shell_lines"]

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_EXIT = re.compile(r"#\s*exit (\d+)\s*$")
_CONTROL = {"&&", "||", ";", "|", "&"}
_REDIRECT = {">", ">>", "<", ">&", "&>"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language (the info string's first word, "" for none), where it opens (1-based line
    of the fence) and its text."""

    language: str
    line: int
    text: str

    @property
    def key(self) -> str:
        """The block's first line, as written."""
        return self.text.splitlines()[0] if self.text.strip() else ""


@dataclass(frozen=True)
class Command:
    """A simple command: its words (assignments in front taken off) and whether ``&`` sends it to the
    background."""

    words: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    background: bool = False


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text, in order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening["fence"], opening["info"].strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (lines[j].startswith(fence[0] * len(fence)) and not lines[j].strip(fence[0])):
            body.append(lines[j])
            j += 1
        blocks.append(Block(info.split()[0] if info else "", i + 1, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def shell_lines(text: str) -> list[str]:
    """A shell block's logical lines: continuations joined, blank and comment-only lines dropped."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = (pending + raw).strip()
        pending = ""
        if line and not line.startswith("#"):
            out.append(line)
    if pending.strip():
        out.append(pending.strip())
    return out


def expected_exit(line: str) -> int:
    """The exit status the README gives a line (a trailing ``# exit N``), 0 when it gives none."""
    found = _EXIT.search(line)
    return int(found.group(1)) if found else 0


def _expand(word: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: variables.get(m.group(1), m.group(0)), word)


def commands(line: str, variables: dict[str, str] | None = None) -> list[Command]:
    """The simple commands of one logical line. A command that is only assignments (``S=…``) sets those
    variables in ``variables`` (the block's, kept across its lines) and yields nothing."""
    variables = {} if variables is None else variables
    line = re.sub(r"(^|\s)\d+(?=[<>])", r"\1", line)  # a redirection's descriptor (the 2 of 2>/dev/null)
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens = list(lexer)
    out: list[Command] = []
    current: list[str] = []

    def close(background: bool) -> None:
        env: dict[str, str] = {}
        while current and _ASSIGNMENT.match(current[0]):
            name, _, value = current.pop(0).partition("=")
            env[name] = _expand(value, variables)
        if current:
            out.append(Command(tuple(_expand(word, variables) for word in current), env, background))
        else:
            variables.update(env)
        current.clear()

    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token in _CONTROL:
            close(background=token == "&")
        elif token in _REDIRECT:
            skip = True  # and the redirection's target
        else:
            current.append(token)
    close(background=False)
    return out


def read_blocks(readme: Path) -> list[Block]:
    return fenced_blocks(readme.read_text(encoding="utf-8"))
