#!/usr/bin/env bash
# One GPU (an H100/H200 80+ GB): GRPO with vLLM colocated on the same GPU.
#   bash training/launch/single_gpu.sh training/configs/qwen3_5_4b_grpo.yaml [KEY=VALUE ...]
set -euo pipefail
CONFIG="${1:?usage: single_gpu.sh CONFIG [KEY=VALUE ...]}"; shift
KIND=$(python -c "import sys,yaml;print(yaml.safe_load(open(sys.argv[1]))['kind'])" "$CONFIG")
exec kopa-replay train "$KIND" --config "$CONFIG" "$@"
