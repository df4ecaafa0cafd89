#include "model/feedfwd.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "base/loaded_file.h"
#include "model/activation.h"
#include "base/sha256.h"
#include "model/torch_random.h"

static_assert(std::endian::native == std::endian::little, "weights are hashed as little-endian float32");

namespace nnx {

namespace {

std::size_t value_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return static_cast<std::size_t>(n);
}

}  // namespace

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

FeedFwdNN::FeedFwdNN(const ModelConfig& config) : config_(config) {
  const auto widths = config_.widths();
  TorchGenerator generator(config_.weights.seed);
  const float std_value = static_cast<float>(config_.weights.std);
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    const std::string prefix = "layers." + std::to_string(i);
    Parameter weight{prefix + ".weight", {widths[i + 1], widths[i]}, {}};
    Parameter bias{prefix + ".bias", {widths[i + 1]}, {}};
    for (Parameter* p : {&weight, &bias}) {
      p->values.resize(value_count(p->shape));
      generator.randn(p->values);
      for (float& v : p->values) v = v * std_value;
      parameters_.push_back(std::move(*p));
    }
  }
}

std::string FeedFwdNN::weights_sha256() const {
  Sha256 h;
  for (const auto& p : parameters_) {
    h.update(p.name + "|float32|" + shape_text(p.shape) + "|");
    h.update(p.values.data(), p.values.size() * sizeof(float));
  }
  return h.hex_digest();
}

namespace {

// OpenBLAS, opened once per process (see feedfwd.h). Only the declarations of cblas.h are used (through
// decltype), so nothing links against the library and processes that never run a forward never load it.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;
  std::string library;
};

// The wheel's bundled copy (when this code's file has one beside it or one folder up), then the loader's names.
std::vector<std::string> blas_candidates() {
  std::vector<std::string> names;
  const std::filesystem::path here = file_holding(reinterpret_cast<const void*>(&blas_candidates)).parent_path();
  std::error_code ec;
  for (const std::filesystem::path& dir : {here, here.parent_path()}) {
    const std::filesystem::path bundled = dir / "_libs" / "libopenblas.so.0";
    if (!here.empty() && std::filesystem::is_regular_file(bundled, ec)) {
      names.push_back(bundled.string());
      break;
    }
  }
  names.insert(names.end(), {"libopenblas.so.0", "libopenblas.so"});
  return names;
}

const Blas& blas() {
  static const Blas loaded = [] {
    Blas b;
    std::string errors;
    void* handle = nullptr;
    for (const std::string& name : blas_candidates()) {
      handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle) {
        b.library = name;
        break;
      }
      const char* why = ::dlerror();
      errors += "\n  " + name + ": " + (why ? why : "not found");
    }
    if (!handle) {
      throw std::runtime_error("the native forward needs OpenBLAS (Debian: apt-get install libopenblas0), "
                               "which cannot be loaded:" + errors);
    }
    auto symbol = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
      if (!fn) throw std::runtime_error(b.library + " has no symbol " + name + ": not an OpenBLAS library");
    };
    symbol(b.sgemm, "cblas_sgemm");
    symbol(b.set_num_threads, "openblas_set_num_threads");
    symbol(b.get_num_threads, "openblas_get_num_threads");
    symbol(b.get_config, "openblas_get_config");
    symbol(b.get_corename, "openblas_get_corename");
    // One thread, like the runtime's session. Set once here, before any GEMM of this process.
    b.set_num_threads(1);
    // The pthread variant started its worker threads when it was loaded; with one thread they are never
    // used, but they spin (sched_yield) for a while and are joined at exit, which cost this process ~70 ms
    // of wall time per run on the benchmark machine. Stop them now (a GEMM on one thread runs in the caller;
    // OpenBLAS would start them again by itself if more threads were ever asked for).
    if (auto shutdown = reinterpret_cast<int (*)()>(::dlsym(handle, "blas_thread_shutdown_"))) shutdown();
    return b;
  }();
  return loaded;
}

const Blas& single_threaded_blas() {
  const Blas& b = blas();
  // Someone in the process (a host program) may have raised it since: pin it again.
  if (b.get_num_threads() != 1) b.set_num_threads(1);
  return b;
}

}  // namespace

ForwardBlasInfo forward_blas_info() {
  const Blas& b = single_threaded_blas();
  ForwardBlasInfo info;
  info.library = b.library;
  const char* config = b.get_config();
  const char* core = b.get_corename();
  info.config = config ? config : "";
  info.core = core ? core : "";
  info.threads = b.get_num_threads();
  return info;
}

std::vector<float> FeedFwdNN::forward_eval(std::span<const float> input, std::int64_t batch) const {
  const auto widths = config_.widths();
  if (batch < 0 || static_cast<std::int64_t>(input.size()) != batch * widths.front()) {
    throw std::invalid_argument("forward_eval: input holds " + std::to_string(input.size()) +
                                " values, not batch x input_dim");
  }
  const Activation activation = parse_activation(config_.activation);
  const std::size_t layers = widths.size() - 1;
  const auto output_dim = static_cast<std::size_t>(widths.back());
  std::vector<float> output(static_cast<std::size_t>(batch) * output_dim);
  if (batch == 0) return output;
  const Blas& b = single_threaded_blas();

  // Two ping-pong blocks for the hidden layers (none when there is no hidden layer).
  std::int64_t widest_hidden = 0;
  for (std::size_t l = 1; l < layers; ++l) widest_hidden = std::max(widest_hidden, widths[l]);
  const std::int64_t block_rows = std::min<std::int64_t>(batch, kForwardRowBlock);
  std::vector<float> ping(static_cast<std::size_t>(block_rows * widest_hidden));
  std::vector<float> pong(layers > 2 ? ping.size() : 0);

  for (std::int64_t row0 = 0; row0 < batch; row0 += block_rows) {
    const std::int64_t rows = std::min(block_rows, batch - row0);
    const float* x = input.data() + row0 * widths.front();
    for (std::size_t l = 0; l < layers; ++l) {
      const std::int64_t in = widths[l];
      const std::int64_t out = widths[l + 1];
      const bool last = l + 1 == layers;
      float* y = last ? output.data() + row0 * out : (l % 2 == 0 ? ping.data() : pong.data());
      const float* bias = parameters_[2 * l + 1].values.data();
      for (std::int64_t r = 0; r < rows; ++r) std::copy(bias, bias + out, y + r * out);
      // y[rows, out] = 1 * x[rows, in] . W[out, in]^T + 1 * y   (W row-major, as PyTorch stores it)
      b.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(out),
              static_cast<blasint>(in), 1.0f, x, static_cast<blasint>(in), parameters_[2 * l].values.data(),
              static_cast<blasint>(in), 1.0f, y, static_cast<blasint>(out));
      if (!last) {
        for (std::int64_t r = 0; r < rows; ++r) {
          apply_activation(activation, std::span<float>(y + r * out, static_cast<std::size_t>(out)));
        }
      }
      x = y;
    }
  }
  return output;
}

std::unique_ptr<ReferenceModel> make_feed_fwd_reference(const ModelConfig& config) {
  return std::make_unique<FeedFwdNN>(config);
}

}  // namespace nnx
