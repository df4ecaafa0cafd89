// Google Benchmark of the core's hot paths: SHA-256 of artifacts (in memory and streamed from a file),
// verify of a profile folder, strict JSON read + validate of a report (and of one record read in place from its
// tape), the native forward, and parity
// (draws, the runtime's run and the comparison) of a tested record.
//
//   core_bench [--report=REPORT.json --root=ARTIFACT_ROOT] [Google Benchmark flags]
//
// Without --report the report and parity benchmarks are skipped (scripts/run_benchmarks.py passes a report
// made by `nnx-conformance run` of both tested profiles). Files are hashed from the page cache: the
// benchmark measures the engine, not the disk.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifacts.h"
#include "app/execute_record.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "base/json_strict.h"
#include "base/json_tape.h"
#include "base/json_view.h"
#include "runtime/onnx_runtime.h"
#include "base/sha256.h"
#include "stages/stages.h"
#include "record/validate_record.h"

namespace {

std::string g_report;  // --report
std::string g_root;    // --root

namespace fs = std::filesystem;

// A scratch folder with one profile folder holding `bytes` of random data as model.onnx (+ the record
// section verify reads).
struct ScratchProfile {
  fs::path root;
  nnx::json record;
  explicit ScratchProfile(std::uint64_t bytes) {
    root = fs::temp_directory_path() / ("nnx-core-bench-" + std::to_string(::getpid()) + "-" + std::to_string(bytes));
    fs::create_directories(root / "p");
    std::vector<char> chunk(1 << 20);
    std::mt19937_64 rng(bytes);
    nnx::Sha256 h;
    std::ofstream out(root / "p" / "model.onnx", std::ios::binary);
    for (std::uint64_t done = 0; done < bytes;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), bytes - done));
      for (std::size_t i = 0; i < n; i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(chunk.data() + i, &v, std::min<std::size_t>(8, n - i));
      }
      out.write(chunk.data(), static_cast<std::streamsize>(n));
      h.update(chunk.data(), n);
      done += n;
    }
    out.close();
    record = {{"artifacts",
               {{"directory", "p"},
                {"model", "model.onnx"},
                {"files", {{{"path", "model.onnx"}, {"role", "model"}, {"bytes", bytes}, {"sha256", h.hex_digest()}}}}}}};
  }
  ~ScratchProfile() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

// ------------------------------------------------------------------------------------------- SHA-256

void BM_Sha256InMemory(benchmark::State& state) {
  std::vector<unsigned char> data(static_cast<std::size_t>(state.range(0)), 0xab);
  for (auto _ : state) {
    nnx::Sha256 h;
    h.update(data.data(), data.size());
    benchmark::DoNotOptimize(h.hex_digest());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256InMemory)->Arg(1 << 10)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMicrosecond);

// hash_file: open with O_NOFOLLOW, stream through SHA-256 in fixed chunks (never read whole).
void BM_HashFile(benchmark::State& state) {
  ScratchProfile scratch(static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) {
    const nnx::FileDigest d = nnx::hash_file(scratch.root / "p", "model.onnx", false);
    if (d.status != nnx::FileDigest::Status::ok) state.SkipWithError("hash_file failed");
    benchmark::DoNotOptimize(d.sha256);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_HashFile)->Arg(1 << 10)->Arg(64 << 20)->Unit(benchmark::kMillisecond);

// verify_artifacts: list the folder, hash every listed file, compare; what `verify` does per record.
void BM_VerifyArtifacts(benchmark::State& state) {
  ScratchProfile scratch(static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) {
    const nnx::VerifyOutcome out = nnx::verify_artifacts(scratch.record, scratch.root);
    if (!out.ok()) state.SkipWithError("verify failed");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_VerifyArtifacts)->Arg(1 << 10)->Arg(64 << 20)->Unit(benchmark::kMillisecond);

// ------------------------------------------------------------------------------- strict JSON + validate

void BM_ReadValidateReport(benchmark::State& state) {
  if (g_report.empty()) {
    state.SkipWithError("no --report given");
    return;
  }
  std::size_t records = 0;
  for (auto _ : state) {
    const nnx::json document = nnx::read_strict_json_file(g_report);
    const auto list = nnx::records_of(document);
    for (const auto& r : list) {
      if (!nnx::record_problems(r).empty()) state.SkipWithError("the report is not valid");
    }
    records = list.size();
  }
  state.counters["records"] = static_cast<double>(records);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * fs::file_size(g_report)));
}
BENCHMARK(BM_ReadValidateReport)->Unit(benchmark::kMicrosecond);

void BM_ParseStrictJson(benchmark::State& state) {
  if (g_report.empty()) {
    state.SkipWithError("no --report given");
    return;
  }
  std::ifstream in(g_report, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto _ : state) benchmark::DoNotOptimize(nnx::parse_strict_json(text));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseStrictJson)->Unit(benchmark::kMicrosecond);

void BM_ValidateRecord(benchmark::State& state) {
  if (g_report.empty()) {
    state.SkipWithError("no --report given");
    return;
  }
  const auto records = nnx::records_of(nnx::read_strict_json_file(g_report));
  for (auto _ : state) benchmark::DoNotOptimize(nnx::record_problems(records.front()));
}
BENCHMARK(BM_ValidateRecord)->Unit(benchmark::kMicrosecond);

// The same rules read in place from the record's tape (base/json_view.h), as the Python front end hands it.
void BM_ValidateRecordInPlace(benchmark::State& state) {
  if (g_report.empty()) {
    state.SkipWithError("no --report given");
    return;
  }
  const auto records = nnx::records_of(nnx::read_strict_json_file(g_report));
  const nnx::JsonTape tape = nnx::JsonTape::from_json(records.front());
  for (auto _ : state) benchmark::DoNotOptimize(nnx::record_problems(nnx::JsonView(tape)));
}
BENCHMARK(BM_ValidateRecordInPlace)->Unit(benchmark::kMicrosecond);

// ----------------------------------------------------------------------------------------- native model

nnx::ModelConfig config_of(std::int64_t input_dim, std::vector<std::int64_t> hidden, std::int64_t output_dim,
                           double std_value) {
  nnx::ModelConfig c;
  c.input_dim = input_dim;
  c.hidden_dims = std::move(hidden);
  c.output_dim = output_dim;
  c.weights.std = std_value;
  return c;
}

// Arg 0: the tested model 4-8-2 at batch 7; 1: 256-1024-1024-10 at batch 512; 2: 4-4096-4088-2 (2^24
// weights, "wide") at batch 256.
nnx::ModelConfig forward_config(std::int64_t which) {
  switch (which) {
    case 0: return nnx::ModelConfig{};
    case 1: return config_of(256, {1024, 1024}, 10, 0.03);
    default: return config_of(4, {4096, 4088}, 2, 0.02);
  }
}

void BM_NativeForward(benchmark::State& state) {
  const nnx::FeedFwdNN net(forward_config(state.range(0)));
  const std::int64_t batch = state.range(1);
  const std::vector<float> input = nnx::draw_randn({batch, net.config().input_dim}, 1000 + batch);
  for (auto _ : state) benchmark::DoNotOptimize(net.forward_eval(input, batch));
  double flops = 0;
  const auto w = net.config().widths();
  for (std::size_t i = 0; i + 1 < w.size(); ++i) flops += 2.0 * static_cast<double>(batch * w[i] * w[i + 1]);
  state.counters["weights"] = static_cast<double>(net.config().weight_count());
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_NativeForward)->Args({0, 7})->Args({1, 512})->Args({2, 256})->Unit(benchmark::kMicrosecond);

// The weights of a model: torch.randn-exact draws (MT19937 + Box-Muller) and their SHA-256.
void BM_RebuildWeights(benchmark::State& state) {
  const nnx::ModelConfig c = forward_config(state.range(0));
  for (auto _ : state) {
    const nnx::FeedFwdNN net(c);
    benchmark::DoNotOptimize(net.weights_sha256());
  }
  state.counters["weights"] = static_cast<double>(c.weight_count());
  state.counters["weights/s"] =
      benchmark::Counter(static_cast<double>(c.weight_count()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RebuildWeights)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// ------------------------------------------------------------------------------------- opening the runtime

// What every run, execute and API call pays to open ONNX Runtime once the library is already loaded in the
// process (the second and later calls): the search, the file check, dlopen's reference and the environment.
void BM_OpenOnnxRuntimeAgain(benchmark::State& state) {
  try {
    const auto first = nnx::open_runtime("onnxruntime", std::nullopt);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(nnx::open_runtime("onnxruntime", std::nullopt));
}
BENCHMARK(BM_OpenOnnxRuntimeAgain)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------- parity

// The parity stage of the report's first record on a real session: every case drawn, run by ONNX Runtime,
// compared with the native forward.
void BM_ParityTestedRecord(benchmark::State& state) {
  if (g_report.empty() || g_root.empty()) {
    state.SkipWithError("no --report/--root given");
    return;
  }
  nnx::json record = nnx::records_of(nnx::read_strict_json_file(g_report)).front();
  std::vector<std::string> problems;
  const nnx::FeedFwdNN native(nnx::model_config_from_json(record["config"], problems));
  nnx::Record typed = nnx::Record::from_json(record);
  nnx::StageContext context{typed, g_root, &native};
  context.reference = nnx::ReferenceKind::native;  // the float32 forward in process: no worker here
  try {
    context.runtime = nnx::open_runtime("onnxruntime", std::nullopt);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  if (!nnx::run_load_stage(context)) {
    state.SkipWithError("the record's model cannot be loaded");
    return;
  }
  for (auto _ : state) {
    nnx::run_parity_stage(context);
    if (typed.stage(nnx::Stage::parity).status != nnx::StageStatus::passed) state.SkipWithError("parity failed");
  }
  state.counters["cases"] = static_cast<double>(typed.input_cases.size());
}
BENCHMARK(BM_ParityTestedRecord)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--report=", 0) == 0) {
      g_report = a.substr(9);
    } else if (a.rfind("--root=", 0) == 0) {
      g_root = a.substr(7);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
