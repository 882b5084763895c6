#!/usr/bin/env bash
# Side-by-side throughput of mmasim 2.1.1 and `mma bench` (single thread), not part of CI.
#
# Installs mmasim 2.1.1 (with torch and ninja, which mmasim needs to compile its kernels) in a
# private virtual environment the first time, builds the `mma` command in release mode, and
# runs `bench_mmasim.py` (its options pass through: --seconds S, --markdown):
#
#     bash xtask/scripts/bench_mmasim.sh --seconds 2 --markdown
#
# MMASIM_VENV (default target/venv-mmasim) places the environment. torch comes from PyPI with
# mmasim (about 5 GB with its CUDA libraries); PIP_TORCH_INDEX=https://download.pytorch.org/whl/cpu
# installs the much smaller CPU-only build first where that index is reachable.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${MMASIM_VENV:-$root/target/venv-mmasim}"
torch_index="${PIP_TORCH_INDEX:-}"

if ! "$venv/bin/python" -c 'import mmasim, torch' 2>/dev/null; then
    echo "installing mmasim 2.1.1 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    if [ -n "$torch_index" ]; then
        "$venv/bin/pip" install --quiet torch --index-url "$torch_index"
    fi
    "$venv/bin/pip" install --quiet mmasim==2.1.1 ninja
fi
version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mmasim"))')"
if [ "$version" != "2.1.1" ]; then
    echo "error: $venv has mmasim $version, not 2.1.1" >&2
    exit 1
fi

(cd "$root" && cargo build --release --bin mma)
# The environment's bin first: mmasim's JIT build looks for `ninja` on PATH.
export PATH="$venv/bin:$PATH"
exec "$venv/bin/python" "$root/xtask/scripts/bench_mmasim.py" --mma "$root/target/release/mma" "$@"
