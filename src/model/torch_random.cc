// See torch_random.h for what is reproduced and how the kernel is chosen.
//
// Floating-point discipline: every operation below is written as torch's binary performs it. Where torch's
// machine code uses a fused multiply-add, std::fma is called explicitly; everywhere else no product feeds
// an addition, so the results do not depend on -ffp-contract or on the target's FMA support.
#include "model/torch_random.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <math.h>  // ::sincos / ::sincosf (glibc)

namespace nnx {

// ---------------------------------------------------------------------------------------------- MT19937

Mt19937::Mt19937(std::uint64_t seed) {
  state_[0] = static_cast<std::uint32_t>(seed & 0xffffffffu);
  for (std::size_t i = 1; i < state_.size(); ++i) {
    const std::uint32_t prev = state_[i - 1];
    state_[i] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(i);
  }
  index_ = state_.size();
}

void Mt19937::twist() {
  constexpr std::size_t n = 624;
  constexpr std::size_t m = 397;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % n] & 0x7fffffffu);
    std::uint32_t next = state_[(i + m) % n] ^ (y >> 1);
    if (y & 1u) next ^= 0x9908b0dfu;
    state_[i] = next;
  }
  index_ = 0;
}

std::uint32_t Mt19937::operator()() {
  if (index_ >= state_.size()) twist();
  std::uint32_t y = state_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

// ------------------------------------------------------------------------------------ kernel selection

const char* to_string(TorchNormalKernel kernel) {
  switch (kernel) {
    case TorchNormalKernel::kDefault:
      return "default";
    case TorchNormalKernel::kAvx2:
      return "avx2";
  }
  return "unknown";
}

CpuFeatures detect_cpu_features() {
  CpuFeatures f;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  // libgcc / compiler-rt check OS support (XSAVE state) before reporting AVX and AVX-512 features,
  // as cpuinfo does for torch.
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma3 = __builtin_cpu_supports("fma");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
#endif
  return f;
}

TorchNormalKernel select_torch_normal_kernel(const char* aten_cpu_capability, const CpuFeatures& cpu) {
  if (aten_cpu_capability != nullptr) {
    // Exact, case-sensitive values, as torch's compute_cpu_capability() compares them.
    if (std::strcmp(aten_cpu_capability, "avx512") == 0) return TorchNormalKernel::kAvx2;  // no AVX512 normal kernel
    if (std::strcmp(aten_cpu_capability, "avx2") == 0) return TorchNormalKernel::kAvx2;
    if (std::strcmp(aten_cpu_capability, "default") == 0) return TorchNormalKernel::kDefault;
    // Anything else: torch warns and detects the CPU.
  }
  const bool avx512 = cpu.avx512vl && cpu.avx512bw && cpu.avx512dq && cpu.fma3;
  const bool avx2 = cpu.avx2 && cpu.fma3;
  return (avx512 || avx2) ? TorchNormalKernel::kAvx2 : TorchNormalKernel::kDefault;
}

TorchNormalKernel process_torch_normal_kernel() {
  static const TorchNormalKernel kernel =
      select_torch_normal_kernel(std::getenv("ATEN_CPU_CAPABILITY"), detect_cpu_features());
  return kernel;
}

// ----------------------------------------------------------------------------------- float helpers

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoPi = 2.0 * kPi;  // 0x401921fb54442d18, exact doubling of pi

constexpr std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
constexpr float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
inline float and_bits(float f, std::uint32_t mask) { return from_bits(bits(f) & mask); }
inline float select_bits(bool keep, float f) { return keep ? f : from_bits(0u); }  // _mm256_and_ps with a mask

// vcvttps2dq: truncation; out-of-range and NaN give the "integer indefinite" 0x80000000.
inline std::int32_t cvtt_float_to_int32(float f) {
  if (!(f > -2147483904.0f && f < 2147483648.0f)) return INT32_MIN;
  return static_cast<std::int32_t>(f);
}

// Constants of avx_mathfun.h, as the float bit patterns found in torch's binary.
constexpr std::uint32_t kMinNormPos = 0x00800000u;
constexpr std::uint32_t kInvMantMask = ~0x7f800000u;
constexpr std::uint32_t kSignMask = 0x80000000u;
constexpr std::uint32_t kInvSignMask = 0x7fffffffu;
constexpr float kHalf = from_bits(0x3f000000u);           // 0.5
constexpr float kOne = from_bits(0x3f800000u);            // 1.0
constexpr float kMinusOne = from_bits(0xbf800000u);       // -1.0
constexpr float kMinusTwo = from_bits(0xc0000000u);       // -2.0
constexpr float kTwoPiF = from_bits(0x40c90fdbu);         // float(2 * pi)
constexpr float kSqrtHalf = from_bits(0x3f3504f3u);       // cephes_SQRTHF
constexpr float kLogP[9] = {
    from_bits(0x3d9021bbu), from_bits(0xbdebd1b8u), from_bits(0x3def251au),
    from_bits(0xbdfe5d4fu), from_bits(0x3e11e9bfu), from_bits(0xbe2aae50u),
    from_bits(0x3e4cceacu), from_bits(0xbe7ffffcu), from_bits(0x3eaaaaaau)};
constexpr float kLogQ1 = from_bits(0xb95e8083u);          // -2.12194440e-4
constexpr float kLogQ2 = from_bits(0x3f318000u);          // 0.693359375
constexpr float kFourOverPi = from_bits(0x3fa2f983u);     // cephes_FOPI
constexpr float kMinusDP1 = from_bits(0xbf490000u);       // -0.78515625
constexpr float kMinusDP2 = from_bits(0xb97da000u);       // -2.4187564849853515625e-4
constexpr float kMinusDP3 = from_bits(0xb3222169u);       // -3.77489497744594108e-8
constexpr float kCosP0 = from_bits(0x37ccf5ceu);
constexpr float kCosP1 = from_bits(0xbab6061au);
constexpr float kCosP2 = from_bits(0x3d2aaaa5u);
constexpr float kSinP0 = from_bits(0xb94ca1f9u);
constexpr float kSinP1 = from_bits(0x3c08839eu);
constexpr float kSinP2 = from_bits(0xbe2aaaa3u);

// log256_ps for one lane, fused as in torch 2.13's binary (GCC contracted the _mm256_mul_ps/_mm256_add_ps
// pairs of the polynomial and of the exponent terms).
float avx_log(float x_in) {
  const bool invalid = x_in <= 0.0f;  // _CMP_LE_OS, false for NaN
  float x = (x_in > from_bits(kMinNormPos)) ? x_in : from_bits(kMinNormPos);  // maxps(x, min_norm_pos)
  const std::int32_t imm0 = static_cast<std::int32_t>(bits(x) >> 23) - 0x7f;
  x = from_bits((bits(x) & kInvMantMask) | bits(kHalf));
  float e = static_cast<float>(imm0);
  e = e + kOne;
  const bool below = x < kSqrtHalf;  // _CMP_LT_OS
  const float tmp = select_bits(below, x);
  x = x + kMinusOne;
  e = e - select_bits(below, kOne);
  x = x + tmp;
  const float z = x * x;
  float y = std::fma(kLogP[0], x, kLogP[1]);
  for (int k = 2; k <= 8; ++k) y = std::fma(y, x, kLogP[k]);
  const float yx = y * x;
  const float eq1 = e * kLogQ1;
  y = std::fma(yx, z, eq1);        // y*z + e*q1, the first product fused
  y = std::fma(-z, kHalf, y);      // y - z*0.5, fused (vfnmadd)
  const float xy = x + y;
  float r = std::fma(e, kLogQ2, xy);  // (x + y) + e*q2, fused
  if (invalid) r = from_bits(bits(r) | 0xffffffffu);
  return r;
}

// sincos256_ps for one lane, fused as in torch 2.13's binary.
void avx_sincos(float x_in, float* s_out, float* c_out) {
  std::uint32_t sign_bit_sin = bits(x_in) & kSignMask;
  const float ax = and_bits(x_in, kInvSignMask);
  const float scaled = ax * kFourOverPi;
  std::uint32_t j = static_cast<std::uint32_t>(cvtt_float_to_int32(scaled));
  j = (j + 1u) & ~1u;
  const float yj = static_cast<float>(static_cast<std::int32_t>(j));
  const std::uint32_t swap_sign_bit_sin = (j & 4u) << 29;
  const bool poly_mask = (j & 2u) == 0u;
  // Extended precision modular arithmetic, x = ((x - y*DP1) - y*DP2) - y*DP3, each step fused.
  float x = std::fma(yj, kMinusDP1, ax);
  x = std::fma(yj, kMinusDP2, x);
  x = std::fma(yj, kMinusDP3, x);
  const std::uint32_t sign_bit_cos = (~(j - 2u) & 4u) << 29;
  sign_bit_sin ^= swap_sign_bit_sin;

  const float z = x * x;
  // First polynomial (cosine on [0, pi/4]).
  float y = std::fma(kCosP0, z, kCosP1);
  y = std::fma(y, z, kCosP2);
  const float yz = y * z;
  const float half_z = z * kHalf;
  y = std::fma(yz, z, -half_z);  // (y*z)*z - z*0.5, fused (vfmsub)
  y = y + kOne;
  // Second polynomial (sine on [0, pi/4]).
  float y2 = std::fma(kSinP0, z, kSinP1);
  y2 = std::fma(y2, z, kSinP2);
  const float y2z = y2 * z;
  y2 = std::fma(x, y2z, x);  // (y2*z)*x + x, fused

  const float ysin2 = select_bits(poly_mask, y2);
  const float ysin1 = select_bits(!poly_mask, y);
  y2 = y2 - ysin2;
  y = y - ysin1;
  const float sin_abs = ysin2 + ysin1;
  const float cos_abs = y2 + y;
  *s_out = from_bits(bits(sin_abs) ^ sign_bit_sin);
  *c_out = from_bits(bits(cos_abs) ^ sign_bit_cos);
}

inline void libm_sincosf(float x, float* s, float* c) {
#if defined(__GLIBC__)
  ::sincosf(x, s, c);  // what torch's binary calls
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}

inline void libm_sincos(double x, double* s, double* c) {
#if defined(__GLIBC__)
  ::sincos(x, s, c);  // what torch's binary calls
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}

}  // namespace

// ----------------------------------------------------------------------------------------- generator

TorchGenerator::TorchGenerator(std::uint64_t seed) : TorchGenerator(seed, process_torch_normal_kernel()) {}

TorchGenerator::TorchGenerator(std::uint64_t seed, TorchNormalKernel kernel) : engine_(seed), kernel_(kernel) {}

std::uint32_t TorchGenerator::random() { return engine_(); }

std::uint64_t TorchGenerator::random64() {
  const std::uint64_t hi = engine_();
  const std::uint64_t lo = engine_();
  return (hi << 32) | lo;
}

float TorchGenerator::uniform_float() {
  // (x & (2^24 - 1)) * 2^-24, then * (to - from) + from with from = 0, to = 1: exact.
  return static_cast<float>(random() & 0xffffffu) * from_bits(0x33800000u);
}

double TorchGenerator::uniform_double() {
  return static_cast<double>(random64() & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
}

double TorchGenerator::normal_double() {
  // transformation::normal(x, mean 0, std 1) = x * 1 + 0: exact, except that -0 becomes +0 (kept).
  if (next_double_normal_) {
    const double cached = *next_double_normal_;
    next_double_normal_.reset();
    return cached * 1.0 + 0.0;
  }
  const double u1 = uniform_double();
  const double u2 = uniform_double();
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = kTwoPi * u1;
  double s = 0.0;
  double c = 0.0;
  libm_sincos(theta, &s, &c);
  next_double_normal_ = r * s;
  const double ret = r * c;
  return ret * 1.0 + 0.0;
}

void TorchGenerator::fill_block16(float* data) const {
  if (kernel_ == TorchNormalKernel::kAvx2) {
    float u1[8];
    float theta[8];
    for (int j = 0; j < 8; ++j) {
      u1[j] = kOne - data[j];
      theta[j] = kTwoPiF * data[j + 8];
    }
    for (int j = 0; j < 8; ++j) {
      const float radius = std::sqrt(kMinusTwo * avx_log(u1[j]));
      float s = 0.0f;
      float c = 0.0f;
      avx_sincos(theta[j], &s, &c);
      const float n1 = radius * c;
      const float n2 = radius * s;
      data[j] = std::fma(n1, 1.0f, 0.0f);      // _mm256_fmadd_ps(n, std, mean)
      data[j + 8] = std::fma(n2, 1.0f, 0.0f);
    }
    return;
  }
  for (int j = 0; j < 8; ++j) {
    const float u1 = kOne - data[j];  // [0, 1) -> (0, 1] for log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(std::log(u1) * kMinusTwo);
    const float theta = static_cast<float>(static_cast<double>(u2) * kTwoPi);
    float s = 0.0f;
    float c = 0.0f;
    libm_sincosf(theta, &s, &c);
    data[j] = std::fma(radius * c, 1.0f, 0.0f);  // std::fma(radius * cos, std, mean)
    data[j + 8] = std::fma(radius * s, 1.0f, 0.0f);
  }
}

void TorchGenerator::randn(std::span<float> out) {
  const std::size_t n = out.size();
  if (n < 16) {
    for (float& v : out) v = static_cast<float>(normal_double());
    return;
  }
  float* data = out.data();
  for (std::size_t i = 0; i < n; ++i) data[i] = uniform_float();
  for (std::size_t i = 0; i + 16 <= n; i += 16) fill_block16(data + i);
  if (n % 16 != 0) {
    float* tail = data + (n - 16);
    for (std::size_t i = 0; i < 16; ++i) tail[i] = uniform_float();
    fill_block16(tail);
  }
}

}  // namespace nnx
