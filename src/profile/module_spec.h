// A module profile's model: the user's own PyTorch module, named by its factory, with its inputs' names,
// shapes and dtypes and the values of its symbolic dimensions (doc/record-format.md §10, "Module records").
//
// `factory` is `FILE.py:FACTORY` (a path, absolute or relative to the current folder: a profile file's reader
// has already made its relative paths absolute from the file's folder, module_factory.h) or
// `package.module:FACTORY` (the rule: module_factory.h); the factory takes no argument and returns an nn.Module. An input's shape holds
// fixed sizes and symbolic names; `dims` gives each symbolic name its values, the first being the export's.
// Dims are needed only for inputs that are drawn: with data sets of given inputs (`data`, given_inputs.h), a
// dim the profile leaves out takes the sizes the data sets give it (`data_dims`), and the profile then draws
// no case of its dims. `cases()` is the one rule for a module profile's cases: the export case, then every
// other value of every dim (the other dims at their export values) — none of these when a dim comes from the
// data sets —, then one case per data set, then one refusal case per fixed size of every input (that size + 1,
// which the runtime must refuse; at the first data set's sizes when a dim comes from the data sets). An
// integer input needs a range when some case draws it. `problems()` names every violation of the limits below and of the
// rules a module record's specs and cases are validated with (module_spec_rules.h: outputs, case names),
// seen without running anything; a factory file that does not exist is one of them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/precision.h"
#include "base/tensor.h"

namespace nnx {

namespace module_limits {
inline constexpr std::size_t kMaxInputs = 16;
inline constexpr std::size_t kMaxRank = 8;
inline constexpr std::size_t kMaxCases = 64;
inline constexpr std::int64_t kMaxDimSize = 65536;
inline constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{64} << 20;    // one stored input or output
inline constexpr std::uint64_t kMaxStoredBytes = std::uint64_t{512} << 20;  // every case's inputs together
}  // namespace module_limits

// One size of an input's shape: fixed, or a symbolic dimension's name.
struct DimSize {
  std::optional<std::int64_t> fixed;
  std::string symbol;
  nlohmann::json to_json() const;
};

struct InputSpec {
  std::string name;
  std::vector<DimSize> shape;
  DType dtype = DType::float32;  // any of base/tensor.h's: floats drawn from N(0, 1) (half precisions rounded),
                                 // bool 0 or 1, integers uniformly from `range`
  std::optional<std::pair<std::int64_t, std::int64_t>> range;  // integer inputs: [low, high)
  std::vector<std::string> hides;  // outputs whose positions this mask's zeros hide (stages/dont_care.h)
  nlohmann::json to_json() const;  // {name, shape, dtype, range[, hides]}
};

// The values an integer input dtype holds, [lowest, highest]; nullopt for a dtype that takes no range (the
// floats and bool). The one rule of which inputs need a range and what it may span, for the profile check
// and the record validator.
std::optional<std::pair<std::int64_t, std::int64_t>> integer_input_bounds(DType dtype);

// One input a data set gives (profile/given_inputs.h): the spec input it is, the file it was read from (as
// found, and relative to the data folder) and what the file held when the profile was read.
struct GivenInput {
  std::size_t input = 0;  // index into ModuleSpec::inputs
  std::string source;     // the .pb file as found under the data folder
  std::string relative;   // "test_data_set_<N>/input_<j>.pb": the record's `given`
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
};

// One data set of given inputs: one case expected to match, named data-set-<N>, its dims bound by the given
// tensors' shapes (the others at their export values).
struct GivenDataSet {
  std::uint64_t number = 0;  // N of test_data_set_<N>
  std::vector<GivenInput> inputs;
  std::vector<std::pair<std::string, std::int64_t>> dims;  // every symbolic dim's value, in dims order
};

// One case of a module profile: each input's concrete shape and the dims' values it was made from.
struct ModuleCase {
  std::string name;                                          // "batch-1", "image-axis1-4"
  std::vector<std::pair<std::string, std::int64_t>> dims;    // every symbolic dim's value, in dims order
  std::vector<std::vector<std::int64_t>> input_shapes;       // one per input, in inputs order
  std::uint64_t seed = 0;
  std::string expect;                                        // rf::kExpectMatch | rf::kExpectRejected
  std::optional<std::size_t> data_set;  // index into ModuleSpec::given: the case whose inputs a data set gives
};

struct ModuleSpec {
  std::string factory;
  std::vector<InputSpec> inputs;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> dims;  // in the profile's order
  std::optional<std::vector<std::string>> outputs;                       // the outputs' names, when given
  std::string data;                  // `"data"`: the folder of given inputs (given_inputs.h), or ""
  std::vector<GivenDataSet> given;   // read from `data` when the profile was read
  std::vector<std::string> data_dims;  // the dims the profile left out, whose values (in `dims`) the data sets gave
  // A module profile's `precision` (base/precision.h): float32 unless the profile says otherwise; to_json
  // states it only then, so a float32 profile's settings and records are those of before.
  Precision precision = Precision::float32;

  // The factory's file for `FILE.py:FACTORY`, else nullopt; and the factory's name after the colon.
  std::optional<std::string> factory_file() const;
  std::string factory_name() const;
  std::vector<ModuleCase> cases() const;
  // Each input's shape at the dims' export values.
  std::vector<std::vector<std::int64_t>> export_shapes() const;
  nlohmann::json to_json() const;  // {module, inputs, dims, outputs[, data][, precision]}: a profile file's own fields
  nlohmann::json every_dim_json() const;  // {dim: [values]} of every dim, those the data sets gave included
  std::vector<std::string> symbols() const;  // the symbolic dims the inputs use, in the order they first use them
  // With `data_to_read`, before the data sets are read: a dim without values and an integer input without a
  // range are not yet problems (the data sets may give them).
  std::vector<std::string> problems(bool data_to_read = false) const;
  // Whether some case draws input `index` (every input, unless a dim comes from the data sets: then those no
  // data set gives, and every input when there are refusal cases).
  bool draws_input(std::size_t index) const;
};

// The seed of input `index` of a case with `case_seed` (each input is drawn from its own seed).
std::uint64_t input_seed(std::uint64_t case_seed, std::size_t index);

// Reads a module profile's fields (module, inputs, dims, outputs) from a profile object; appends each key or
// type problem to `problems` (limits are problems() of the result).
ModuleSpec module_spec_from_json(const nlohmann::json& value, std::vector<std::string>& problems);
// A profile's `dims` ({name: [sizes]}) into spec.dims, the one reading of it for every kind; problems appended
// as "profile.dims...".
void read_dims(const nlohmann::json& dims, ModuleSpec& spec, std::vector<std::string>& problems);

}  // namespace nnx
