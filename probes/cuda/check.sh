#!/usr/bin/env bash
# Builds probes/cuda/mma_probe.cu for every target it supports and checks it without a GPU:
#   1. one fat binary (sm_75, sm_80, sm_89, sm_90a, sm_100a, sm_120a) with warnings as errors
#      (nvcc --Werror all-warnings, host -Wall -Wextra -Werror, ptxas --warning-as-error);
#   2. the PTX of every target holds exactly the instruction spellings the harness says it
#      compiles there (`mma_probe --expect-ptx`), and ptxas assembled each target (its .cubin);
#   3. `mma_probe --self-test` passes, and fails under each of its mutations;
#   4. bad case lines are refused with the file and line (no GPU needed for that);
#   5. with MMA_BIN=path/to/mma (this project's CLI) and python3: the harness's spellings
#      against `mma list --vendor nvidia --json`.
# nvcc: from PATH, else $NVCC, else the CUDA 13.5 wheels installed with pip into a temporary
# virtual environment. CUDA 13 cannot target sm_70/sm_72: Volta's m8n8k4 .f16 syntax is checked
# at sm_75. Nothing here runs on a GPU.
#
#   probes/cuda/check.sh            (BUILD_DIR=dir keeps the binary and the PTX there)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${BUILD_DIR:-$(mktemp -d)}"
mkdir -p "$build/keep"
fail=0
say() { printf '%s\n' "$*"; }
bad() { printf 'FAIL: %s\n' "$*"; fail=1; }

# --- the compiler ---------------------------------------------------------------------------
nvcc_bin="$(command -v nvcc || true)"
if [ -z "$nvcc_bin" ] && [ -n "${NVCC:-}" ]; then nvcc_bin="$NVCC"; fi
if [ -z "$nvcc_bin" ]; then
  venv="$build/cuda-venv"
  say "nvcc not on PATH and \$NVCC unset: installing the CUDA 13.5 compiler wheels into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet nvidia-cuda-nvcc==13.5.37 nvidia-cuda-runtime==13.5.37 \
    nvidia-cuda-crt==13.5.37 nvidia-nvvm==13.5.37
  nvcc_bin="$(ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc | head -1)"
fi
[ -x "$nvcc_bin" ] || { say "no usable nvcc ($nvcc_bin)"; exit 1; }
say "nvcc: $nvcc_bin ($("$nvcc_bin" --version | grep -o 'release [0-9.]*, V[0-9.]*'))"

# --- 1. build ---------------------------------------------------------------------------------
targets=(75 80 89 90a 100a 120a)
gencode=()
for t in "${targets[@]}"; do gencode+=(-gencode "arch=compute_$t,code=sm_$t"); done
bin="$build/mma_probe"
say "building $bin for sm_${targets[*]// /, sm_} ..."
if ! "$nvcc_bin" -std=c++17 -O2 --Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
    -Xptxas --warning-as-error -keep -keep-dir "$build/keep" "${gencode[@]}" \
    -o "$bin" "$here/mma_probe.cu"; then
  say "FAIL: build"
  exit 1
fi
say "built: $(du -h "$bin" | cut -f1)"

# --- 2. the PTX of each target ----------------------------------------------------------------
for t in "${targets[@]}"; do
  ptx="$build/keep/mma_probe.compute_$t.ptx"
  cubin="$build/keep/mma_probe.compute_$t.cubin"
  [ -s "$ptx" ] || { bad "no PTX for sm_$t"; continue; }
  [ -s "$cubin" ] || bad "no cubin for sm_$t (ptxas)"
  expect="$("$bin" --expect-ptx "sm_$t" | sort -u)"
  found="$(grep -oE '(mma\.sync\.aligned|wgmma\.mma_async\.sync\.aligned|tcgen05\.mma)[^ ]*' "$ptx" \
    | sort -u)"
  if [ "$expect" != "$found" ]; then
    bad "sm_$t: PTX spellings differ from --expect-ptx:"
    diff <(printf '%s\n' "$expect") <(printf '%s\n' "$found") | head -20 || true
  fi
  n_mma=$(printf '%s\n' "$found" | grep -c '^mma\.sync' || true)
  n_wg=$(printf '%s\n' "$found" | grep -c '^wgmma' || true)
  n_tc=$(printf '%s\n' "$found" | grep -c '^tcgen05' || true)
  say "sm_$t: ptxas assembled $n_mma mma.sync, $n_wg wgmma, $n_tc tcgen05.mma spellings (as expected: $([ "$expect" = "$found" ] && echo yes || echo NO))"
done

# --- 3. self-test and its mutations -------------------------------------------------------------
if out="$("$bin" --self-test 2>&1)"; then say "$out"; else say "$out"; bad "self-test"; fi
nmut=$(grep -o '#define MUTATIONS [0-9]*' "$here/layouts.cuh" | awk '{print $3}')
caught=0
for i in $(seq 1 "$nmut"); do
  if "$bin" --self-test --mutate "$i" >/dev/null 2>&1; then bad "mutation $i not caught"; else
    caught=$((caught + 1)); fi
done
say "self-test mutations caught: $caught/$nmut"

# --- 4. bad lines -------------------------------------------------------------------------------
cases="$build/bad.jsonl"
z='"0000"'
row="$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z,$z"
{
  echo '# comment'
  echo "{\"a_format\":\"bf16\",\"a\":[$row],\"b\":[$row],\"c\":\"3f800000\"}"
  echo "{\"a_format\":\"f16\",\"a\":[$row],\"b\":[$row],\"c\":\"3f800000\"}"
  echo "{\"a\":[$row],\"b\":[$row,$z],\"c\":\"3f800000\"}"
} >"$cases"
set +e
msg="$("$bin" m16n8k16.f32.bf16.bf16.f32 "$cases" "$build/out.jsonl" 2>&1)"
rc=$?
set -e
if [ $rc -eq 2 ] && grep -q "bad.jsonl:3: \"a_format\"" <<<"$msg" && grep -q "bad.jsonl:4: " <<<"$msg" &&
  ! grep -q "bad.jsonl:2:" <<<"$msg"; then
  say "bad lines refused with file:line (exit 2): $(tr '\n' ' ' <<<"$msg")"
else
  bad "bad lines: exit $rc: $msg"
fi
set +e
msg="$("$bin" m64n16k16.f32.f16.f16 "$cases" "$build/out.jsonl" 2>&1)"
rc=$?
set -e
[ $rc -eq 2 ] && say "unlisted spelling refused: $msg" || bad "unlisted wgmma N accepted ($rc)"

# --- 5. against the catalog ---------------------------------------------------------------------
if [ -n "${MMA_BIN:-}" ] && command -v python3 >/dev/null; then
  "$MMA_BIN" list --vendor nvidia --json >"$build/catalog.json"
  "$bin" --list >"$build/list.txt"
  python3 - "$build/catalog.json" "$build/list.txt" <<'EOF' || fail=1
import json, re, sys
cat = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith('#')]
ok = True
for fam, ops in (('mma.sync', ('MMA', 'MMABlockScale')), ('wgmma', ('WGMMA',))):
    mine = {r[1] for r in rows if r[0] == fam}
    mine_names = {r[2].strip('[]') for r in rows if r[0] == fam}
    spell = {x['ptx_isa'] for x in cat if x['op'] in ops}
    names = {x['instruction'] for x in cat if x['op'] in ops}
    print(f"catalog {fam}: {len(mine & spell)} of {len(spell)} distinct PTX spellings covered")
    if not mine <= spell or not mine_names <= names:
        ok = False
        print("  not in the catalog:", sorted((mine - spell) | (mine_names - names))[:10])
    if fam == 'mma.sync' and (mine != spell or mine_names != names):
        ok = False
        print("  missing:", sorted((spell - mine) | (names - mine_names))[:10])
tc_types = {re.search(r'k\d+\.(kind::[^\]]+)', r[2]).group(1) for r in rows if r[0] == 'tcgen05'}
tcs = {x['instruction'] for x in cat if x['op'].startswith('TCGen05')}
cov = {n for n in tcs if n.split('.', 1)[1] in tc_types}
print(f"catalog tcgen05: {len(cov)} of {len(tcs)} instructions covered "
      f"({len(tc_types)} type combinations x M x N; the catalog spells "
      f"{len({x['ptx_isa'] for x in cat if x['op'].startswith('TCGen05')})} .kind forms)")
found = {n.split('.', 1)[1] for n in cov}
if found != tc_types:
    ok = False
    print("  tcgen05 type combinations not in the catalog:", sorted(tc_types - found))
sys.exit(0 if ok else 1)
EOF
else
  say "catalog cross-check skipped (set MMA_BIN=path/to/mma, needs python3)"
fi

if [ $fail -ne 0 ]; then say "check.sh: FAILED"; exit 1; fi
say "check.sh: all checks passed (binary: $bin). Nothing was run on a GPU."
