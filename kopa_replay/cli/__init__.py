"""The ``kopa-replay`` command line: a thin layer over the library.

Each command parses its options, calls one library function and prints. Any
:class:`~kopa_replay.errors.KopaError` becomes one ``Error: …`` line and exit
code 1 (in :class:`~kopa_replay.cli.common._Group`, in one place; an error that
carries an ``exit_code`` of its own, a showcase step the platform answered with
an error, exits 3 as ``call`` does); other exceptions are bugs and keep their
traceback. Every command that prints a result takes ``--format
text|json|markdown`` (``--json`` the same as ``--format json``), through one
decorator, :func:`~kopa_replay.cli.common._output_option`, and prints through
:func:`~kopa_replay.cli.common._emit`; the README's "Command line" section
holds the exit-code table.

The root group ``cli``, ``main`` and the shared helpers live in
:mod:`kopa_replay.cli.common`; each command group has a module of its own, which
registers its commands on ``cli`` when imported (below). Heavy imports stay
inside the command functions, so ``kopa-replay --help`` stays fast.
"""

from __future__ import annotations

from kopa_replay.cli import (
    bench,
    call,
    cassette,
    catalog,
    drift,
    graph,
    mcp,
    pipeline,
    record,
    sim,
    snapshot,
    synth,
    train,
)
from kopa_replay.cli.common import cli, main

__all__ = ["cli", "main"]

# importing a command module is what registers its commands on ``cli``
_COMMAND_MODULES = (bench, call, cassette, catalog, drift, graph, mcp, pipeline, record, sim, snapshot, synth, train)
