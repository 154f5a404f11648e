#!/usr/bin/env bash
# The GPUs of one node through accelerate: ddp, zero2 or zero3 (training/accelerate/*.yaml).
#   bash training/launch/multi_gpu.sh zero3 training/configs/qwen3_5_9b_grpo.yaml [KEY=VALUE ...]
# NUM_GPUS (default: all visible) overrides the config's num_processes.
set -euo pipefail
MODE="${1:?usage: multi_gpu.sh ddp|zero2|zero3 CONFIG [KEY=VALUE ...]}"; CONFIG="${2:?config file}"; shift 2
KIND=$(python -c "import sys,yaml;print(yaml.safe_load(open(sys.argv[1]))['kind'])" "$CONFIG")
NUM_GPUS="${NUM_GPUS:-$(python -c 'import torch;print(torch.cuda.device_count())')}"
exec accelerate launch --config_file "training/accelerate/${MODE}.yaml" --num_processes "$NUM_GPUS" \
  -m kopa_replay train "$KIND" --config "$CONFIG" "$@"
