#include "runtime/runtime.h"

namespace nnx {

nlohmann::json SessionSettings::options_json() const {
  return nlohmann::json{{"intra_op_num_threads", intra_op_num_threads},
                        {"inter_op_num_threads", inter_op_num_threads},
                        {"graph_optimization_level", graph_optimization_level}};
}

}  // namespace nnx
