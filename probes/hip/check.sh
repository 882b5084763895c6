#!/usr/bin/env bash
# Checks the HIP harness (probes/hip/mma_probe.hip and the headers beside it that it includes)
# without a GPU, and says what it checked:
#
#   1. host-only build (any C++17 compiler, -DMMA_PROBE_HOST_ONLY): the layout self-test, five
#      deliberate mutations that the self-test must catch, --list, and --validate on good and bad
#      case files (errors must name the line);
#   2. with a HIP-capable clang (clang++-NN or clang++ with the AMDGPU target, or hipcc): device
#      code compiled by the AMDGPU backend for gfx908, gfx90a and gfx942 (and gfx950 when the
#      compiler can: LLVM 20+; optional), and each target's assembly must hold exactly the MFMA
#      mnemonics the catalog lists for its architecture;
#   3. the host part: with real HIP headers, a full build (linked with libamdhip64 when present,
#      then its --self-test and --list run); without them, a syntax check against a shim of the
#      HIP API written by this script (declarations only);
#   4. with an `mma` binary (env MMA, `mma` on PATH, or target/{release,debug}/mma) and python3:
#      the instruction table against `mma list --vendor amd` (names, architectures, K, mnemonics,
#      operand formats).
#
# Nothing here runs an MFMA: no GPU is used (with an AMD GPU present, run `mma_probe --layout-test`).
#
# Usage: probes/hip/check.sh [--install] [--keep]
#   --install  as root, install a compiler and HIP headers with apt-get when no compiler found
#              builds all three targets (clang-19 lld-19 clang-tools-19 libamdhip64-dev; Debian
#              bookworm)
#   --keep     keep the build folder
# Exit status: 0 every check above was done and passed (the ones needing `mma` excepted, which
# are reported as not done); 1 a check failed; 2 usage; 3 no HIP-capable compiler, or one that
# cannot target all three architectures: device code not (fully) compiled.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$here/mma_probe.hip
install=0
keep=0
for arg in "$@"; do
  case $arg in
    --install) install=1 ;;
    --keep) keep=1 ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
      exit 0
      ;;
    *)
      echo "check.sh: unknown argument $arg (see --help)" >&2
      exit 2
      ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/mma_probe_hip.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "build folder kept: $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

TARGETS="gfx908 gfx90a gfx942"
# gfx950 (CDNA4) needs LLVM 20 or later: compiled when the compiler found can, else reported as
# not checked (it does not make the result INCOMPLETE).
OPTIONAL_TARGETS="gfx950"
arch_of() { case $1 in gfx908) echo CDNA1 ;; gfx90a) echo CDNA2 ;; gfx942) echo CDNA3 ;; gfx950) echo CDNA4 ;; esac; }

failures=0
incomplete=0
checked=()
unchecked=()
ok() { echo "  ok    $*"; checked+=("$*"); }
bad() { echo "  FAIL  $*"; failures=$((failures + 1)); }
notdone() { echo "  NOT CHECKED  $*"; unchecked+=("$*"); }

# Warnings that point into the harness's own files: mma_probe.hip and the headers beside it
# (common.h's unused helpers are not ours to fix).
own_re="(^|/)($(cd "$here" && ls mma_probe.hip *.h | sed 's/\./\\./g' | paste -sd'|' -)):[0-9]+:[0-9]+: warning"
own_warnings() { grep -E "$own_re" "$1" | sort -u; }

# ------------------------------------------------------------------------------------------
echo "== 1. host-only build and self-test"
cxx=""
for c in ${CXX:-} c++ g++ clang++ clang++-19; do
  if command -v "$c" > /dev/null 2>&1; then cxx=$c; break; fi
done
host=$work/mma_probe_host
if [ -z "$cxx" ]; then
  bad "no host C++ compiler (c++, g++, clang++): host-only build not done"
elif ! "$cxx" -std=c++17 -O2 -Wall -Wextra -x c++ -DMMA_PROBE_HOST_ONLY "$src" -o "$host" 2> "$work/host.log"; then
  cat "$work/host.log"
  bad "host-only build with $cxx failed"
  host=""
else
  if [ -n "$(own_warnings "$work/host.log")" ]; then
    own_warnings "$work/host.log"
    bad "host-only build with $cxx: warnings in mma_probe.hip or its headers"
  else
    ok "host-only build with $cxx ($("$cxx" --version | head -1)), -Wall -Wextra clean"
  fi
fi

if [ -n "$host" ] && [ -x "$host" ]; then
  out=$("$host" --self-test 2>&1)
  rc=$?
  echo "$out" | sed 's/^/        /'
  if [ $rc = 0 ] && echo "$out" | grep -q ' 0 failed$'; then
    ok "self-test: $(echo "$out" | tail -1 | sed 's/^self-test: //')"
  else
    bad "self-test (exit $rc)"
  fi
  caught=0
  for m in 1 2 3 4 5 6 7; do
    out=$("$host" --self-test --mutate $m 2>&1)
    rc=$?
    if [ $rc = 1 ]; then
      caught=$((caught + 1))
      echo "        mutation $m: $(echo "$out" | tail -1 | sed 's/^self-test (mutation [0-9]*): //')"
    else
      bad "self-test did not catch mutation $m (exit $rc)"
    fi
  done
  [ $caught = 7 ] && ok "self-test fails under each of 7 mutations of the layout/chaining/scale/packing code"

  "$host" --list > "$work/list.tsv"
  names=$(($(wc -l < "$work/list.tsv") - 1))
  distinct=$(awk -F'\t' 'NR > 1 { print $1 }' "$work/list.tsv" | sort -u | wc -l)
  if [ "$names" = 173 ] && [ "$distinct" = 165 ]; then
    ok "--list: 173 entries, 165 distinct instruction names (CDNA1-CDNA4)"
  else
    bad "--list: $names entries, $distinct names, expected 173 and 165"
  fi

  # --validate: a good file and one bad line per file (line 3), whose error must name line 3.
  z=$(printf ',"0000"%.0s' $(seq 15))
  a16="\"3c00\"$z"
  a15="\"3c00\"$(printf ',"0000"%.0s' $(seq 14))"
  head='{"a_format":"f16","b_format":"f16","c_format":"f32","d_format":"f32"'
  good=$work/good.jsonl
  {
    echo '# a comment'
    echo "$head,\"k\":16,\"a\":[$a16],\"b\":[$a16],\"c\":\"3f800000\"}"
    echo
    printf '%s\r\n' "$head,\"k\":32,\"a\":[$a16,$a16],\"b\":[$a16,$a16],\"c\":\"0x00000000\",\"d\":\"12345678\"}"
    echo "{\"arch\":\"gfx942\",\"instr\":\"v_mfma_f32_16x16x16_f16\",\"a\":[$a16],\"b\":[$a16],\"c\":\"bf800000\"}"
  } > "$good"
  out=$("$host" --validate f32_16x16x16_f16 "$good" 2>&1)
  if [ $? = 0 ] && echo "$out" | grep -q '3 case lines (4 calls'; then
    ok "--validate accepts a good file (comments, blank line, CRLF, chained K = 32, 0x words, instr)"
  else
    echo "$out"
    bad "--validate on a good file"
  fi
  i=0
  while IFS='|' read -r line want; do
    i=$((i + 1))
    f=$work/bad$i.jsonl
    { echo '# bad line 3'; echo "$head,\"a\":[$a16],\"b\":[$a16],\"c\":\"00000000\"}"; echo "$line"; } > "$f"
    out=$("$host" --validate f32_16x16x16_f16 "$f" 2>&1)
    rc=$?
    if [ $rc = 1 ] && echo "$out" | grep -qF "$f:3: " && echo "$out" | grep -qF -- "$want"; then
      echo "        bad line $i: $(echo "$out" | head -1 | sed "s|$f|FILE|")"
    else
      echo "$out"
      bad "--validate on bad line $i (exit $rc, expected an error at line 3 with: $want)"
    fi
  done << EOF
$head,"a":["3c0"$z],"b":[$a16],"c":"00000000"}|is not a 4-digit hex word (f16)
$head,"a":[$a15],"b":[$a15],"c":"00000000"}|needs a multiple of K = 16
$head,"a":[$a16],"b":[$a16,$a16],"c":"00000000"}|a has 16 elements, b 32
{"a_format":"bf16","a":[$a16],"b":[$a16],"c":"00000000"}|a_format is bf16, but f32_16x16x16_f16 takes f16
$head,"a":[$a16],"b":[$a16],"c":"3f80"}|"c" must be one 8-digit hex word (f32)
$head,"k":8,"a":[$a16],"b":[$a16],"c":"00000000"}|"k" is 8 but a has 16 elements
{"instr":"f32_16x16x16f16","a":[$a16],"b":[$a16],"c":"00000000"}|"instr" is f32_16x16x16f16, but this run is f32_16x16x16_f16
a: 1, b: 2|not a JSON object on one line
$head,"a":[$a16],"c":"00000000"}|no "b" list
$head,"a":[$a16],"b":[$a16 "0000"],"c":"00000000"}|expected ',' after element 15
EOF
  [ "$i" = 10 ] && ok "--validate rejects 10 kinds of bad line, naming file and line"

  # gfx950 forms: an fp4 x fp8 f8f6f4 line (one byte per element, K = 128), a scaled line, and
  # the fp8 names that CDNA3 and CDNA4 read differently (FNUZ / OCP: --arch decides).
  z8=$(printf ',"00"%.0s' $(seq 127))
  f4=$work/f4.jsonl
  echo "{\"a_format\":\"e2m1\",\"b_format\":\"e4m3\",\"c_format\":\"f32\",\"d_format\":\"f32\",\"a\":[\"02\"$z8],\"b\":[\"38\"$z8],\"c\":\"00000000\"}" > "$f4"
  sc=$work/sc.jsonl
  echo "{\"a_format\":\"e4m3\",\"b_format\":\"e4m3\",\"scale_format\":\"ue8m0\",\"scale_block\":32,\"a\":[\"38\"$z8],\"b\":[\"38\"$z8],\"c\":\"00000000\",\"scale_a\":[\"7f\",\"80\",\"7f\",\"7f\"],\"scale_b\":[\"7e\",\"7f\",\"7f\",\"7f\"]}" > "$sc"
  bad4=$work/bad4.jsonl
  echo "{\"a\":[\"1f\"$z8],\"b\":[\"38\"$z8],\"c\":\"00000000\"}" > "$bad4"
  badsc=$work/badsc.jsonl
  echo "{\"a\":[\"38\"$z8],\"b\":[\"38\"$z8],\"c\":\"00000000\",\"scale_a\":[\"7f\"],\"scale_b\":[\"7f\"]}" > "$badsc"
  z32=$(printf ',"00"%.0s' $(seq 31))
  fp8=$work/fp8.jsonl
  echo "{\"a_format\":\"e4m3\",\"a\":[\"38\"$z32],\"b\":[\"38\"$z32],\"c\":\"00000000\"}" > "$fp8"
  if "$host" --validate f32_16x16x128_f8f6f4_fp4_fp8 "$f4" > /dev/null 2>&1 &&
    "$host" --validate scale_f32_16x16x128_f8f6f4_fp8_fp8 "$sc" > /dev/null 2>&1 &&
    "$host" --validate f32_16x16x128_f8f6f4_fp4_fp8 "$bad4" 2>&1 | grep -q 'does not fit e2m1 (4 bits)' &&
    "$host" --validate scale_f32_16x16x128_f8f6f4_fp8_fp8 "$badsc" 2>&1 | grep -q 'need 4 scales each' &&
    "$host" --validate f32_16x16x128_f8f6f4_fp8_fp8 "$sc" 2>&1 | grep -q 'takes none' &&
    "$host" --validate f32_16x16x32_fp8_fp8 "$fp8" 2>&1 | grep -q 'say which with --arch' &&
    "$host" --validate --arch gfx950 f32_16x16x32_fp8_fp8 "$fp8" > /dev/null 2>&1 &&
    "$host" --validate --arch gfx942 f32_16x16x32_fp8_fp8 "$fp8" 2>&1 | grep -q 'a_format is e4m3, but f32_16x16x32_fp8_fp8 takes e4m3fnuz'; then
    ok "--validate on gfx950 forms: f8f6f4 fp4 x fp8 and scaled lines accepted; an fp4 code over 4 bits, a wrong scale count, scales on an unscaled name, and an fp8 name without --arch rejected"
  else
    bad "--validate on gfx950 forms"
  fi
  out=$("$host" f32_16x16x16_f16 "$good" "$work/out.jsonl" 2>&1)
  if [ $? = 2 ] && echo "$out" | grep -q 'host-only build'; then
    ok "the host-only build refuses to run a case file"
  else
    bad "the host-only build ran a case file?"
  fi
fi

# ------------------------------------------------------------------------------------------
echo "== 2. HIP compiler"
# A compiler that can build device code for all three targets: tries a small MFMA file.
cat > "$work/probe.hip" << 'EOF'
typedef float f4 __attribute__((ext_vector_type(4)));
__attribute__((global)) void k(f4 *o) { o[0] = __builtin_amdgcn_mfma_f32_16x16x4f32(1.0f, 2.0f, o[0], 0, 0, 0); }
EOF
can_target() { # compiler target
  "$1" -x hip --offload-arch="$2" -nogpulib -nogpuinc --cuda-device-only -S "$work/probe.hip" -o "$work/probe.$2.s" > /dev/null 2>&1 &&
    grep -q 'v_mfma_f32_16x16x4' "$work/probe.$2.s"
}
find_hipcxx() {
  hipcxx=""
  hipcxx_targets=""
  local c t n best=0
  for c in ${HIPCXX:-} clang++-22 clang++-21 clang++-20 clang++-19 clang++-18 clang++-17 clang++ \
    /opt/rocm/llvm/bin/clang++ hipcc /opt/rocm/bin/hipcc; do
    command -v "$c" > /dev/null 2>&1 || continue
    n=0
    local ts=""
    for t in $TARGETS; do can_target "$c" "$t" && { n=$((n + 1)); ts="$ts $t"; }; done
    if [ $n -gt $best ]; then best=$n; hipcxx=$c; hipcxx_targets=${ts# }; fi
    [ $n = 3 ] && break
  done
}
find_hipcxx
if [ "$(echo "$hipcxx_targets" | wc -w)" != 3 ] && [ "$install" = 1 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "  installing clang-19 lld-19 clang-tools-19 libamdhip64-dev with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -q > "$work/apt.log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      clang-19 lld-19 clang-tools-19 libamdhip64-dev >> "$work/apt.log" 2>&1 ||
      { tail -5 "$work/apt.log"; echo "  apt-get install failed"; }
    find_hipcxx
  else
    echo "  --install needs root and apt-get; installing nothing"
  fi
fi
if [ -n "$hipcxx" ]; then
  for t in $OPTIONAL_TARGETS; do can_target "$hipcxx" "$t" && hipcxx_targets="$hipcxx_targets $t"; done
fi
if [ -z "$hipcxx" ]; then
  notdone "device code: no HIP-capable compiler found (tried \$HIPCXX, clang++-17..22, clang++, hipcc; rerun with --install as root, or set HIPCXX)"
  incomplete=1
else
  echo "  compiler: $hipcxx ($("$hipcxx" --version 2> /dev/null | head -1)); targets it can build: $hipcxx_targets"
fi

# Real HIP headers, or a shim of the HIP API this harness uses (declarations only).
mode=""
if [ -n "$hipcxx" ]; then
  printf '#include <hip/hip_runtime.h>\nint main() { int n; return hipGetDeviceCount(&n); }\n' > "$work/hdr.hip"
  t0=${hipcxx_targets%% *} # a target this compiler can build, for the host-side checks
  if "$hipcxx" -std=c++17 -x hip --offload-arch="$t0" -nogpulib --cuda-host-only -fsyntax-only "$work/hdr.hip" > /dev/null 2>&1; then
    mode=real
    echo "  HIP headers: found (the host part is compiled against them)"
  else
    mode=shim
    echo "  HIP headers: not found; device code is compiled against a shim of the HIP API (declarations only)"
    mkdir -p "$work/shim/hip"
    cat > "$work/shim/hip/hip_runtime.h" << 'EOF'
// check.sh's stand-in for <hip/hip_runtime.h>: what mma_probe.hip and its headers use, declared,
// nothing defined.
#pragma once
#include <stdlib.h> // before any <new>: clang's cuda_wrappers/new wants malloc and free declared
#include <cstddef>
#include <cstdint>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))
typedef enum hipError_t { hipSuccess = 0, hipErrorNoDevice = 100 } hipError_t;
typedef enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 } hipMemcpyKind;
typedef struct ihipStream_t *hipStream_t;
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct hipDeviceProp_t {
  char name[256];
  char gcnArchName[256];
};
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipFree(void *ptr);
hipError_t hipMemcpy(void *dst, const void *src, size_t size, hipMemcpyKind kind);
hipError_t hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shared, hipStream_t stream);
hipError_t hipDeviceSynchronize(void);
hipError_t hipGetLastError(void);
const char *hipGetErrorString(hipError_t e);
hipError_t hipGetDeviceCount(int *count);
hipError_t hipGetDevice(int *dev);
hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int dev);
EOF
  fi
fi
hipflags() { # target
  if [ "$mode" = shim ]; then
    echo "-std=c++17 -x hip --offload-arch=$1 -nogpulib -nogpuinc -I$work/shim -O2 -Wall -Wextra"
  else
    echo "-std=c++17 -x hip --offload-arch=$1 -nogpulib -O2 -Wall -Wextra"
  fi
}

# ------------------------------------------------------------------------------------------
echo "== 3. device code: each target's MFMAs"
if [ -n "$hipcxx" ]; then
  for t in $TARGETS $OPTIONAL_TARGETS; do
    a=$(arch_of "$t")
    if ! echo " $hipcxx_targets " | grep -q " $t "; then
      notdone "$t: $hipcxx cannot build for it"
      echo " $OPTIONAL_TARGETS " | grep -q " $t " || incomplete=1
      continue
    fi
    # shellcheck disable=SC2046
    if ! "$hipcxx" $(hipflags "$t") --cuda-device-only -S "$src" -o "$work/$t.s" 2> "$work/$t.log"; then
      grep -E 'error' "$work/$t.log" | head -20
      bad "$t: device compile failed"
      continue
    fi
    if [ -n "$(own_warnings "$work/$t.log")" ]; then
      own_warnings "$work/$t.log"
      bad "$t: warnings in mma_probe.hip or its headers"
    fi
    grep -oE '\bv_mfma_[a-z0-9_]+' "$work/$t.s" | sort -u > "$work/$t.found"
    if [ -f "$work/list.tsv" ]; then
      # column 12: the mnemonic the device code holds (the f8f6f4 names: the scale form)
      awk -F'\t' -v a="$a" 'NR > 1 && $2 ~ a { print $12 }' "$work/list.tsv" | sort -u > "$work/$t.want"
      if cmp -s "$work/$t.want" "$work/$t.found"; then
        ok "$t ($a): device code compiled by $hipcxx; its assembly has exactly the $(wc -l < "$work/$t.want") MFMA mnemonics the table lists for $a ($(grep -cE '^\s+v_mfma_' "$work/$t.s") v_mfma instructions)"
      else
        diff "$work/$t.want" "$work/$t.found" | sed 's/^/        /'
        bad "$t ($a): MFMA mnemonics in the assembly differ from the table (< table, > assembly)"
      fi
    else
      notdone "$t: mnemonics not compared (no --list from the host-only build)"
      ok "$t ($a): device code compiled by $hipcxx ($(wc -l < "$work/$t.found") distinct MFMA mnemonics)"
    fi
  done
fi

# ------------------------------------------------------------------------------------------
echo "== 4. host part"
if [ -n "$hipcxx" ]; then
  arches=""
  for t in $hipcxx_targets; do arches="$arches --offload-arch=$t"; done
  if [ "$mode" = shim ]; then
    # shellcheck disable=SC2046
    if "$hipcxx" $(hipflags "$t0") --cuda-host-only -fsyntax-only "$src" 2> "$work/hostpart.log"; then
      ok "host part: syntax and types checked by $hipcxx against the shim (not the real HIP headers; not linked)"
    else
      grep error "$work/hostpart.log" | head -20
      bad "host part against the shim"
    fi
    notdone "host part against real HIP headers, linking, running the HIP build (no HIP headers here)"
  else
    libdir=""
    [ -d /opt/rocm/lib ] && libdir="-L/opt/rocm/lib -Wl,-rpath,/opt/rocm/lib"
    # shellcheck disable=SC2046,SC2086
    if "$hipcxx" $(hipflags "$t0" | sed "s/--offload-arch=$t0//") $arches "$src" -o "$work/mma_probe" $libdir -lamdhip64 2> "$work/full.log"; then
      ok "full build ($arches ) linked with libamdhip64"
      out=$("$work/mma_probe" --self-test 2>&1)
      if [ $? = 0 ]; then ok "the HIP build's --self-test: ${out#self-test: }"; else echo "$out"; bad "the HIP build's --self-test"; fi
      if "$work/mma_probe" --list | cmp -s - "$work/list.tsv"; then ok "the HIP build's --list equals the host-only one"; else bad "the HIP build's --list differs"; fi
      out=$("$work/mma_probe" f32_16x16x16_f16 "$good" "$work/out.jsonl" 2>&1)
      rc=$?
      if [ $rc = 0 ]; then
        ok "the HIP build ran a case file on a GPU: $(echo "$out" | tail -1)"
      elif echo "$out" | grep -qiE 'no HIP device|NoDevice|InvalidDevice'; then
        ok "the HIP build reads a case file and stops at the device query: $(echo "$out" | tail -1)"
      else
        echo "$out"
        bad "the HIP build on a case file (exit $rc)"
      fi
    elif "$hipcxx" $(hipflags "$t0" | sed "s/--offload-arch=$t0//") $arches -c "$src" -o "$work/mma_probe.o" 2> "$work/full.log"; then
      ok "full compile ($arches ) against the real HIP headers"
      notdone "linking (no libamdhip64 found): the HIP build was not run"
    else
      grep error "$work/full.log" | head -20
      bad "full build against the real HIP headers"
    fi
  fi
else
  notdone "host part with a HIP compiler (none found)"
fi

# ------------------------------------------------------------------------------------------
echo "== 5. table against the catalog"
mma=""
for c in ${MMA:-} mma "$repo/target/release/mma" "$repo/target/debug/mma"; do
  if [ -n "$c" ] && command -v "$c" > /dev/null 2>&1; then mma=$c; break; fi
done
if [ -z "$mma" ] || ! command -v python3 > /dev/null || [ ! -f "$work/list.tsv" ]; then
  notdone "table against \`mma list --vendor amd\` (needs an mma binary: set MMA=path, and python3)"
else
  python3 - "$mma" "$work/list.tsv" << 'EOF'
import json, subprocess, sys

def run(*args):
    return json.loads(subprocess.run([mma, *args], check=True, capture_output=True, text=True).stdout)

def compare():
    # The v_mfma rows of every architecture; the structured-sparse v_smfmac rows are not in
    # the harness (README, "Not covered").
    every = run("list", "--vendor", "amd", "--json")
    cat = [c for c in every if c.get("op", "MFMA") == "MFMA"]
    print(f"        {len(every) - len(cat)} v_smfmac rows not compared (not in the harness)")
    ours = {}
    for r in [l.rstrip("\n").split("\t") for l in open(path)][1:]:
        for a in r[1].split(","):
            ours[(a, r[0])] = r
    scaled = {"ue8m0/32": ("ue8m0", 32)}
    bad = 0
    for c in cat:
        key = (c["arch"], c["instruction"])
        r = ours.get(key)
        if r is None:
            print(f"        catalog row {key} missing from the table"); bad += 1; continue
        if int(r[6]) != c["k"] or r[10] != c["ptx_isa"]:
            print(f"        {key}: table K {r[6]} / {r[10]}, catalog K {c['k']} / {c['ptx_isa']}"); bad += 1
        u = run("list", "--arch", c["arch"], "--instr", c["instruction"], "--unit-file")
        if (u["a"], u["b"], u["c"], u["d"]) != (r[7], r[8], r[9], r[9]):
            print(f"        {key}: table formats {r[7]} {r[8]} {r[9]}, catalog {u['a']} {u['b']} {u['c']} {u['d']}"); bad += 1
        if (u.get("scale"), u.get("scale_block")) != scaled.get(r[14], (None, None)):
            print(f"        {key}: table scale {r[14]}, catalog {u.get('scale')} / {u.get('scale_block')}"); bad += 1
    for key in set(ours) - {(c["arch"], c["instruction"]) for c in cat}:
        print(f"        table row {key} is not in the catalog"); bad += 1
    print(f"        {len(cat)} catalog rows, {len(ours)} table rows, "
          f"{len({c['instruction'] for c in cat})} distinct names, {bad} differences")
    return 1 if bad else 0

mma, path = sys.argv[1], sys.argv[2]
try:
    status = compare()
except Exception as e:  # not a difference: the comparison could not be made
    print(f"        the comparison with {mma} failed: {e!r}")
    status = 4
sys.exit(status)
EOF
  rc=$?
  if [ $rc = 0 ]; then
    ok "table equals the v_mfma rows of \`$mma list --vendor amd\` (CDNA1-CDNA4): every (architecture, name), K, mnemonic, A/B/C/D format and block scale"
  elif [ $rc = 1 ]; then
    bad "table differs from \`$mma list --vendor amd\`"
  else
    notdone "table against \`$mma list --vendor amd\` (the comparison did not run: exit $rc)"
  fi
fi

# ------------------------------------------------------------------------------------------
echo "== summary"
echo "checked (${#checked[@]}):"
for c in "${checked[@]}"; do echo "  - $c"; done
if [ ${#unchecked[@]} -gt 0 ]; then
  echo "not checked (${#unchecked[@]}):"
  for c in "${unchecked[@]}"; do echo "  - $c"; done
fi
echo "never checked here: running on a GPU (no MFMA was executed; on an AMD GPU run \`mma_probe --layout-test\`)"
if [ $failures -gt 0 ]; then
  echo "result: FAIL ($failures failed)"
  exit 1
elif [ $incomplete = 1 ]; then
  echo "result: INCOMPLETE (device code not compiled for every target)"
  exit 3
fi
if [ ${#unchecked[@]} -gt 0 ]; then
  echo "result: PASS for the ${#checked[@]} checks done; the ${#unchecked[@]} under 'not checked' were not done"
else
  echo "result: PASS"
fi
exit 0
