"""The ``sim`` group: the built-in simulator of the ten platforms."""

from __future__ import annotations

import click

from kopa_replay.cli.common import _date, _emit, _Group, _output_option, _table, cli
from kopa_replay.stages.common import INCIDENTS_HELP, check_incidents


@cli.group(cls=_Group)
def sim() -> None:
    """Run the built-in simulator of the ten platforms.

    Example: kopa-replay sim serve --port 8765
    """


@sim.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="World seed.")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Serve the APIs as they were on this date.")
@click.option(
    "--fault-rate",
    default=0.0,
    show_default=True,
    type=float,
    help="Probability that an attempt fails environmentally (5xx, rate limit, maintenance).",
)
@click.option(
    "--world-size",
    type=click.Choice(["default", "full"]),
    default="full",
    show_default=True,
    envvar="KOPA_WORLD_SIZE",
    show_envvar=True,
    help="World size preset: 'full' has the real platforms' sizes (114,106 DART companies …; built on the first "
    "call that needs each part, ≈15 s in all), 'default' is the small world the tests use.",
)
@click.option(
    "--latency",
    "latency_ms",
    default=0.0,
    show_default=True,
    type=click.FloatRange(min=0.0),
    metavar="MS",
    help="Simulated network latency: wait MS milliseconds before each answer (requests are served concurrently, "
    "so the wait holds up no other request).",
)
@click.option("--incidents", default="", metavar="SPEC", help=INCIDENTS_HELP)
def sim_serve(host, port, seed, as_of, fault_rate, world_size, latency_ms, incidents) -> None:
    """Serve the simulator over HTTP, the real host as the first path segment.

    Example: kopa-replay sim serve --port 8765 --seed 0 --as-of 2026-09-01 --latency 50
    then GET http://127.0.0.1:8765/opendart.fss.or.kr/api/company.json?crtfc_key=sim-key&corp_code=…
    """
    from kopa_replay.sim import Simulator, make_server

    check_incidents(incidents, "sim")
    simulator = Simulator(
        seed=seed, as_of=_date(as_of, "--as-of"), fault_rate=fault_rate, world_size=world_size, incidents=incidents
    )
    server = make_server(simulator, host, port, latency_ms=latency_ms)  # a port in use: a UsageError naming it
    click.echo(
        f"serving the simulator (seed {seed}, as of {simulator.as_of}, world {world_size}) on {server.url}/"
        f"<real host>/<path>; key 'sim-key' or $KOPA_API_KEY"
        f"{f'; {latency_ms:g} ms latency' if latency_ms else ''}"
        f"{f'; incidents {incidents}' if incidents else ''}. Ctrl-C stops.",
        err=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@sim.command("drift-events")
@click.option("--since", help="Only events after this date (YYYY-MM-DD).")
@click.option("--until", help="Only events on or before this date (YYYY-MM-DD).")
@_output_option()
def sim_drift_events(since, until, fmt) -> None:
    """List the simulator's dated API changes.

    Example: kopa-replay sim drift-events --since 2026-09-01 --until 2026-12-01 --json
    """
    from kopa_replay.sim import events_between

    events = events_between(_date(since, "--since"), _date(until, "--until"))

    def text() -> str:
        rows = [[e.date, e.platform, e.tool, e.field, e.kind, e.note] for e in events]
        return _table(["date", "platform", "tool", "field", "change", "note"], rows) + f"\n{len(events)} events"

    _emit(fmt, [e.to_dict() for e in events], text)
