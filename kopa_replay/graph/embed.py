"""Embedders for retrieving link candidates: hashed character n-gram TF-IDF (the default) or a local encoder.

:class:`~kopa_replay.text.embed.HashedNgramEmbedder` (in the foundation's text
module, shared with tool retrieval) needs no model download.
:class:`TransformersEmbedder` mean-pools a local Hugging Face encoder; it is
optional and imports ``transformers`` only when built. :func:`embedder_for`
maps a command-line spec to an embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kopa_replay.errors import UsageError
from kopa_replay.text.embed import HashedNgramEmbedder, text_list

__all__ = ["TransformersEmbedder", "embedder_for"]


class TransformersEmbedder:
    """Mean-pooled, L2-normalized token states of a local Hugging Face / sentence-transformers encoder.

    ``path`` is a model directory (with ``config.json``); nothing is downloaded. Needs the optional
    ``transformers`` and ``torch`` packages (``pip install kopa-replay[train]``).
    """

    def __init__(self, path: str | Path, *, batch_size: int = 32, max_length: int = 256) -> None:
        self.path = Path(path).expanduser()
        if not (self.path / "config.json").is_file():
            raise UsageError(f"{self.path} is not a model directory (no config.json there)")
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise UsageError(
                f"loading the encoder at {self.path} needs transformers and torch "
                f"(pip install 'kopa-replay[train]'): {exc}"
            ) from exc
        try:
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            self._model = transformers.AutoModel.from_pretrained(self.path, local_files_only=True).eval()
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError(f"cannot load an encoder from {self.path}: {exc}") from exc
        self._torch = torch
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.name = f"transformers:{self.path.name}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = text_list(texts)
        torch = self._torch
        batches = []
        for lo in range(0, len(texts), self.batch_size):
            enc = self._tokenizer(
                texts[lo : lo + self.batch_size],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            with torch.no_grad():
                states = self._model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            batches.append(torch.nn.functional.normalize(pooled, dim=-1).float().cpu().numpy())
        if not batches:
            return np.zeros((0, int(self._model.config.hidden_size)), dtype=np.float32)
        return np.concatenate(batches)


# Embedders chosen by name on the command line; any other spec must be a local model directory.
_NAMED: dict[str, Callable[[], Any]] = {"hashed": HashedNgramEmbedder}


def embedder_for(spec: str | None) -> HashedNgramEmbedder | TransformersEmbedder:
    """``None`` or ``"hashed"`` → :class:`HashedNgramEmbedder`; a model directory → :class:`TransformersEmbedder`."""
    if spec is None:
        return HashedNgramEmbedder()
    if spec in _NAMED:
        return _NAMED[spec]()
    if Path(spec).expanduser().is_dir():
        return TransformersEmbedder(spec)
    raise UsageError(
        f"unknown embedder {spec!r}: use {', '.join(map(repr, _NAMED))} or the directory of a local encoder model"
    )
