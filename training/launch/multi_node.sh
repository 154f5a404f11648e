#!/usr/bin/env bash
# Several nodes of 8 GPUs (ZeRO-3). Run on every node with the same MASTER_ADDR and its own NODE_RANK:
#   MASTER_ADDR=10.0.0.1 NODE_RANK=0 NUM_NODES=2 bash training/launch/multi_node.sh training/configs/qwen3_5_9b_grpo.yaml
# Every node needs the same corpus, model cache and cassette store at the same paths (the store is read-only:
# copy runs/corpus.sqlite, or put it on a shared file system).
set -euo pipefail
CONFIG="${1:?usage: multi_node.sh CONFIG [KEY=VALUE ...]}"; shift
: "${MASTER_ADDR:?set MASTER_ADDR}" "${NODE_RANK:?set NODE_RANK}"
NUM_NODES="${NUM_NODES:-2}"; GPUS_PER_NODE="${GPUS_PER_NODE:-8}"; MASTER_PORT="${MASTER_PORT:-29500}"
KIND=$(python -c "import sys,yaml;print(yaml.safe_load(open(sys.argv[1]))['kind'])" "$CONFIG")
exec accelerate launch --config_file training/accelerate/zero3.yaml \
  --num_machines "$NUM_NODES" --num_processes $((NUM_NODES * GPUS_PER_NODE)) --machine_rank "$NODE_RANK" \
  --main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT" \
  -m kopa_replay train "$KIND" --config "$CONFIG" "$@"
