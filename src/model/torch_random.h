// PyTorch's CPU random generator and torch.randn(float32), reproduced bit for bit (doc/record-format.md §2).
//
// What is reproduced (checked against torch 2.13.0 on x86-64 / glibc; see tests/e2e/test_draws_match_pytorch.py):
//
//   Generator  torch.Generator().manual_seed(seed) is an MT19937 seeded with the LOW 32 BITS of the seed
//              (the standard init_genrand, identical to std::mt19937), plus an optional cached double normal
//              sample that starts empty. random() is one 32-bit draw; random64() is (first << 32) | second.
//              A float uniform is (random() & (2^24-1)) * 2^-24; a double uniform is
//              (random64() & (2^53-1)) * 2^-53.
//
//   randn(n), n < 16  ("small" path, ATen normal_distribution<double>, one element at a time):
//              if the generator holds a cached sample, the element is that sample and the cache is
//              emptied; otherwise u1, u2 = two double uniforms, r = sqrt(-2 * log1p(-u2)),
//              theta = 2*pi*u1, the element is r*cos(theta) and r*sin(theta) is CACHED in the generator.
//              Every element is computed in double and rounded to float at the end. So an odd count
//              leaves a cached value that the next small draw from the same generator starts with
//              (large draws neither use nor clear it).
//
//   randn(n), n >= 16 ("large" path, ATen normal_fill): n float uniforms are drawn into the output, then
//              each full block of 16 is turned into normals by Box-Muller (lanes j and j+8 form a pair:
//              u1 = 1 - x[j], u2 = x[j+8]; x[j] = radius*cos, x[j+8] = radius*sin). When n % 16 != 0, 16
//              FRESH uniforms are drawn over the last 16 positions and that block is transformed again
//              (overwriting the overlap). The block transform depends on ATen's kernel:
//                - kDefault: scalar float: radius = sqrtf(-2 * logf(u1)), theta = float(2*pi(double) * u2),
//                  sincosf(theta), out = fmaf(radius*cos, 1, 0) (glibc libm, like torch's binary).
//                - kAvx2: the AVX2 specialisation, i.e. Cephes-style log256_ps / sincos256_ps of
//                  avx_mathfun.h in float32, WITH the multiply-adds that GCC fused into FMA instructions
//                  in torch's binary (read from its machine code and confirmed bit for bit). It is
//                  emulated here lane by lane in portable scalar code with explicit std::fma, so it needs
//                  no AVX2 hardware and does not depend on this project's compiler flags.
//
// Which kernel torch uses (ATen DispatchStub; normal_stub has NO AVX512 kernel, so the AVX512 capability
// falls back to the AVX2 kernel). The choice is made once per process, like torch's:
//   1. ATEN_CPU_CAPABILITY set to exactly "default" -> kDefault; "avx2" or "avx512" -> kAvx2 (torch takes
//      these values without checking the CPU). Any other value (torch warns and ignores it), or unset:
//   2. x86-64 CPU (features as usable by the OS) with FMA3 and either AVX2 or AVX512VL+AVX512BW+AVX512DQ
//      -> kAvx2; otherwise kDefault. On other architectures: kDefault (not verified against torch there;
//      ARM/PowerPC builds of torch use other vector kernels).
// The small path (n < 16) is the same for every kernel.
//
// Only float32, mean 0, std 1, contiguous tensors (what torch.randn(shape, generator=g) makes) are covered.
// The small path and kDefault call the C library's log1p/sincos and logf/sincosf, exactly as torch's binary
// does (glibc's ::sincos / ::sincosf are called by name); they match torch when both use the same libm,
// i.e. on the same machine. kAvx2 uses only IEEE operations (+, -, *, sqrt, fma), so it is
// machine-independent. Speed: about 1 s per 2^24 values for kAvx2 (scalar emulation), less for the others.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace nnx {

// MT19937 as PyTorch's at::mt19937 (and std::mt19937): seeded with the low 32 bits of `seed`.
class Mt19937 {
 public:
  explicit Mt19937(std::uint64_t seed = 5489);
  std::uint32_t operator()();

 private:
  void twist();
  std::array<std::uint32_t, 624> state_{};
  std::size_t index_ = 624;
};

// Which of ATen's CPU normal kernels a draw of >= 16 float32 values follows (see the rule above).
enum class TorchNormalKernel {
  kDefault,  // DEFAULT capability: scalar glibc float math
  kAvx2,     // AVX2 or AVX512 capability: avx_mathfun in float32 with torch's FMA fusions
};

const char* to_string(TorchNormalKernel kernel);

struct CpuFeatures {
  bool avx2 = false;
  bool fma3 = false;
  bool avx512vl = false;
  bool avx512bw = false;
  bool avx512dq = false;
};

// The features of the CPU this process runs on (all false off x86).
CpuFeatures detect_cpu_features();

// Torch's rule, as a pure function: `aten_cpu_capability` is the variable's value or nullptr when unset.
TorchNormalKernel select_torch_normal_kernel(const char* aten_cpu_capability, const CpuFeatures& cpu);

// The kernel torch would use in this process: computed on first call from ATEN_CPU_CAPABILITY and the
// CPU, then fixed for the life of the process (as torch's get_cpu_capability()).
TorchNormalKernel process_torch_normal_kernel();

// A PyTorch CPU generator (torch.Generator().manual_seed(seed)): MT19937 state plus PyTorch's cached
// normal sample.
class TorchGenerator {
 public:
  // Uses process_torch_normal_kernel().
  explicit TorchGenerator(std::uint64_t seed);
  // Follows `kernel` regardless of the environment (tests, or reproducing another machine's torch).
  TorchGenerator(std::uint64_t seed, TorchNormalKernel kernel);

  // Fills `out` with what torch.randn(<numel = out.size()>, generator=g, dtype=float32) draws
  // (contiguous tensor), advancing the generator exactly as PyTorch does. An empty span draws nothing.
  void randn(std::span<float> out);

  std::uint32_t random();    // CPUGeneratorImpl::random()
  std::uint64_t random64();  // CPUGeneratorImpl::random64()

  TorchNormalKernel kernel() const { return kernel_; }
  bool has_cached_normal() const { return next_double_normal_.has_value(); }

 private:
  float uniform_float();    // [0, 1), 24 bits
  double uniform_double();  // [0, 1), 53 bits
  double normal_double();   // one sample of the small path (uses / fills the cache)
  void fill_block16(float* data) const;

  Mt19937 engine_;
  std::optional<double> next_double_normal_;
  TorchNormalKernel kernel_;
};

}  // namespace nnx
