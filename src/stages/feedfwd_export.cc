// The feed-forward net's side of the export stage (export_kind.h; doc/record-format.md §4 export): its hooks on
// the one path. The request carries the network the profile's config built (its config and parameters as
// float32 frames, stages/feedfwd_reference.h worker_network_fields), the profile's exporter and its pinned
// arguments (profile/profile.h exporter_options) and the example batch [export_batch, input_dim] drawn with
// seed 7 (model/input_draw.h); the stage's detail is the exporter's warnings. Its records are v1
// (nnx.export-conformance/1), which has no tool-error: a failure of the tool's own step is export-error.
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "artifacts/layout.h"
#include "model/input_draw.h"
#include "stages/export_kind.h"
#include "stages/feedfwd_reference.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;

class FeedFwdExport final : public ExportKind {
 public:
  explicit FeedFwdExport(StageContext& context) : context_(context) {}

  json request(OutgoingFrames& frames) override {  // worker/PROTOCOL.md, "export"
    const Profile& profile = *context_.profile;
    const FeedForwardParts& net = profile.feed_forward();
    const std::vector<std::int64_t> example_shape = {net.export_batch, net.model.input_dim};
    json request = worker_network_fields(*context_.model, frames);  // the model the profile's config built
    const std::string output_dir = std::filesystem::absolute(profile_folder(context_.root, profile.name)).string();
    request.update(json{{wire::kOp, wire::kOpExport},
                        {wire::kExporter, profile.exporter},
                        {wire::kOptions, profile.exporter_options()},
                        {wire::kExampleInput,
                         frames.own(Tensor::float32("example", example_shape, draw_randn(example_shape, 7)))},
                        {wire::kOutputDir, output_dir},
                        {wire::kModelFile, kModelFile}});
    return request;
  }

  std::optional<bool> read_first(const json&) override { return std::nullopt; }

  json passed(const json& answer, AnswerFrames&) override {
    return json{{rf::detail_key::kWarnings, answer.value(wire::kWarnings, json::array())}};
  }

  FailureClass own_step_failure() const override { return FailureClass::export_error; }

 private:
  StageContext& context_;
};

}  // namespace

std::unique_ptr<ExportKind> feedfwd_export(StageContext& context) { return std::make_unique<FeedFwdExport>(context); }

}  // namespace nnx
