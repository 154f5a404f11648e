"""The paper's execution figures over hand-made links: which links a rate counts."""

from kopa_replay.graph.metrics import paper_metrics
from kopa_replay.graph.model import Link


def _link(name: str, successes: int, structural: int, environmental: int, pruned: bool) -> Link:
    return Link(
        "a",
        name,
        {"x": "y"},
        0.5,
        trials=successes + structural + environmental,
        successes=successes,
        failures={"structural": structural, "environmental": environmental},
        pruned=pruned,
    )


def test_a_link_that_met_only_environmental_failures_is_tried_but_has_no_rate():
    links = [
        _link("kept", 3, 1, 0, False),  # rate 0.75
        _link("cut", 0, 2, 0, True),  # rate 0
        _link("noise", 0, 0, 4, False),  # tried, no rate: a server's bad minute says nothing about the binding
        _link("untried", 0, 0, 0, False),
    ]
    figures = paper_metrics(links)
    assert figures["links_untried"] == 1 and figures["links_rated"] == 2 and figures["pruned_rated"] == 1
    # the identity the report states: before = after - cut share of the rated links × (after - cut rate)
    share = figures["pruned_rated"] / figures["links_rated"]
    assert figures["exec_rate_before"] == 0.375 and figures["exec_rate_after"] == 0.75
    assert abs(figures["exec_rate_before"] - (0.75 - share * (0.75 - figures["exec_rate_pruned"]))) < 1e-9
