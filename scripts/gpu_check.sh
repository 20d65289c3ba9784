#!/usr/bin/env bash
# One call on a CUDA machine: the GPU tests, `tensorca verify --device cuda` and the GPU
# benchmarks, each under its own time limit (9.7 min of limits in all; the whole run took 5.6 min on
# an H200 on 2026-12-04, Numba's compiles on an empty cache included; GPU_CHECK_ONLY="step ..."
# reruns only the steps named, so a rerun fits in a 15-minute device lease). Needs no network and no install: PYTHONPATH=src with the machine's own python3
# (torch >= 2.4, Triton, pytest, rich, numpy).
#
# Usage (repository root):  scripts/gpu_check.sh
#        GPU_CHECK_ONLY="bitpack soups" scripts/gpu_check.sh   # a rerun of some steps only
# Logs and JSON go to $OUT (the device tool's output folder) or a temporary folder; a Markdown file
# gpu_results.md there is ready to paste into BENCHMARKS.md. The last lines printed are a short
# table. Exit status: 3 when no CUDA device is visible, 1 when any step failed, else 0.
set -u
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
export PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
RESULTS=${OUT:-$(mktemp -d)}
mkdir -p "$RESULTS"
GPU=$("$PYTHON" -c 'import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>/dev/null)
if [ -z "$GPU" ]; then
    echo "gpu_check: no CUDA device visible to torch here; nothing to check" >&2
    exit 3
fi
VERSIONS=$("$PYTHON" -c 'import torch, triton; print(f"torch {torch.__version__}, triton {triton.__version__}")' 2>&1)
echo "== GPU: $GPU ($VERSIONS)"
# The device has 16 cores: where its Python has pytest-xdist, the test steps run in 4 processes
# (Triton compiles each kernel on the CPU, and the compiles then run side by side).
XDIST=$("$PYTHON" -c 'import xdist' 2>/dev/null && echo "-n 4")
status=0
step() {  # step NAME SECONDS COMMAND...: run with a time limit, log to $RESULTS/NAME.txt
    local name=$1 limit=$2; shift 2
    if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ " $GPU_CHECK_ONLY " != *" $name "* ]]; then
        return 0
    fi
    echo "== $name (limit ${limit}s): $*"
    timeout "$limit" "$@" > "$RESULTS/$name.txt" 2>&1
    local rc=$?
    tail -n 4 "$RESULTS/$name.txt"
    [ $rc -eq 0 ] || { echo "!! $name exited $rc"; status=1; }
    echo "$name rc=$rc" >> "$RESULTS/status.txt"
}

# 1. Tests on CUDA: the engine contract on every CUDA device (golden cases, parity on every
#    topology and rule family, refusals, untouched input) for torch, dense-conv and bitpack-gpu;
#    then the torch engine's own tests (paths, graphs, no host sync in the loop), DeviceStream on
#    CUDA; then each Triton kernel compiled for the GPU (only the `cuda` tests of that file: its
#    other tests run the same kernels in the CPU interpreter, as CI does).
step contract 40 env TENSORCA_TEST_DEVICE=cuda "$PYTHON" -m pytest -q -x -p no:cacheprovider $XDIST -m cuda \
    tests/test_engine_contract.py
step tests 50 env TENSORCA_TEST_DEVICE=cuda "$PYTHON" -m pytest -q -x -p no:cacheprovider $XDIST \
    tests/test_torch_engine.py tests/test_data.py
step kernels 60 "$PYTHON" -m pytest -q -x -p no:cacheprovider $XDIST -m cuda tests/test_bitpack_gpu.py
# 2. Every engine with a CUDA device against the NumPy reference, and the zero-padding control
#    (75 s: on a bare machine Numba compiles the CPU engines first; 35 s was too little on 2026-12-04,
#    the rerun took 33 s with part of the cache warm).
step verify 75 "$PYTHON" -m tensorca verify --device cuda
# 3. torch engine: eager paths, CUDA graphs, batched vs one at a time; then compiled. Each rate is
#    also set against its ceiling: the copy bandwidth measured here over the bytes a cell the
#    variant moves a generation, counted (benchmarks/torch_traffic.py: 47 B eager, >= 2 compiled).
step torch_eager 45 "$PYTHON" benchmarks/bench_torch.py --device cuda --rule B3/S23 --gens 40 --repeats 5 \
    --markdown --ceiling --case 1024 --case 8192 --case 16384 --case 4096:64x64 --case 4096:64x64/serial \
    --variants dense-conv,torch,torch:index,torch:conv,torch:graphs
#    Compiled: a cell a byte (path count) against four cells an int32 word (the default); the
#    run keeps the code Inductor generated (inductor_output_code.txt) and the summary counts each
#    kernel's loads: one-byte loads at wrapped indices are what the word step cuts fourfold.
step torch_compiled 50 env TORCH_LOGS=output_code TORCH_LOGS_OUT="$RESULTS/inductor_output_code.txt" \
    "$PYTHON" benchmarks/bench_torch.py --device cuda --rule B3/S23 --gens 40 --repeats 5 \
    --markdown --ceiling --case 8192 --case 4096:64x64 --variants torch:count+compile,torch:compile
# 4. bitpack-gpu: generations per launch x grid size, persistent kernel, graph replay, floors; the
#    batches (4096 x 64^2, 16384 x 16^2, 256 x 256^2) row-packed and lane-per-grid, and the engine
#    end to end against one grid of the same cell count (2048^2, 4096^2); 4 and 8 warps a program;
#    the torus against the plane (what wrapped columns cost).
step bitpack 90 "$PYTHON" benchmarks/bench_bitpack.py --device cuda --quick --sizes 1024,2048,4096,16384 \
    --gens-per-launch 1,2,4,8 --json "$RESULTS/bitpack_gpu.json"
# 5. Batched soups on the GPU: the census of apgsearch-style soups, 1024 planes a batch, and where
#    its time went (stepping on the GPU against the host's census and band work).
step soups 45 "$PYTHON" -m tensorca soup --count 4000 --seed 1 --backend bitpack-gpu --batch 1024 --no-progress
# 6. Batches of 4 to 4096 grids of 64^2 and 16^2: where lane-per-grid beats row-packed grids end to
#    end, and the whole-group kernel the one-generation one (LANES_MIN_BATCH, lanes_whole_min_groups).
step layouts 40 "$PYTHON" benchmarks/gpu_layouts.py --device cuda --json "$RESULTS/layouts.json"
# 7. The crossover sweep on both devices (what backend="auto" is calibrated from; 51 s on 2026-12-04
#    with the CPU kernels to compile, so 85 s).
step bench 85 "$PYTHON" -m tensorca bench --quick --device cuda,cpu --json "$RESULTS/bench_gpu.json" \
    --plot "$RESULTS/bench_gpu.png"

"$PYTHON" benchmarks/gpu_summary.py "$RESULTS" "$GPU" "$VERSIONS" > "$RESULTS/gpu_results.md" 2>&1 || status=1
echo
echo "== summary: $GPU ($VERSIONS); full logs and gpu_results.md in $RESULTS"
cat "$RESULTS/status.txt"
cat "$RESULTS/gpu_results.md"
exit $status
