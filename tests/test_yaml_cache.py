"""The parsed-YAML cache behind ``kopa_replay.util.load_yaml``: the same documents as parsing, from a cache that
is content-addressed and that a process passes by when it cannot use it."""

from __future__ import annotations

import datetime as dt
import marshal

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay import util
from kopa_replay.util import load_yaml

_PAD = "# " + "x" * 78 + "\n"


def _long(text: str) -> str:
    """The text with comment lines enough to reach the length the cache keeps."""
    return text + _PAD * (util._CACHED_YAML_MIN_CHARS // len(_PAD) + 1)


def _same(a, b) -> bool:
    """Equal and of the same types all the way down (1 is not 1.0 or True, -0.0 is not 0.0, dict order counts)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, dict):
        return len(a) == len(b) and all(_same(k, m) and _same(a[k], b[m]) for k, m in zip(a, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _entries(folder):
    return sorted((folder / "yaml").glob("*.marshal")) if (folder / "yaml").exists() else []


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(util.CACHE_ENV, str(folder))
    return folder


_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_documents)
def test_a_cached_document_is_the_parsed_one(cache, document):
    text = _long(yaml.safe_dump({"doc": document}, allow_unicode=True, sort_keys=False))
    parsed = yaml.safe_load(text)
    first, again = load_yaml(text), load_yaml(text)
    assert _same(first, parsed) and _same(again, parsed)
    assert again is not first  # a fresh object each time: a caller may change what it got


def test_the_second_read_comes_from_the_cache_and_an_edit_is_parsed_anew(cache, monkeypatch):
    text = _long("tools:\n  - name: a\n    params: {x: 1}\n")
    assert load_yaml(text) == {"tools": [{"name": "a", "params": {"x": 1}}]}
    assert len(_entries(cache)) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(yaml, "load", refuse)
    assert load_yaml(text) == {"tools": [{"name": "a", "params": {"x": 1}}]}
    monkeypatch.undo()
    monkeypatch.setenv(util.CACHE_ENV, str(cache))
    assert load_yaml(text.replace("x: 1", "x: 2")) == {"tools": [{"name": "a", "params": {"x": 2}}]}
    assert len(_entries(cache)) == 2


def test_a_damaged_entry_is_parsed_again_and_replaced(cache):
    text = _long("a: [1, 2, 3]\n")
    load_yaml(text)
    (entry,) = _entries(cache)
    for damage in (b"", b"\x00garbage", entry.read_bytes()[:5]):
        entry.write_bytes(damage)
        assert load_yaml(text) == {"a": [1, 2, 3]}
        assert entry.read_bytes() not in (b"", b"\x00garbage") and load_yaml(text) == {"a": [1, 2, 3]}


def test_entries_are_private_and_a_folder_others_can_fill_is_not_used(cache, tmp_path, monkeypatch):
    text = _long("a: 1\n")
    load_yaml(text)
    (entry,) = _entries(cache)
    assert (cache / "yaml").stat().st_mode & 0o777 == 0o700 and entry.stat().st_mode & 0o777 == 0o600
    # a folder others may write to: what lies there is not read, nothing is written there
    shared = tmp_path / "shared"
    (shared / "yaml").mkdir(parents=True)
    (shared / "yaml").chmod(0o777)
    monkeypatch.setenv(util.CACHE_ENV, str(shared))
    (shared / "yaml" / entry.name).write_bytes(marshal.dumps({"a": "planted"}))  # the same key: the same text
    assert load_yaml(text) == {"a": 1}
    assert [p.name for p in (shared / "yaml").iterdir()] == [entry.name]  # only the planted file


def test_an_entry_that_is_not_a_document_is_not_trusted(cache):
    text = _long("a: 1\n")
    load_yaml(text)
    (entry,) = _entries(cache)
    for planted in (None, 42, "a: 1", compile("1", "x", "eval")):
        entry.write_bytes(marshal.dumps(planted))
        assert load_yaml(text) == {"a": 1}


def test_what_marshal_cannot_hold_and_short_texts_are_parsed_each_time(cache):
    dated = _long("since: 2026-09-01\n")
    assert load_yaml(dated) == {"since": dt.date(2026, 9, 1)} == load_yaml(dated)
    assert load_yaml("a: 1\n") == {"a": 1}
    assert _entries(cache) == []


def test_no_cache_when_switched_off_or_unwritable(tmp_path, monkeypatch):
    text = _long("a: 1\n")
    for off in ("off", ""):
        monkeypatch.setenv(util.CACHE_ENV, off)
        assert util.cache_dir() is None and load_yaml(text) == {"a": 1}
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(util.CACHE_ENV, str(blocked))
    assert load_yaml(text) == {"a": 1} == load_yaml(text)  # cannot be kept: parsed each time, no error
    assert blocked.read_text() == "not a folder"


def test_the_default_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(util.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert util.cache_dir() == tmp_path / "kopa-replay"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert util.cache_dir() == tmp_path / "home" / ".cache" / "kopa-replay"


def test_a_yaml_error_is_raised_as_before_and_nothing_is_kept(cache):
    with pytest.raises(yaml.YAMLError):
        load_yaml(_long("a: [1, 2\n"))
    assert _entries(cache) == []
