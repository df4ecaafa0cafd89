// read_onnx_model (src/onnx_file/onnx_model_file.h) on real ONNX model files.
//
// The files are written once per test process by onnx's own Python API (onnx.helper, numpy_helper,
// external_data_helper.set_external_data and onnx.save_model with save_as_external_data) with the Python of
// .venv (NNX_ONNX_PYTHON, set by CMake): the exporters' files come from that same writer, so the reader is
// tested against ONNX's implementation of the format (offsets and lengths as onnx writes them), not against
// protobuf messages this repository would build for itself with the same generated classes it reads with.
// Hostile variants (a wrong length, impossible dims) are edited with the same API.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "base/error.h"
#include "onnx_file/onnx_model_file.h"
#include "support/files.h"
#include "support/onnx_writer.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;

constexpr const char* kWriteModels = R"PY(
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import set_external_data

out = sys.argv[1]
W = np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1.0
B = np.array([0.25, -2.5, 1e-3], dtype=np.float32)

def feedforward(b_raw):
    w = numpy_helper.from_array(W, "W")  # raw_data
    b = numpy_helper.from_array(B, "B") if b_raw else helper.make_tensor("B", TensorProto.FLOAT, [3], B.tolist())
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["XW"]), helper.make_node("Add", ["XW", "B"], ["Y"])], "ff",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])

def external_entry(tensor, key, value):
    for e in tensor.external_data:
        if e.key == key:
            e.value = value

onnx.save_model(feedforward(False), f"{out}/inline.onnx")
os.makedirs(f"{out}/ext")
onnx.save_model(feedforward(True), f"{out}/ext/model.onnx", save_as_external_data=True,
                all_tensors_to_one_file=True, location="./w.bin", size_threshold=0)
short = onnx.load(f"{out}/ext/model.onnx", load_external_data=False)
external_entry(short.graph.initializer[1], "length", "8")
onnx.save_model(short, f"{out}/ext/short.onnx")

for name, dims in (("huge", [1 << 20, 1 << 20]), ("overflow", [1 << 40, 1 << 40])):
    hostile = feedforward(False)
    t = hostile.graph.initializer.add()
    t.name, t.data_type, t.raw_data = name, TensorProto.FLOAT, b"\0\0\0\0"
    t.dims.extend(dims)
    onnx.save_model(hostile, f"{out}/{name}.onnx")

def raw(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)

def external(tensor, location):
    set_external_data(tensor, location)
    return tensor

# One model per place a tensor with external data can sit, each beside a served main-graph initializer
# (top.bin); "served" holds only what ONNX Runtime is given from memory (an initializer, a Constant's value).
out3 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
def model(nodes, initializer=(), sparse=(), functions=()):
    graph = helper.make_graph(nodes, "main", [], [out3], [external(raw("top", [7]), "top.bin"), *initializer])
    graph.sparse_initializer.extend(sparse)
    return helper.make_model(graph, functions=list(functions),
                             opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])
def graph(name, nodes, initializer=()):
    return helper.make_graph(nodes, name, [], [out3], list(initializer))
def constant(name, location, node_name=None):
    return helper.make_node("Constant", [], ["y"], value=external(raw(name, [1]), location), name=node_name)
else_branch = graph("else", [helper.make_node("Constant", [], ["y"], value_float=1.0)])
def if_node(then_branch):
    return helper.make_node("If", ["cond"], ["y"], then_branch=then_branch, else_branch=else_branch, name="if")
def sparse(values_location, indices_location):
    values, indices = raw("sv", [8]), numpy_helper.from_array(np.array([0], dtype=np.int64), "si")
    if values_location: external(values, values_location)
    if indices_location: external(indices, indices_location)
    return helper.make_sparse_tensor(values, indices, [4])
loop = helper.make_node("Loop", ["", ""], [], body=graph("body", [constant("d", "deep/./d.bin", "k")]), name="loop")
fn_default = helper.make_function("local", "fd", [], ["y"], [], [helper.make_opsetid("", 18)], ["a"])
fn_default.attribute_proto.append(helper.make_attribute("a", external(raw("fa", [2]), "fa.bin")))
places = {
    "if_initializer": model([if_node(graph("then", [], [external(raw("ti", [2]), "then/ti.bin")]))]),
    "loop_in_if": model([if_node(graph("then", [loop]))]),
    "sparse_values": model([], sparse=[sparse("sparse/values.bin", None)]),
    "sparse_indices": model([], sparse=[sparse(None, "sparse/indices.bin")]),
    "function_constant": model([], functions=[helper.make_function(
        "local", "fn", [], ["y"], [constant("f", "fn.bin")], [helper.make_opsetid("", 18)])]),
    "function_default": model([], functions=[fn_default]),
    "node_tensors": model([helper.make_node("Custom", [], ["y"], domain="local",
                                            many=[raw("m0", [5]), external(raw("m1", [6]), "./w.bin")])]),
    "attribute_tensor": model([helper.make_node("ConstantOfShape", ["s"], ["y"], value=external(raw("v", [1]), "v.bin"))]),
    "sparse_constant": model([helper.make_node("Constant", [], ["y"], sparse_value=sparse("sc.bin", None))]),
    "memory_address": model([constant("c", "*/_ORT_MEM_ADDR_/*", "c")]),  # its raw_data cleared below
    "served": model([constant("c", "./c.bin", "c")]),
}
places["memory_address"].graph.node[0].attribute[0].t.ClearField("raw_data")  # save_model writes no file
for folder in ("then", "deep"):
    os.makedirs(f"{out}/places/{folder}", exist_ok=True)
for name, m in places.items():
    onnx.save_model(m, f"{out}/places/{name}.onnx")
)PY";

using test_support::read_byte_vector;

class OnnxModelFileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new test_support::TempDir("nnx-onnx-file");
    dir_ = new fs::path(folder_->path());
    test_support::write_with_onnx_python(*dir_, "write_models.py", kWriteModels);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete folder_;  // removes the folder with the model files
  }

  // A lookup over files of `folder`, recording every location asked for.
  ExternalBytes files_of(const fs::path& folder) {
    return [this, folder](const std::string& location) -> std::optional<std::span<const std::byte>> {
      asked_.push_back(location);
      if (!fs::exists(folder / location)) return std::nullopt;
      auto [it, _] = loaded_.emplace(location, read_byte_vector(folder / location));
      return std::span<const std::byte>(it->second);
    };
  }
  OnnxModelFile read(const std::string& model, const ExternalBytes& external = nullptr) {
    const Bytes bytes = read_byte_vector(*dir_ / model);
    return read_onnx_model(bytes, external);
  }
  // The message of the ConformanceError reading `bytes` throws ("" when it does not throw).
  static std::string refusal(const Bytes& bytes, const ExternalBytes& external) {
    try {
      read_onnx_model(bytes, external);
    } catch (const ConformanceError& e) {
      return e.what();
    }
    return "";
  }

  static test_support::TempDir* folder_;
  static fs::path* dir_;
  std::vector<std::string> asked_;
  std::map<std::string, Bytes> loaded_;
};
test_support::TempDir* OnnxModelFileTest::folder_ = nullptr;
fs::path* OnnxModelFileTest::dir_ = nullptr;

const std::vector<float> kW = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f};
const std::vector<float> kB = {0.25f, -2.5f, 1e-3f};

TEST_F(OnnxModelFileTest, RawDataAndFloatDataGiveTheValuesInFileOrder) {
  const OnnxModelFile file = read("inline.onnx");
  EXPECT_TRUE(file.external_locations.empty());
  ASSERT_EQ(file.initializers.size(), 2u);
  EXPECT_EQ(file.initializers[0].name, "W");
  EXPECT_EQ(file.initializers[0].dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(file.initializers[0].data_type, kOnnxFloat);
  EXPECT_EQ(file.initializers[0].values, kW);  // raw_data
  EXPECT_EQ(file.initializers[1].name, "B");
  EXPECT_EQ(file.initializers[1].values, kB);  // float_data
  EXPECT_FALSE(file.initializers[1].external_location);
}

TEST_F(OnnxModelFileTest, ExternalDataIsReadAtItsOffsetAndLengthUnderTheExactLocation) {
  const OnnxModelFile file = read("ext/model.onnx", files_of(*dir_ / "ext"));
  EXPECT_EQ(file.external_locations, std::vector<std::string>{"./w.bin"});
  ASSERT_EQ(file.initializers.size(), 2u);
  EXPECT_EQ(file.initializers[0].values, kW);  // offset 0, length 24
  EXPECT_EQ(file.initializers[1].values, kB);  // offset 24, length 12
  EXPECT_EQ(file.initializers[1].external_location, "./w.bin");
  EXPECT_EQ(asked_, (std::vector<std::string>{"./w.bin", "./w.bin"}));
}

TEST_F(OnnxModelFileTest, SizesOnlyLeavesTheValuesEmptyYetChecksTheirSizesAndLocations) {
  const Bytes inline_bytes = read_byte_vector(*dir_ / "inline.onnx");
  const OnnxModelFile file = read_onnx_model(inline_bytes, nullptr, FloatValues::sizes_only);
  ASSERT_EQ(file.initializers.size(), 2u);
  EXPECT_EQ(file.initializers[0].dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_TRUE(file.initializers[0].values.empty());  // raw_data, not decoded
  EXPECT_TRUE(file.initializers[1].values.empty());  // float_data, not copied
  const OnnxModelFile external =
      read_onnx_model(read_byte_vector(*dir_ / "ext/model.onnx"), files_of(*dir_ / "ext"), FloatValues::sizes_only);
  EXPECT_EQ(external.external_locations, std::vector<std::string>{"./w.bin"});
  EXPECT_TRUE(external.initializers[0].values.empty());
  std::string why;
  try {
    read_onnx_model(read_byte_vector(*dir_ / "ext/short.onnx"), files_of(*dir_ / "ext"), FloatValues::sizes_only);
  } catch (const ConformanceError& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("holds 8 bytes but its dims need 3"), std::string::npos) << why;
}

TEST_F(OnnxModelFileTest, AMissingExternalFileIsRefusedNamingTheTensorAndLocation) {
  const std::string why = refusal(read_byte_vector(*dir_ / "ext/model.onnx"),
                                  [](const std::string&) { return std::nullopt; });
  EXPECT_NE(why.find("initializer \"W\""), std::string::npos) << why;
  EXPECT_NE(why.find("\"./w.bin\" is absent"), std::string::npos) << why;
}

TEST_F(OnnxModelFileTest, ATruncatedExternalFileIsOutOfRange) {
  Bytes data = read_byte_vector(*dir_ / "ext/w.bin");
  ASSERT_EQ(data.size(), 36u);
  data.resize(30);  // B (offset 24, length 12) now ends beyond the file
  const std::string why = refusal(read_byte_vector(*dir_ / "ext/model.onnx"),
                                  [&](const std::string&) { return std::span<const std::byte>(data); });
  EXPECT_NE(why.find("initializer \"B\""), std::string::npos) << why;
  EXPECT_NE(why.find("beyond the end of \"./w.bin\" (30 bytes)"), std::string::npos) << why;
}

TEST_F(OnnxModelFileTest, ALengthThatDoesNotMatchTheDimsIsRefused) {
  const std::string why = refusal(read_byte_vector(*dir_ / "ext/short.onnx"), files_of(*dir_ / "ext"));
  EXPECT_NE(why.find("initializer \"B\": its external data in \"./w.bin\" holds 8 bytes but its dims need 3"),
            std::string::npos)
      << why;
}

TEST_F(OnnxModelFileTest, DimsFarBeyondTheBytesAreRefusedBeforeAnyAllocation) {
  const std::string huge = refusal(read_byte_vector(*dir_ / "huge.onnx"), nullptr);  // 2^40 elements, 4 bytes
  EXPECT_NE(huge.find("initializer \"huge\": raw_data holds 4 bytes but its dims need 1099511627776"),
            std::string::npos)
      << huge;
  const std::string overflow = refusal(read_byte_vector(*dir_ / "overflow.onnx"), nullptr);  // 2^80 elements
  EXPECT_NE(overflow.find("initializer \"overflow\": too many elements"), std::string::npos) << overflow;
}

TEST_F(OnnxModelFileTest, ATruncatedModelDoesNotParse) {
  Bytes bytes = read_byte_vector(*dir_ / "ext/model.onnx");
  bytes.resize(bytes.size() - 1);  // inside the last field (opset_import)
  EXPECT_NE(refusal(bytes, files_of(*dir_ / "ext")).find("not an ONNX model"), std::string::npos);
  EXPECT_NE(refusal(Bytes{}, nullptr).find("no graph"), std::string::npos);
  const Bytes garbage(64, std::byte{0xff});
  EXPECT_NE(refusal(garbage, nullptr).find("not an ONNX model"), std::string::npos);
}

// The tensor and where it sits, as the refusal of places/<name>.onnx names them.
const std::map<std::string, std::string> kPlaces = {
    {"if_initializer", "tensor \"ti\" (initializer \"ti\" of subgraph \"then\" (attribute \"then_branch\" of node "
                       "\"if\" (If) in the main graph)) keeps its data in the external file \"then/ti.bin\""},
    {"loop_in_if", "tensor \"d\" (the tensor of attribute \"value\" of node \"k\" (Constant) in subgraph \"body\" "
                   "(attribute \"body\" of node \"loop\" (Loop) in subgraph \"then\" (attribute \"then_branch\" of "
                   "node \"if\" (If) in the main graph))) keeps its data in the external file \"deep/./d.bin\""},
    {"sparse_values", "tensor \"sv\" (the values of sparse initializer \"sv\" of the main graph)"},
    {"sparse_indices", "tensor \"si\" (the indices of sparse initializer \"sv\" of the main graph)"},
    {"function_constant", "tensor \"f\" (the tensor of attribute \"value\" of node #0 (Constant) in function \"fn\" "
                          "(domain \"local\"))"},
    {"function_default", "tensor \"fa\" (the tensor of default of attribute \"a\" of function \"fd\" (domain "
                         "\"local\"))"},
    {"node_tensors", "tensor \"m1\" (a tensor of attribute \"many\" of node #0 (local.Custom) in the main graph)"},
    {"attribute_tensor", "tensor \"v\" (the tensor of attribute \"value\" of node #0 (ConstantOfShape) in the main "
                         "graph)"},
    {"sparse_constant", "tensor \"sv\" (the values of the sparse tensor of attribute \"sparse_value\" of node #0 "
                        "(Constant) in the main graph)"},
};

TEST_F(OnnxModelFileTest, ExternalDataAnywhereButTheMainGraphsInitializersAndConstantsIsRefusedNamingWhere) {
  for (const auto& [name, where] : kPlaces) {
    const std::string why = refusal(read_byte_vector(*dir_ / "places" / (name + ".onnx")), nullptr);
    EXPECT_TRUE(why.starts_with(where)) << name << ": " << why;
    EXPECT_NE(why.find("relative to its working directory"), std::string::npos) << name << ": " << why;
    EXPECT_TRUE(why.ends_with("re-save the model with the data inline or as a main-graph initializer"))
        << name << ": " << why;
  }
}

TEST_F(OnnxModelFileTest, TheMemoryAddressTagIsRefusedEvenForAServedTensor) {
  const std::string why = refusal(read_byte_vector(*dir_ / "places/memory_address.onnx"), nullptr);
  EXPECT_TRUE(why.starts_with("tensor \"c\" (the tensor of attribute \"value\" of node \"c\" (Constant) in the main "
                              "graph) gives its external data location as \"*/_ORT_MEM_ADDR_/*\""))
      << why;
}

TEST_F(OnnxModelFileTest, MainGraphInitializersAndConstantsAreServedAndTheirLocationsListedAsWritten) {
  const OnnxModelFile file = read("places/served.onnx", files_of(*dir_ / "places"));
  EXPECT_EQ(file.external_locations, (std::vector<std::string>{"./c.bin", "top.bin"}));
  ASSERT_EQ(file.initializers.size(), 1u);  // the main graph's own; the Constant is not one in the file
  EXPECT_EQ(file.initializers[0].external_location, "top.bin");
}

}  // namespace
}  // namespace nnx
