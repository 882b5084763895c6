#!/usr/bin/env bash
# Side-by-side throughput of `mma` and mmasim 2.1.1 (one thread, one instruction of every class,
# issue 13), not part of CI.
#
# The first time, installs mmasim 2.1.1 (with torch, NumPy and ninja, which mmasim needs to
# compile its kernels) in a private virtual environment. Every time: builds the `mma` command in
# release mode (a no-op when it is up to date), rebuilds this repository's Python package `mma`
# in that environment when a Rust source is newer than it (the script checks with it that both
# tools give the same bits on the same inputs), and runs `bench_mmasim.py`, whose options pass
# through (--dots N, --seconds S, --repeat R, --only TEXT, --markdown):
#
#     bash xtask/scripts/bench_mmasim.sh --repeat 3 --markdown
#
# MMASIM_VENV (default target/venv-mmasim) places the environment; an existing one with mmasim
# 2.1.1 and torch is used as it is (an editable install of the package stays editable). torch
# comes from PyPI with mmasim (about 5 GB with its CUDA libraries);
# PIP_TORCH_INDEX=https://download.pytorch.org/whl/cpu installs the much smaller CPU-only build
# first where that index is reachable.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${MMASIM_VENV:-$root/target/venv-mmasim}"
torch_index="${PIP_TORCH_INDEX:-}"

if ! "$venv/bin/python" -c 'import mmasim, torch, numpy' 2>/dev/null; then
    echo "installing mmasim 2.1.1 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    if [ -n "$torch_index" ]; then
        "$venv/bin/pip" install --quiet torch --index-url "$torch_index"
    fi
    "$venv/bin/pip" install --quiet mmasim==2.1.1 ninja numpy
fi
version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mmasim"))')"
if [ "$version" != "2.1.1" ]; then
    echo "error: $venv has mmasim $version, not 2.1.1" >&2
    exit 1
fi

(cd "$root" && cargo build --release -p mma-cli)

# The environment's bin first: mmasim's JIT build looks for `ninja` on PATH, and a build of the
# package without isolation runs the environment's `maturin`.
export PATH="$venv/bin:$PATH"

# The Python package runs the engine of this tree: rebuild it when any Rust source is newer.
so="$("$venv/bin/python" -c 'import mma._mma as m; print(m.__file__)' 2>/dev/null || true)"
newer=""
if [ -n "$so" ]; then
    newer="$(find "$root/crates" -name target -prune -o -name '*.rs' -newer "$so" -print -quit)"
fi
if [ -z "$so" ] || [ -n "$newer" ]; then
    echo "building the mma Python package into $venv" >&2
    # With maturin already in the environment, build there (no download of the build backend).
    isolation=""
    if "$venv/bin/python" -c 'import maturin' 2>/dev/null; then isolation="--no-build-isolation"; fi
    case "$so" in
        "$root"/crates/mma-py/python/*)
            "$venv/bin/pip" install --quiet --no-deps $isolation -e "$root/crates/mma-py" ;;
        *)
            "$venv/bin/pip" install --quiet --no-deps $isolation --force-reinstall \
                "$root/crates/mma-py" ;;
    esac
fi

exec "$venv/bin/python" "$root/xtask/scripts/bench_mmasim.py" --mma "$root/target/release/mma" "$@"
