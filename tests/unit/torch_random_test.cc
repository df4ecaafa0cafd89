// Pure C++ facts about nnx::TorchGenerator / nnx::Mt19937 (no torch needed). The comparison with real torch
// over many seeds and sizes is tests/e2e/test_draws_match_pytorch.py.
#include "model/torch_random.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace nnx {
namespace {

std::vector<float> draw(TorchGenerator& g, std::size_t n) {
  std::vector<float> v(n, -123.0f);
  g.randn(v);
  return v;
}

std::vector<std::uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<std::uint32_t> out;
  out.reserve(v.size());
  for (float f : v) out.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

// ----------------------------------------------------------------------------------------------- MT19937

TEST(Mt19937, MatchesStdMt19937ForSeveralSeeds) {
  for (const std::uint32_t seed : {5489u, 0u, 1u, 7u, 2000u, 0xffffffffu}) {
    Mt19937 ours(seed);
    std::mt19937 reference(seed);
    for (int i = 0; i < 2000; ++i) {  // past the first two twists
      ASSERT_EQ(ours(), reference()) << "seed " << seed << " draw " << i;
    }
  }
}

TEST(Mt19937, KnownOutputs) {
  Mt19937 default_seed(5489);
  EXPECT_EQ(default_seed(), 3499211612u);
  Mt19937 zero(0);
  EXPECT_EQ(zero(), 2357136044u);
  // The C++ standard's check value: the 10000th output of a default-seeded mt19937.
  Mt19937 g(5489);
  std::uint32_t v = 0;
  for (int i = 0; i < 10000; ++i) v = g();
  EXPECT_EQ(v, 4123659995u);
}

TEST(Mt19937, SeedUsesLow32BitsOnly) {
  Mt19937 a(5);
  Mt19937 b((std::uint64_t{1} << 32) + 5);
  Mt19937 c(0xffffffff00000005ull);
  for (int i = 0; i < 100; ++i) {
    const std::uint32_t x = a();
    ASSERT_EQ(x, b());
    ASSERT_EQ(x, c());
  }
}

// --------------------------------------------------------------------------------------------- generator

TEST(TorchGenerator, Random64IsFirstDrawHighSecondDrawLow) {
  TorchGenerator g(42, TorchNormalKernel::kAvx2);
  std::mt19937 reference(42);
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t hi = reference();
    const std::uint64_t lo = reference();
    ASSERT_EQ(g.random64(), (hi << 32) | lo);
  }
}

TEST(TorchGenerator, DeterministicPerSeedAndKernel) {
  for (const TorchNormalKernel k : {TorchNormalKernel::kDefault, TorchNormalKernel::kAvx2}) {
    TorchGenerator a(1234, k);
    TorchGenerator b(1234, k);
    for (const std::size_t n : {3u, 40u, 1u, 16u, 7u}) {
      ASSERT_EQ(bits_of(draw(a, n)), bits_of(draw(b, n))) << to_string(k) << " n " << n;
    }
    TorchGenerator c(1235, k);
    TorchGenerator d(1234, k);
    EXPECT_NE(bits_of(draw(c, 40)), bits_of(draw(d, 40)));
  }
}

TEST(TorchGenerator, SeedAliasesModulo2To32) {
  TorchGenerator a(5, TorchNormalKernel::kAvx2);
  TorchGenerator b((std::uint64_t{1} << 32) + 5, TorchNormalKernel::kAvx2);
  EXPECT_EQ(bits_of(draw(a, 37)), bits_of(draw(b, 37)));
}

TEST(TorchGenerator, EmptyDrawDoesNothing) {
  TorchGenerator a(9, TorchNormalKernel::kAvx2);
  TorchGenerator b(9, TorchNormalKernel::kAvx2);
  std::vector<float> none;
  a.randn(none);
  EXPECT_EQ(bits_of(draw(a, 5)), bits_of(draw(b, 5)));
}

// Small path (< 16 values): Box-Muller pairs in double; the second value of a pair is cached.
TEST(TorchGenerator, OddSmallCountCachesTheSecondValueOfThePair) {
  for (const TorchNormalKernel k : {TorchNormalKernel::kDefault, TorchNormalKernel::kAvx2}) {
    TorchGenerator whole(77, k);
    const auto four = bits_of(draw(whole, 4));

    TorchGenerator split(77, k);
    const auto three = bits_of(draw(split, 3));
    EXPECT_TRUE(split.has_cached_normal());
    const auto one = bits_of(draw(split, 1));
    EXPECT_FALSE(split.has_cached_normal());
    EXPECT_EQ(three, std::vector<std::uint32_t>(four.begin(), four.begin() + 3));
    EXPECT_EQ(one[0], four[3]);

    // 1 + 1 == 2: the second call takes the cached value without touching the engine.
    TorchGenerator a(77, k);
    TorchGenerator b(77, k);
    const auto pair = bits_of(draw(a, 2));
    const auto first = bits_of(draw(b, 1));
    const auto second = bits_of(draw(b, 1));
    EXPECT_EQ(pair[0], first[0]);
    EXPECT_EQ(pair[1], second[0]);
    EXPECT_EQ(a.random(), b.random());  // both engines consumed exactly 4 words
  }
}

TEST(TorchGenerator, SmallPathConsumesTwoDoubleUniformsPerPair) {
  TorchGenerator g(3, TorchNormalKernel::kAvx2);
  std::mt19937 reference(3);
  draw(g, 5);  // 3 pairs -> 6 random64 -> 12 words, one value left cached
  for (int i = 0; i < 12; ++i) reference();
  EXPECT_EQ(g.random(), reference());
  EXPECT_TRUE(g.has_cached_normal());
}

TEST(TorchGenerator, LargeDrawsNeitherUseNorClearTheCache) {
  TorchGenerator a(11, TorchNormalKernel::kAvx2);
  draw(a, 3);
  draw(a, 16);
  const auto after = bits_of(draw(a, 1));

  TorchGenerator b(11, TorchNormalKernel::kAvx2);
  const auto four = bits_of(draw(b, 4));
  EXPECT_EQ(after[0], four[3]);
}

// Large path (>= 16 values): one float uniform (one word) per value, plus 16 fresh ones when n % 16 != 0.
TEST(TorchGenerator, LargePathConsumesOneWordPerValuePlusSixteenForATail) {
  for (const std::size_t n : {16u, 17u, 31u, 32u, 33u, 100u}) {
    TorchGenerator g(21, TorchNormalKernel::kAvx2);
    std::mt19937 reference(21);
    draw(g, n);
    const std::size_t words = n + (n % 16 != 0 ? 16 : 0);
    for (std::size_t i = 0; i < words; ++i) reference();
    EXPECT_EQ(g.random(), reference()) << "n " << n;
    EXPECT_FALSE(g.has_cached_normal());
  }
}

TEST(TorchGenerator, LargePathRecomputesOnlyTheLastSixteen) {
  for (const TorchNormalKernel k : {TorchNormalKernel::kDefault, TorchNormalKernel::kAvx2}) {
    TorchGenerator a(5, k);
    TorchGenerator b(5, k);
    const auto sixteen = bits_of(draw(a, 16));
    const auto seventeen = bits_of(draw(b, 17));
    EXPECT_EQ(seventeen[0], sixteen[0]) << to_string(k);  // block 0 kept its first lane
    EXPECT_NE(std::vector<std::uint32_t>(seventeen.begin() + 1, seventeen.end()),
              std::vector<std::uint32_t>(sixteen.begin() + 1, sixteen.end()));

    TorchGenerator c(5, k);
    const auto thirtytwo = bits_of(draw(c, 32));
    EXPECT_EQ(std::vector<std::uint32_t>(thirtytwo.begin(), thirtytwo.begin() + 16), sixteen);
  }
}

TEST(TorchGenerator, KernelsAgreeOnSmallDrawsAndDifferOnLargeOnes) {
  TorchGenerator d(0, TorchNormalKernel::kDefault);
  TorchGenerator v(0, TorchNormalKernel::kAvx2);
  EXPECT_EQ(bits_of(draw(d, 15)), bits_of(draw(v, 15)));
  EXPECT_NE(bits_of(draw(d, 64)), bits_of(draw(v, 64)));
}

TEST(TorchGenerator, LargeDrawsAreFiniteAndRoughlyStandardNormal) {
  TorchGenerator g(99, TorchNormalKernel::kAvx2);
  const auto v = draw(g, 200000);
  double sum = 0.0;
  double sum_sq = 0.0;
  for (float f : v) {
    ASSERT_TRUE(std::isfinite(f));
    sum += f;
    sum_sq += static_cast<double>(f) * f;
  }
  const double mean = sum / static_cast<double>(v.size());
  const double var = sum_sq / static_cast<double>(v.size()) - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.02);
}

// ------------------------------------------------------------------------------------- kernel selection

TEST(KernelSelection, FollowsAtenCpuCapabilityLikeTorch) {
  CpuFeatures none;
  CpuFeatures avx2;
  avx2.avx2 = true;
  avx2.fma3 = true;
  CpuFeatures avx512 = avx2;
  avx512.avx512vl = avx512.avx512bw = avx512.avx512dq = true;

  // Exact values win over the CPU (torch does not check the hardware for them).
  EXPECT_EQ(select_torch_normal_kernel("default", avx512), TorchNormalKernel::kDefault);
  EXPECT_EQ(select_torch_normal_kernel("avx2", none), TorchNormalKernel::kAvx2);
  EXPECT_EQ(select_torch_normal_kernel("avx512", none), TorchNormalKernel::kAvx2);  // no AVX512 normal kernel
  // Anything else is ignored (case-sensitive), and the CPU decides.
  EXPECT_EQ(select_torch_normal_kernel("AVX2", none), TorchNormalKernel::kDefault);
  EXPECT_EQ(select_torch_normal_kernel("", avx2), TorchNormalKernel::kAvx2);
  EXPECT_EQ(select_torch_normal_kernel("bogus", avx512), TorchNormalKernel::kAvx2);
  EXPECT_EQ(select_torch_normal_kernel(nullptr, none), TorchNormalKernel::kDefault);
  EXPECT_EQ(select_torch_normal_kernel(nullptr, avx2), TorchNormalKernel::kAvx2);
  EXPECT_EQ(select_torch_normal_kernel(nullptr, avx512), TorchNormalKernel::kAvx2);

  CpuFeatures avx2_without_fma = avx2;
  avx2_without_fma.fma3 = false;
  EXPECT_EQ(select_torch_normal_kernel(nullptr, avx2_without_fma), TorchNormalKernel::kDefault);
  CpuFeatures avx512_only = avx512;
  avx512_only.avx2 = false;
  EXPECT_EQ(select_torch_normal_kernel(nullptr, avx512_only), TorchNormalKernel::kAvx2);
}

TEST(KernelSelection, ProcessChoiceIsStable) {
  EXPECT_EQ(process_torch_normal_kernel(), process_torch_normal_kernel());
  EXPECT_EQ(TorchGenerator(0).kernel(), process_torch_normal_kernel());
}

// ------------------------------------------------------------------------------------------------ golden
// Bit patterns printed by real torch 2.13.0+cu130 (x86-64, glibc 2.36, Debian 12) with
//   g = torch.Generator().manual_seed(seed); torch.randn(n, generator=g).view(torch.int32)
// once with ATEN_CPU_CAPABILITY=avx2 (same as avx512 and as unset on an AVX2/AVX-512 CPU) and once with
// ATEN_CPU_CAPABILITY=default.

// The spec's model weights: seed 0, shapes [8, 4], [8], [2, 8], [2] from one generator.
const std::vector<std::uint32_t> kSeed0W0Avx2 = {
    0xbf901b85, 0xbf93808a, 0xbe804bd6, 0xbede255d, 0x3f594515, 0x3f312783, 0xbea1cc6d, 0xc0075fc1,
    0x3ea50138, 0xbfa1b4f4, 0x3eb330ff, 0x3e9dc3bb, 0x3df56f77, 0x3f9e6b93, 0x3f8ef28e, 0xbe7d367c,
    0xbfad23c2, 0xbfd91446, 0x3f111004, 0x3f4b235d, 0x3f194d8b, 0xbfc70d5b, 0xbeaec6ca, 0x3fed2f4e,
    0x3f400c6b, 0xbf15e32b, 0xbe318eeb, 0x3e3be1a4, 0x3fb1d6c0, 0x3fcb0d00, 0x3f72409c, 0xbf57fb33};
const std::vector<std::uint32_t> kSeed0W0Default = {
    0xbf901b85, 0xbf93808a, 0xbe804bd6, 0xbede255e, 0x3f594515, 0x3f312784, 0xbea1cc6d, 0xc0075fc2,
    0x3ea50138, 0xbfa1b4f4, 0x3eb330ff, 0x3e9dc3ba, 0x3df56f77, 0x3f9e6b93, 0x3f8ef28e, 0xbe7d365a,
    0xbfad23c2, 0xbfd91447, 0x3f111002, 0x3f4b235e, 0x3f194d8b, 0xbfc70d5b, 0xbeaec6c7, 0x3fed2f4e,
    0x3f400c6a, 0xbf15e324, 0xbe318efd, 0x3e3be1a3, 0x3fb1d6c0, 0x3fcb0d01, 0x3f72409c, 0xbf57fb34};
const std::vector<std::uint32_t> kSeed0B0 = {  // small path: same for both kernels
    0xbf10fa2f, 0x3ebf08e2, 0xbf6459ce, 0xbfc12a71, 0x3ebda439, 0x3fba6ead, 0x3f709762, 0x3f465c7e};
const std::vector<std::uint32_t> kSeed0W1Avx2 = {
    0xbf2c4f9f, 0x3f5f71de, 0x3f8715f4, 0x3e361caa, 0xbe6bdd10, 0xbec89408, 0x3f0b155d, 0xbeca5217,
    0xbee47694, 0x3f3e7824, 0x3fc2af75, 0x405a45ad, 0xbfc3fdd9, 0xbf9df823, 0x3fe8ecc2, 0xbf0d30fc};
const std::vector<std::uint32_t> kSeed0W1Default = {
    0xbf2c4f9f, 0x3f5f71de, 0x3f8715f5, 0x3e361cc5, 0xbe6bdd10, 0xbec89408, 0x3f0b155c, 0xbeca5216,
    0xbee47695, 0x3f3e7824, 0x3fc2af75, 0x405a45ad, 0xbfc3fdd9, 0xbf9df823, 0x3fe8ecc2, 0xbf0d30fc};
const std::vector<std::uint32_t> kSeed0B1 = {0x3e449a5b, 0x3f0af310};

TEST(TorchGoldenBits, SpecModelWeightsSeed0Avx2) {
  TorchGenerator g(0, TorchNormalKernel::kAvx2);
  EXPECT_EQ(bits_of(draw(g, 32)), kSeed0W0Avx2);
  EXPECT_EQ(bits_of(draw(g, 8)), kSeed0B0);
  EXPECT_EQ(bits_of(draw(g, 16)), kSeed0W1Avx2);
  EXPECT_EQ(bits_of(draw(g, 2)), kSeed0B1);
}

TEST(TorchGoldenBits, SpecModelWeightsSeed0Default) {
  TorchGenerator g(0, TorchNormalKernel::kDefault);
  EXPECT_EQ(bits_of(draw(g, 32)), kSeed0W0Default);
  EXPECT_EQ(bits_of(draw(g, 8)), kSeed0B0);
  EXPECT_EQ(bits_of(draw(g, 16)), kSeed0W1Default);
  EXPECT_EQ(bits_of(draw(g, 2)), kSeed0B1);
}

TEST(TorchGoldenBits, SmallPathCacheAcrossCalls) {
  // seed 0: randn(3) then randn(1); the 1 is the cached sine of the second pair.
  TorchGenerator g(0, TorchNormalKernel::kAvx2);
  EXPECT_EQ(bits_of(draw(g, 3)), (std::vector<std::uint32_t>{0x3fc53f5c, 0xbe963c50, 0xc00b7149}));
  EXPECT_EQ(bits_of(draw(g, 1)), (std::vector<std::uint32_t>{0x3f1184b6}));
}

TEST(TorchGoldenBits, SpecInputCases) {
  for (const TorchNormalKernel k : {TorchNormalKernel::kDefault, TorchNormalKernel::kAvx2}) {
    TorchGenerator b1(1001, k);  // batch-1: [1, 4]
    EXPECT_EQ(bits_of(draw(b1, 4)), (std::vector<std::uint32_t>{0x3f80f8f4, 0x3fd579e0, 0xbfc5094f, 0xbe9b8ce3}));
    TorchGenerator ex(7, k);  // export example input: [2, 4]
    EXPECT_EQ(bits_of(draw(ex, 8)), (std::vector<std::uint32_t>{0xbe165174, 0x3f49408e, 0x3f7262e7, 0xbf8ea2d3,
                                                                0x3fd86bd0, 0xbf651371, 0xbeb6147c, 0x3f9dbed1}));
  }
  // batch-7: [7, 4] = 28 values, large path: kernel-dependent.
  TorchGenerator avx2(1007, TorchNormalKernel::kAvx2);
  const auto a = bits_of(draw(avx2, 28));
  EXPECT_EQ(a[0], 0xbf2279adu);
  EXPECT_EQ(a[16], 0x3f300504u);
  EXPECT_EQ(a[27], 0x3f8b19c4u);
  TorchGenerator def(1007, TorchNormalKernel::kDefault);
  const auto d = bits_of(draw(def, 28));
  EXPECT_EQ(d[0], 0xbf2279b0u);
  EXPECT_EQ(d[16], 0x3f3004f8u);
  EXPECT_EQ(d[27], 0x3f8b19c4u);
}

}  // namespace
}  // namespace nnx
