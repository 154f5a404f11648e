"""Link-candidate embedders beyond the hashed one: the optional local encoder and the spec parser."""

from __future__ import annotations

import re
import sys

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.graph.embed import TransformersEmbedder, embedder_for
from kopa_replay.text.embed import HashedNgramEmbedder


def test_embedder_for_named_and_unknown_specs(tmp_path):
    assert isinstance(embedder_for(None), HashedNgramEmbedder)
    assert isinstance(embedder_for("hashed"), HashedNgramEmbedder)
    with pytest.raises(UsageError, match="unknown embedder 'bge-m3'"):
        embedder_for("bge-m3")
    with pytest.raises(UsageError, match="no config.json"):
        embedder_for(str(tmp_path))


def test_transformers_embedder_without_transformers_names_the_path(tmp_path, monkeypatch):
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if not installed
    with pytest.raises(UsageError) as info:
        TransformersEmbedder(tmp_path)
    assert str(tmp_path) in str(info.value) and "transformers" in str(info.value)


def test_transformers_embedder_refuses_a_directory_that_is_not_a_model(tmp_path):
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    (tmp_path / "config.json").write_text('{"model_type": "no-such-architecture"}')
    with pytest.raises(UsageError, match=re.escape(str(tmp_path))):
        TransformersEmbedder(tmp_path)
