// A stage's detail when the exporter worker failed it (worker_failure.h).
#include "stages/worker_failure.h"

#include <string>

#include "base/record_vocabulary.h"

namespace nnx {

nlohmann::json worker_failure_detail(ExporterClient& exporter, const WorkerError& error) {
  nlohmann::json detail{{rf::detail_key::kError, std::string("exporter worker: ") + error.what()},
                        {rf::detail_key::kLog, exporter.log_tail(20)}};
  exporter.stop();
  return detail;
}

}  // namespace nnx
