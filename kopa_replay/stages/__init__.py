"""The pipeline's stages as a library: each stage is ``run(config) -> result`` over a frozen config dataclass.

A stage writes its run directory atomically (a partial directory renamed into place) with a ``manifest.json``:
its config, the digests of its inputs and outputs, the snapshot, the catalog and the seed. The CLI derives its
options from the config dataclasses (:func:`kopa_replay.stages.options.click_options`), so names, defaults and
help have one source. Importing this package imports nothing heavy: each stage module loads its library lazily.
"""
