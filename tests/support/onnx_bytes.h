// Test support (tests only): the bytes of a minimal model.onnx, written by hand in protobuf's wire format
// (onnx.proto's ModelProto: ir_version 8, opset ai.onnx 17, a graph holding `initializers` as FLOAT tensors
// with raw little-endian data and no node), so that the load stage's reader (onnx_file/onnx_model_file.h)
// and weights check (stages/weights_check.h) can run on a model file without the onnx Python package.
#pragma once

#include <string>
#include <vector>

#include "model/reference_model.h"

namespace nnx::test_support {

std::string onnx_model_bytes(const std::vector<Parameter>& initializers);
// The same model holding one float initializer whose data is external at `location`, as written (any bytes).
std::string onnx_model_external_bytes(const std::string& location);

}  // namespace nnx::test_support
