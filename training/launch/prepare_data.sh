#!/usr/bin/env bash
# The training corpus, offline: prune the graph, synthesize the corpus families without the held-out platforms —
# recording every call into snapshot `corpus` of runs/corpus.sqlite, sealed, so GRPO rollouts replay exactly what
# synthesis saw — filter. Decontamination against the benchmark is on by default in synth and filter; `train`
# refuses a corpus that `bench audit` still finds benchmark tasks in. The shipped families declare 2,269 instances;
# 2,400 asks for all of them (the README's corpus recipe: ≈ 2,100 kept by the filter). The paper's ablation
# trains on one subset of the same corpus: `kopa-replay train sft --config C subset=sequential` (or parallel).
#   bash training/launch/prepare_data.sh [TRAJECTORIES]
set -euo pipefail
N="${1:-2400}"
kopa-replay graph build --run-dir runs/graph
kopa-replay graph prune --run-dir runs/graph
kopa-replay synth --graph-dir runs/graph --out runs/synth --trajectories "$N" \
  --exclude-platform dart --exclude-platform krx --exclude-platform seoul \
  --snapshot corpus --mode record --store runs/corpus.sqlite
kopa-replay snapshot seal corpus --store runs/corpus.sqlite
kopa-replay filter --in runs/synth
kopa-replay bench audit --train runs/synth/filtered/trajectories.jsonl
