#!/usr/bin/env bash
# The library GEMM against mmaemu 0.1.0's CPU path on the same call (issue 36), not part of CI:
# a size³ e4m3 × e4m3 → bf16 `torch._scaled_mm` on the RTX 4060 platform, one thread, fast and
# slow accumulation, timed in both, and the two results compared bit for bit.
#
# The first time, installs the mmaemu wheel (never its source distribution, which holds
# recordings the project does not use) with torch and NumPy in a private virtual environment,
# and this repository's Python package into it; then runs bench_mmaemu.py (options pass through:
# --size N, --repeat R):
#
#     bash xtask/scripts/bench_mmaemu.sh --size 1024 --repeat 3
#
# MMAEMU_VENV (default target/venv-mmaemu) places the environment.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${MMAEMU_VENV:-$root/target/venv-mmaemu}"

if ! "$venv/bin/python" -c 'import mmaemu, torch, numpy, ml_dtypes' 2>/dev/null; then
    echo "installing mmaemu 0.1.0 (wheel only) into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet torch numpy ml_dtypes
    "$venv/bin/pip" install --quiet --no-deps --only-binary=:all: mmaemu==0.1.0
fi
if ! "$venv/bin/python" -c 'import mma; mma.scaled_mm' 2>/dev/null \
    || [ -n "$(find "$root/crates" -name '*.rs' -newer "$venv/.mma-built" 2>/dev/null | head -1)" ] \
    || [ ! -e "$venv/.mma-built" ]; then
    "$venv/bin/pip" install --quiet "$root/crates/mma-py"
    touch "$venv/.mma-built"
fi
MMAEMU_DISABLE_CUDA=1 OMP_NUM_THREADS=1 "$venv/bin/python" "$root/xtask/scripts/bench_mmaemu.py" "$@"
