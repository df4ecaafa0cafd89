// The native reference forward against ONNX Runtime's single-threaded run of the same case, for a record
// (typically one of the largest profiles the limits allow), plus what `execute` does around them.
//
//   forward_bench --record=RECORD.json --root=ARTIFACT_ROOT [--iterations=N] [Google Benchmark flags]
//
// The case is the record's largest `match` case (by batch). Benchmarks (wall time, N iterations each):
//   native_forward   FeedFwdNN::forward_eval (OpenBLAS sgemm, one thread)
//   ort_run          Session::run (ONNX Runtime) on a session with 1 intra-op and 1 inter-op thread, ORT_ENABLE_ALL
//   draw_randn       torch.randn-exact draw of the case input
//   rebuild_weights  the native model from config (torch.randn-exact weights) and its SHA-256
//   load_session     the load stage: verify every artifact byte, then create the session from the verified bytes
#include <benchmark/benchmark.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/execute_record.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "base/json_strict.h"
#include "model/model_config.h"
#include "runtime/onnx_runtime.h"
#include "stages/stages.h"

namespace {

using nnx::json;

struct Fixture {
  json record;
  std::string root;
  std::shared_ptr<nnx::Runtime> runtime;
  std::unique_ptr<nnx::FeedFwdNN> native;
  std::unique_ptr<nnx::Session> session;
  std::vector<std::int64_t> shape;
  std::uint64_t seed = 0;
  std::vector<float> input;
  std::string input_name;
};

Fixture* g = nullptr;

double flops_of(const nnx::ModelConfig& c, std::int64_t batch) {
  double f = 0;
  const auto w = c.widths();
  for (std::size_t i = 0; i + 1 < w.size(); ++i) f += 2.0 * static_cast<double>(batch) * w[i] * w[i + 1];
  return f;
}

void counters(benchmark::State& state) {
  state.counters["batch"] = static_cast<double>(g->shape[0]);
  state.counters["weights"] = static_cast<double>(g->native->config().weight_count());
  state.counters["FLOPS"] =
      benchmark::Counter(flops_of(g->native->config(), g->shape[0]), benchmark::Counter::kIsIterationInvariantRate);
}

void native_forward(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(g->native->forward_eval(g->input, g->shape[0]));
  counters(state);
}

void ort_run(benchmark::State& state) {
  const nnx::Tensor input = nnx::Tensor::float32(g->input_name, g->shape, g->input);
  for (auto _ : state) benchmark::DoNotOptimize(g->session->run(std::span<const nnx::Tensor>(&input, 1)));
  counters(state);
}

void draw_randn(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(nnx::draw_randn(g->shape, g->seed));
  state.counters["values"] = static_cast<double>(g->input.size());
}

void rebuild_weights(benchmark::State& state) {
  for (auto _ : state) {
    const nnx::FeedFwdNN net(g->native->config());
    benchmark::DoNotOptimize(net.weights_sha256());
  }
  state.counters["weights"] = static_cast<double>(g->native->config().weight_count());
}

void load_session(benchmark::State& state) {
  for (auto _ : state) {
    nnx::Record record = nnx::Record::from_json(g->record);
    nnx::StageContext context{record, g->root, g->native.get()};
    context.runtime = g->runtime;
    if (!nnx::run_load_stage(context)) state.SkipWithError("load failed");
    benchmark::DoNotOptimize(context.session);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string record_path, root;
  int iterations = 3;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--record=", 0) == 0) {
      record_path = a.substr(9);
    } else if (a.rfind("--root=", 0) == 0) {
      root = a.substr(7);
    } else if (a.rfind("--iterations=", 0) == 0) {
      iterations = std::stoi(a.substr(13));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (record_path.empty() || root.empty()) {
    std::cerr << "usage: forward_bench --record=RECORD.json --root=ARTIFACT_ROOT [--iterations=N] [benchmark flags]\n";
    return 2;
  }
  Fixture fixture;
  g = &fixture;
  try {
    fixture.record = nnx::records_of(nnx::read_strict_json_file(record_path)).front();
    fixture.root = root;
    fixture.runtime = nnx::open_runtime("onnxruntime", std::nullopt);
    std::vector<std::string> problems;
    fixture.native = std::make_unique<nnx::FeedFwdNN>(nnx::model_config_from_json(fixture.record["config"], problems));
    nnx::Record record = nnx::Record::from_json(fixture.record);
    nnx::StageContext context{record, root, fixture.native.get()};
    context.runtime = fixture.runtime;
    if (!nnx::run_load_stage(context)) {
      throw std::runtime_error("load failed: " + record.stage(nnx::Stage::load).detail.dump());
    }
    fixture.session = std::move(context.session);
    for (const auto& c : fixture.record["input_cases"]) {
      if (c["expect"] != "match") continue;
      const auto shape = c["shape"].get<std::vector<std::int64_t>>();
      if (fixture.shape.empty() || shape[0] > fixture.shape[0]) {
        fixture.shape = shape;
        fixture.seed = c["seed"].get<std::uint64_t>();
      }
    }
    fixture.input = nnx::draw_randn(fixture.shape, fixture.seed);
    fixture.input_name = fixture.record["exporter"]["options"]["input_names"][0].get<std::string>();
  } catch (const std::exception& e) {
    std::cerr << "forward_bench: " << e.what() << "\n";
    return 1;
  }
  const nnx::ForwardBlasInfo blas = nnx::forward_blas_info();
  benchmark::AddCustomContext("record", record_path);
  benchmark::AddCustomContext("case_shape", "[" + std::to_string(fixture.shape[0]) + ", " +
                                                std::to_string(fixture.shape[1]) + "]");
  benchmark::AddCustomContext("openblas", blas.config + " core=" + blas.core + " threads=" + std::to_string(blas.threads));
  benchmark::AddCustomContext("onnxruntime", fixture.runtime->version());
  for (auto [name, fn] : std::vector<std::pair<const char*, void (*)(benchmark::State&)>>{
           {"native_forward", native_forward},
           {"ort_run", ort_run},
           {"draw_randn", draw_randn},
           {"rebuild_weights", rebuild_weights},
           {"load_session", load_session}}) {
    benchmark::RegisterBenchmark(name, fn)->Iterations(iterations)->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
