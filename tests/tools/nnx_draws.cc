// nnx_draws SEED N1 [N2 ...]
//
// Creates ONE nnx::TorchGenerator(SEED) and, for each Ni in order, draws randn of Ni float32 values from it,
// printing one line per tensor: each value's bits as 8 lowercase hex digits, space-separated (an empty line
// for Ni = 0). The kernel follows ATEN_CPU_CAPABILITY and the CPU, as torch does; the chosen kernel is
// printed to stderr. Used by tests/e2e/test_draws_match_pytorch.py to compare with real torch.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <system_error>
#include <vector>

#include "model/torch_random.h"

namespace {

bool parse_u64(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nnx_draws SEED N1 [N2 ...]\n");
    return 2;
  }
  std::uint64_t seed = 0;
  if (!parse_u64(argv[1], seed)) {
    std::fprintf(stderr, "nnx_draws: SEED must be an integer in [0, 2^64): %s\n", argv[1]);
    return 2;
  }
  std::vector<std::size_t> sizes;
  for (int i = 2; i < argc; ++i) {
    std::uint64_t n = 0;
    if (!parse_u64(argv[i], n) || n > (std::uint64_t{1} << 28)) {
      std::fprintf(stderr, "nnx_draws: each N must be an integer in [0, 2^28]: %s\n", argv[i]);
      return 2;
    }
    sizes.push_back(static_cast<std::size_t>(n));
  }

  nnx::TorchGenerator generator(seed);
  std::fprintf(stderr, "nnx_draws: kernel %s\n", nnx::to_string(generator.kernel()));
  std::vector<float> values;
  std::vector<char> line;
  for (const std::size_t n : sizes) {
    values.assign(n, 0.0f);
    generator.randn(values);
    line.assign(n * 9 + 1, '\0');
    std::size_t pos = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &values[i], sizeof bits);
      if (i > 0) line[pos++] = ' ';
      std::snprintf(&line[pos], 9, "%08x", static_cast<unsigned>(bits));
      pos += 8;
    }
    line[pos++] = '\n';
    std::fwrite(line.data(), 1, pos, stdout);
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
