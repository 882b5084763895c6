// Device side of the host program of the HIP harness: the HIP runtime calls that run one MFMA's
// kernel on register images (device_launch, a Launcher) and name the device (device_arch). Empty
// in a host-only build (-DMMA_PROBE_HOST_ONLY).
#pragma once
// ---------------------------------------------------------------------------------------------
// Device side of the host program
// ---------------------------------------------------------------------------------------------
#ifndef MMA_PROBE_HOST_ONLY
#include <hip/hip_runtime.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "instrs.h"
#include "kernels.h"

#define HIP_OK(call, what)                                                              \
  do {                                                                                  \
    hipError_t e_ = (call);                                                             \
    if (e_ != hipSuccess) {                                                             \
      err = std::string(what) + ": " + hipGetErrorString(e_);                           \
      return false;                                                                     \
    }                                                                                   \
  } while (0)

template <typename T>
struct DeviceBuf {
  T *p = nullptr;
  ~DeviceBuf() {
    if (p) (void)hipFree(p);
  }
};

static bool device_launch(int opi, size_t n, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                          const std::vector<uint32_t> &c, const std::vector<uint32_t> &s, std::vector<uint32_t> &d,
                          std::string &err) {
  DeviceBuf<uint64_t> da, db;
  DeviceBuf<uint32_t> dc, ds, dd;
  DeviceBuf<int> dbad;
  HIP_OK(hipMalloc((void **)&da.p, a.size() * 8), "hipMalloc");
  HIP_OK(hipMalloc((void **)&db.p, b.size() * 8), "hipMalloc");
  HIP_OK(hipMalloc((void **)&dc.p, c.size() * 4), "hipMalloc");
  HIP_OK(hipMalloc((void **)&ds.p, s.size() * 4), "hipMalloc");
  HIP_OK(hipMalloc((void **)&dd.p, d.size() * 4), "hipMalloc");
  HIP_OK(hipMalloc((void **)&dbad.p, sizeof(int)), "hipMalloc");
  int bad = 0;
  HIP_OK(hipMemcpy(da.p, a.data(), a.size() * 8, hipMemcpyHostToDevice), "hipMemcpy");
  HIP_OK(hipMemcpy(db.p, b.data(), b.size() * 8, hipMemcpyHostToDevice), "hipMemcpy");
  HIP_OK(hipMemcpy(dc.p, c.data(), c.size() * 4, hipMemcpyHostToDevice), "hipMemcpy");
  HIP_OK(hipMemcpy(ds.p, s.data(), s.size() * 4, hipMemcpyHostToDevice), "hipMemcpy");
  HIP_OK(hipMemcpy(dbad.p, &bad, sizeof bad, hipMemcpyHostToDevice), "hipMemcpy");
  const uint64_t *pa = da.p, *pb = db.p;
  const uint32_t *pc = dc.p, *ps = ds.p;
  uint32_t *pd = dd.p;
  int *pbad = dbad.p;
  void *args[] = {&pa, &pb, &pc, &ps, &pd, &pbad};
  HIP_OK(hipLaunchKernel(KERNELS[opi], dim3((unsigned)n), dim3(64), args, 0, nullptr),
         std::string("launch of ") + OPS[opi].builtin);
  HIP_OK(hipDeviceSynchronize(), std::string("run of ") + OPS[opi].builtin);
  HIP_OK(hipGetLastError(), std::string("run of ") + OPS[opi].builtin);
  HIP_OK(hipMemcpy(&bad, dbad.p, sizeof bad, hipMemcpyDeviceToHost), "hipMemcpy");
  if (bad) {
    err = std::string("this binary's code object for the GPU has no ") + OPS[opi].builtin +
          " (built for another architecture?)";
    return false;
  }
  HIP_OK(hipMemcpy(d.data(), dd.p, d.size() * 4, hipMemcpyDeviceToHost), "hipMemcpy");
  return true;
}

// The device's architecture: gfx name and CDNA generation (0 outside CDNA1-4).
static bool device_arch(std::string &gfx, unsigned &arch, std::string &desc, std::string &err) {
  int count = 0;
  HIP_OK(hipGetDeviceCount(&count), "hipGetDeviceCount");
  if (count < 1) {
    err = "no HIP device";
    return false;
  }
  int dev = 0;
  HIP_OK(hipGetDevice(&dev), "hipGetDevice");
  hipDeviceProp_t p;
  HIP_OK(hipGetDeviceProperties(&p, dev), "hipGetDeviceProperties");
  std::string full = p.gcnArchName;
  gfx = full.substr(0, full.find(':'));
  arch = gfx == "gfx908" ? CDNA1 : gfx == "gfx90a" ? CDNA2 : gfx == "gfx940" || gfx == "gfx941" || gfx == "gfx942" ? CDNA3
         : gfx == "gfx950"                                           ? CDNA4
                                                                     : 0;
  desc = std::string(p.name) + " (" + full + (arch ? ", " + arch_list(arch) : std::string(", not CDNA1-4")) + ")";
  return true;
}
#endif  // MMA_PROBE_HOST_ONLY
