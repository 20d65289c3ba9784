#!/usr/bin/env bash
# GPU check for the torch engine, on a CUDA machine (no network needed, no install needed):
#   1. the torch-engine tests on CUDA (TENSORCA_TEST_DEVICE=cuda: golden cases, parity, CUDA graphs,
#      no host synchronisation inside the generation loop);
#   2. `tensorca verify --device cuda` (every engine with a CUDA device, against the NumPy reference);
#   3. a short throughput table (B3/S23: 1024^2, 4096^2, 8192^2, 16384^2, a batch of 4096 x 64^2 and
#      the same 64^2 grids one at a time), appended to BENCHMARKS.md with the GPU's name.
# Usage: scripts/gpu_check.sh            (from the repository root; PYTHON=... to pick the interpreter)
# Exits non-zero at once where there is no CUDA device, and non-zero if any step fails.
set -u
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
export PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH}
GPU=$("$PYTHON" -c 'import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>/dev/null)
if [ -z "$GPU" ]; then
    echo "gpu_check: no CUDA device visible to torch here; nothing to check" >&2
    exit 3
fi
TORCH=$("$PYTHON" -c 'import torch; print(torch.__version__)')
echo "== GPU: $GPU, torch $TORCH"
status=0
LOG=$(mktemp -d)

echo "== 1. torch-engine tests on CUDA"
if "$PYTHON" -c 'import pytest' 2>/dev/null; then
    TENSORCA_TEST_DEVICE=cuda timeout 300 "$PYTHON" -m pytest -q -p no:cacheprovider tests/test_torch_engine.py \
        2>&1 | tail -15 | tee "$LOG/tests.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
else
    echo "pytest is not installed here: tests skipped" | tee "$LOG/tests.txt"; status=1
fi

echo "== 2. tensorca verify --device cuda"
timeout 300 "$PYTHON" -m tensorca.cli verify --device cuda 2>&1 | tee "$LOG/verify.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== 3. throughput (B3/S23, torus)"
BENCH=(--device cuda --rule B3/S23 --gens 40 --repeats 5 --markdown)
CMD1="benchmarks/bench_torch.py ${BENCH[*]} --case 1024 --case 4096 --case 8192 --case 16384 --case 4096:64x64 --case 4096:64x64/serial --variants dense-conv,torch,torch:index,torch:conv,torch:graphs"
CMD2="benchmarks/bench_torch.py ${BENCH[*]} --case 8192 --case 4096:64x64 --case 64x64 --variants torch,torch:compile,torch:compile+graphs"
timeout 420 "$PYTHON" $CMD1 2>/dev/null > "$LOG/bench1.md" || status=1
timeout 300 "$PYTHON" $CMD2 2>/dev/null > "$LOG/bench2.md" || status=1

{
    echo
    echo "## torch engine on GPU: $GPU ($(date -u +%Y-%m-%d), torch $TORCH)"
    echo
    echo "Measured by \`scripts/gpu_check.sh\`: \`PYTHONPATH=src python $CMD1\`, then \`... $CMD2\`."
    echo "The \"one at a time\" row runs 64 of the 4096 grids one after another (per-cell rate)."
    echo
    cat "$LOG/bench1.md"
    echo
    cat "$LOG/bench2.md"
} >> BENCHMARKS.md

echo
echo "== summary ($GPU)"
echo "tests:   $(tail -1 "$LOG/tests.txt")"
echo "verify:  $(tail -1 "$LOG/verify.txt")"
cat "$LOG/bench1.md" "$LOG/bench2.md"
echo "(appended to BENCHMARKS.md)"
exit $status
