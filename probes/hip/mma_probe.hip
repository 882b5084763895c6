// Runs every line of a case file on an AMD GPU with one MFMA instruction
// (__builtin_amdgcn_mfma_*) and writes the file back with the device's "d". One dot product per
// line: the "a" words are row 0 of A, the "b" words column 0 of B, "c" is C[0][0], every other
// element of A, B and C is zero (in multi-block instructions, every block but block 0 is zero),
// and D[0][0] of block 0 is the result. A line of n*K elements runs as n chained calls, the D of
// one call being the C of the next.
//
//   hipcc -std=c++17 -O2 --offload-arch=gfx942 -o mma_probe probes/hip/mma_probe.hip
//   (--offload-arch=gfx950 for CDNA4, MI350X/MI355X: ROCm 7 / LLVM 20+)
//   ./mma_probe f32_32x32x8_f16 probes.jsonl measured.jsonl   run a case file
//   ./mma_probe --list                                        the instructions (catalog names)
//   ./mma_probe --validate f32_32x32x8_f16 probes.jsonl       check a case file, run nothing
//   ./mma_probe --layout-test [INSTRUCTION...]                GPU: check every lane layout
//   ./mma_probe --self-test                                   host only: check the layout tables
//
// Instruction names are those of the project's AMD catalog (`mma list --vendor amd`): the
// CDNA1/CDNA2 names (f32_32x32x8f16) and the CDNA3 names (f32_32x32x8_f16, the gfx940 mnemonics)
// are different names for the same hardware MFMA; a name runs only on the architectures the
// catalog lists it for, because the model behind it differs between generations. `v_mfma_NAME`
// is accepted too. The same source builds host-only (no HIP, any C++17 compiler) with
// -DMMA_PROBE_HOST_ONLY: --list, --validate and --self-test then work, running does not.
// probes/hip/check.sh builds it every way it can and says what it checked.
//
// Files (one translation unit: the headers are included here, build this file only):
//   formats.h   element formats (FMTS), exact decoding and small-integer encoding
//   instrs.h    the instruction table: MFMAs (MFMA_OPS, one builtin each) and catalog names
//   kernels.h   device code: one kernel per MFMA (not in a host-only build)
//   layouts.h   lane layouts (the AMD Matrix Instruction Calculator's rule) and register images
//   caseio.h    case files: read, checked line by line, written back with "d"
//   runner.h    running cases through a Launcher: chained dot products, whole-matrix checks
//   selftest.h  --self-test (host only) and its --mutate N
//   launch.h    HIP runtime: launching a kernel, naming the device (not in a host-only build)
#ifndef MMA_PROBE_HOST_ONLY
#include <hip/hip_runtime.h>
#endif
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "formats.h"
#include "instrs.h"
#include "kernels.h"
#include "layouts.h"
#include "caseio.h"
#include "runner.h"
#include "selftest.h"
#include "launch.h"

// ---------------------------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------------------------

static void usage() {
  std::cerr << "usage:\n"
               "  mma_probe INSTRUCTION IN.jsonl OUT.jsonl   run each case line on the GPU, write it back with \"d\"\n"
               "  mma_probe --list                           the instructions (catalog names, architectures, builtins)\n"
               "  mma_probe --validate [--arch A] INSTRUCTION IN.jsonl\n"
               "                                             check a case file for INSTRUCTION without running it\n"
               "                                             (A: gfx942, CDNA3, gfx950, CDNA4, ...; needed where the\n"
               "                                             name is CDNA3's and CDNA4's with different formats)\n"
               "  mma_probe --layout-test [INSTRUCTION...]   GPU: whole-matrix check of the lane layouts\n"
               "  mma_probe --self-test [--mutate N]         host-only checks of the layout tables (no GPU)\n";
}

// The catalog name s (or v_mfma_<s>) on architecture arch (0: any; an error where the name runs
// different MFMAs on different architectures, e.g. CDNA3's and CDNA4's fp8 names).
static const Name *find_name(std::string s, unsigned arch, std::string &err) {
  s = lower(s);
  if (s.compare(0, 7, "v_mfma_") == 0) s = s.substr(7);
  const Name *hit = nullptr, *any = nullptr;
  int n_any = 0;
  for (const Name &n : NAMES)
    if (s == n.name) {
      if (!any) any = &n;
      n_any++;
      if (arch && (n.archs & arch) && !hit) hit = &n;
    }
  if (!any) {
    err = "unknown instruction " + s + " (mma_probe --list lists them)";
    return nullptr;
  }
  if (hit) return hit;
  if (!arch && n_any == 1) return any;
  if (!arch) {
    err = s + " names different MFMAs on ";
    for (const Name &n : NAMES)
      if (s == n.name) err += arch_list(n.archs) + " (" + FMTS[OPS[op_index(n.op)].a].name + "/" + FMTS[OPS[op_index(n.op)].b].name + ") and ";
    err.resize(err.size() - 5);
    err += ": say which with --arch";
    return nullptr;
  }
  return any;  // the name is not one of arch's: main says so, with arch's name for it
}

// An --arch argument: a gfx name or CDNA1..CDNA4 (0 when unknown).
static unsigned parse_arch(std::string a) {
  a = lower(a);
  if (a == "gfx908" || a == "cdna1") return CDNA1;
  if (a == "gfx90a" || a == "cdna2") return CDNA2;
  if (a == "gfx940" || a == "gfx941" || a == "gfx942" || a == "cdna3") return CDNA3;
  if (a == "gfx950" || a == "cdna4") return CDNA4;
  return 0;
}

// The mnemonic the device code holds for a name: v_mfma_<name>, but the f8f6f4 names all run
// the scale builtin, v_mfma_scale_f32_<shape>_f8f6f4 (the format pair is in cbsz/blgp).
static std::string emitted(const Name &n) {
  const Op &op = OPS[op_index(n.op)];
  return std::string("v_mfma_") + (op.f8f6f4 ? op.builtin : n.name);
}

static void print_list() {
  std::cout << "instruction\tarchitectures\tgfx\tbuiltin\tMxNxK\tblocks\tK\tA\tB\tC/D\tmnemonic\temits\tcbsz\tblgp\tscale\n";
  for (const Name &n : NAMES) {
    const Op &op = OPS[op_index(n.op)];
    std::cout << n.name << "\t" << arch_list(n.archs) << "\t" << gfx_list(n.archs) << "\t__builtin_amdgcn_mfma_"
              << op.builtin << "\t" << op.m << "x" << op.n << "x" << op.k << "\t" << op.blocks << "\t" << op.k << "\t"
              << FMTS[op.a].name << "\t" << FMTS[op.b].name << "\t" << FMTS[op.cd].name << "\tv_mfma_" << n.name << "\t"
              << emitted(n) << "\t" << (op.f8f6f4 ? std::to_string(op.cbsz) : "-") << "\t"
              << (op.f8f6f4 ? std::to_string(op.blgp) : "-") << "\t"
              << (op.scaled() ? "ue8m0/32" : op.f8f6f4 ? "127 (2^0)" : "-") << "\n";
  }
}

// The names of the same MFMA on architecture arch (for an error message).
[[maybe_unused]] static std::string same_op_names(const Name &n, unsigned arch) {
  std::string s;
  const Op &op = OPS[op_index(n.op)];
  for (const Name &o : NAMES) {
    const Op &p = OPS[op_index(o.op)];
    if (!strcmp(p.builtin, op.builtin) && p.cbsz == op.cbsz && p.blgp == op.blgp && p.f8f6f4 == op.f8f6f4 &&
        (o.archs & arch))
      s += std::string(s.empty() ? "" : ", ") + o.name;
  }
  return s;
}

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    usage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--list") {
    print_list();
    return 0;
  }
  if (args[0] == "--self-test") {
    int mutation = 0;
    if (args.size() == 3 && args[1] == "--mutate") mutation = atoi(args[2].c_str());
    else if (args.size() != 1) {
      usage();
      return 2;
    }
    return self_test(mutation);
  }
  if (args[0] == "--validate") {
    unsigned varch = 0;
    if (args.size() == 5 && args[1] == "--arch") {
      varch = parse_arch(args[2]);
      if (!varch) {
        std::cerr << "error: --arch " << args[2] << ": not gfx908, gfx90a, gfx940-gfx942, gfx950 or CDNA1-CDNA4\n";
        return 2;
      }
      args.erase(args.begin() + 1, args.begin() + 3);
    }
    if (args.size() != 3) {
      usage();
      return 2;
    }
    std::string ferr;
    const Name *nm = find_name(args[1], varch, ferr);
    if (!nm) {
      std::cerr << "error: " << ferr << "\n";
      return 2;
    }
    if (varch && !(nm->archs & varch)) {
      std::cerr << "error: " << nm->name << " is not an " << arch_list(varch) << " name\n";
      return 2;
    }
    std::vector<std::string> lines;
    std::vector<Case> cases;
    if (!read_cases(args[2].c_str(), *nm, OPS[op_index(nm->op)], lines, cases)) return 1;
    size_t calls = 0;
    for (const Case &c : cases) calls += c.a.size() / OPS[op_index(nm->op)].k;
    std::cout << args[2] << ": " << cases.size() << " case lines (" << calls << " calls of " << nm->name << "), "
              << lines.size() << " lines in all: OK\n";
    return 0;
  }
#ifdef MMA_PROBE_HOST_ONLY
  std::cerr << "error: this is a host-only build (-DMMA_PROBE_HOST_ONLY): it cannot run MFMAs; build with hipcc "
               "(see probes/hip/README.md)\n";
  return 2;
#else
  std::string gfx, desc, err;
  unsigned arch = 0;
  if (args[0] == "--layout-test") {
    if (!device_arch(gfx, arch, desc, err)) {
      std::cerr << "error: " << err << "\n";
      return 1;
    }
    std::cerr << "device: " << desc << "\n";
    if (!arch) {
      std::cerr << "error: " << gfx << " is not a CDNA1-4 GPU; the catalog has no MFMA for it\n";
      return 1;
    }
    std::vector<const Name *> todo;
    for (size_t i = 1; i < args.size(); i++) {
      std::string ferr;
      const Name *nm = find_name(args[i], arch, ferr);
      if (!nm || !(nm->archs & arch)) {
        std::cerr << "error: " << args[i] << (nm ? " is not an " + arch_list(arch) + " name" : std::string(" is unknown")) << "\n";
        return 2;
      }
      todo.push_back(nm);
    }
    if (todo.empty())
      for (const Name &n : NAMES)
        if (n.archs & arch) todo.push_back(&n);
    int failed = 0;
    for (const Name *nm : todo) {
      std::string report;
      bool ok = layout_check(op_index(nm->op), device_launch, 4, 1, report);
      std::cout << (ok ? "ok    " : "FAIL  ") << nm->name << ": " << report << "\n";
      failed += !ok;
    }
    std::cout << todo.size() - failed << " passed, " << failed << " failed\n";
    return failed ? 1 : 0;
  }
  if (args.size() != 3 || args[0][0] == '-') {
    usage();
    return 2;
  }
  // The device first: a name may run different MFMAs on different architectures.
  if (!device_arch(gfx, arch, desc, err)) {
    std::cerr << "error: " << err << "\n";
    return 1;
  }
  const Name *nm = find_name(args[0], arch, err);
  if (!nm) {
    std::cerr << "error: " << err << "\n";
    return 2;
  }
  const int opi = op_index(nm->op);
  const Op &op = OPS[opi];
  std::vector<std::string> lines;
  std::vector<Case> cases;
  if (!read_cases(args[1].c_str(), *nm, op, lines, cases)) return 1;
  if (!(nm->archs & arch)) {
    std::string alt = arch ? same_op_names(*nm, arch) : "";
    std::cerr << "error: " << nm->name << " is the catalog's " << arch_list(nm->archs) << " name, but the device is "
              << desc << (alt.empty() ? std::string() : "; its name for this MFMA there is " + alt) << "\n";
    return 1;
  }
  std::cerr << "device: " << desc << "; " << nm->name << " = __builtin_amdgcn_mfma_" << op.builtin
            << (op.f8f6f4 ? " cbsz " + std::to_string(op.cbsz) + " blgp " + std::to_string(op.blgp) : std::string())
            << ", K = " << op.k << "\n";
  if (!run_cases(opi, cases, device_launch, err)) {
    std::cerr << "error: " << err << "\n";
    return 1;
  }
  if (!write_cases(args[2], lines, cases, op.out_bits() / 4)) return 1;
  std::cerr << cases.size() << " lines run on " << gfx << "\n";
  return 0;
#endif
}
