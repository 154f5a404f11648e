#!/usr/bin/env bash
# vLLM server mode: generation on its own GPUs, training on the rest. On one 8-GPU node:
#   CUDA_VISIBLE_DEVICES=6,7 bash training/launch/vllm_server.sh Qwen/Qwen3.5-9B 2 &
#   CUDA_VISIBLE_DEVICES=0,1,2,3,4,5 NUM_GPUS=6 bash training/launch/multi_gpu.sh zero3 \
#       training/configs/qwen3_5_9b_grpo.yaml trainer.vllm_mode=server trainer.vllm_server_base_url=http://127.0.0.1:8000
# `trl vllm-serve` starts `vllm serve` with the weight-transfer settings trl's client needs (NCCL weight transfer,
# processed logprobs, no logprob cap; trl 1.16 supports vLLM 0.22.0-0.31.0). trl 1.16 marks the command deprecated
# (removal planned for trl 2.0): with a later trl, run the `vllm serve` line it prints instead.
set -euo pipefail
MODEL="${1:?usage: vllm_server.sh MODEL [TENSOR_PARALLEL]}"; TP="${2:-1}"
exec trl vllm-serve --model "$MODEL" --tensor-parallel-size "$TP" --host 0.0.0.0 --port "${PORT:-8000}"
