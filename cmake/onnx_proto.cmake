# ONNX model files are read with ONNX's own schema (src/onnx_file/): onnx.proto exactly as the onnx Python
# package ships it, never copied into the repository. Sets NNX_ONNX_PROTO_FILE to the first of
# (doc/install.md, "Building from source"):
#   1. -DNNX_ONNX_PROTO=<file>            2. the environment variable NNX_ONNX_PROTO
#   3. the checkout's .venv (bootstrap)   4. the onnx package of the interpreter doing the build
#      (Python_EXECUTABLE, which scikit-build-core gives; pyproject.toml's build requirements hold onnx)
# and none found is a FATAL_ERROR naming what works. protoc (Debian protobuf-compiler) compiles it into the
# build tree at build time, as onnx.pb.cc/.h in NNX_ONNX_PROTO_OUT; a schema declaring
# `optimize_for = LITE_RUNTIME` (onnx's does) is linked with libprotobuf-lite (NNX_PROTOBUF_LIBRARY), any
# other with libprotobuf.
find_package(Protobuf REQUIRED)
set(NNX_ONNX_PROTO "" CACHE FILEPATH "onnx.proto of the onnx Python package (empty: the search of cmake/onnx_proto.cmake)")
set(NNX_ONNX_PROTO_FILE "${NNX_ONNX_PROTO}")
if(NOT NNX_ONNX_PROTO_FILE AND DEFINED ENV{NNX_ONNX_PROTO})
  set(NNX_ONNX_PROTO_FILE "$ENV{NNX_ONNX_PROTO}")
endif()
if(NOT NNX_ONNX_PROTO_FILE)
  file(GLOB NNX_ONNX_PROTO_FILE "${CMAKE_SOURCE_DIR}/.venv/lib/python3*/site-packages/onnx/onnx.proto")
  if(NNX_ONNX_PROTO_FILE)
    list(SORT NNX_ONNX_PROTO_FILE)
    list(GET NNX_ONNX_PROTO_FILE -1 NNX_ONNX_PROTO_FILE)
  endif()
endif()
if(NOT NNX_ONNX_PROTO_FILE AND Python_EXECUTABLE)
  # The package's folder, found without importing onnx (and its numpy).
  execute_process(COMMAND "${Python_EXECUTABLE}" -c "import importlib.util, os; s = importlib.util.find_spec('onnx'); \
print(os.path.join(list(s.submodule_search_locations)[0], 'onnx.proto') if s else '')"
                  OUTPUT_VARIABLE NNX_ONNX_PROTO_FILE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT NNX_ONNX_PROTO_FILE OR NOT EXISTS "${NNX_ONNX_PROTO_FILE}")
  message(FATAL_ERROR "onnx.proto not found (-DNNX_ONNX_PROTO=\"${NNX_ONNX_PROTO}\", environment NNX_ONNX_PROTO="
                      "\"$ENV{NNX_ONNX_PROTO}\", .venv/lib/python3*/site-packages/onnx/onnx.proto, the onnx package "
                      "of Python_EXECUTABLE=\"${Python_EXECUTABLE}\"). What works: `pip install .` (its isolated "
                      "build installs onnx), `make bootstrap` (onnx in .venv), -DNNX_ONNX_PROTO=<file> or the "
                      "environment variable NNX_ONNX_PROTO naming an installed onnx package's onnx.proto, or "
                      "-DPython_EXECUTABLE=<a Python with onnx installed>")
endif()
get_filename_component(NNX_ONNX_PROTO_NAME "${NNX_ONNX_PROTO_FILE}" NAME)
if(NOT NNX_ONNX_PROTO_NAME STREQUAL "onnx.proto")
  message(FATAL_ERROR "NNX_ONNX_PROTO must name a file called onnx.proto, not ${NNX_ONNX_PROTO_NAME}")
endif()
get_filename_component(NNX_ONNX_PROTO_DIR "${NNX_ONNX_PROTO_FILE}" DIRECTORY)
set(NNX_ONNX_PROTO_OUT "${CMAKE_BINARY_DIR}/onnx_proto")
add_custom_command(
  OUTPUT "${NNX_ONNX_PROTO_OUT}/onnx.pb.cc" "${NNX_ONNX_PROTO_OUT}/onnx.pb.h"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${NNX_ONNX_PROTO_OUT}"
  COMMAND protobuf::protoc "--proto_path=${NNX_ONNX_PROTO_DIR}" "--cpp_out=${NNX_ONNX_PROTO_OUT}"
          "${NNX_ONNX_PROTO_FILE}"
  DEPENDS "${NNX_ONNX_PROTO_FILE}" protobuf::protoc
  COMMENT "protoc: C++ from ${NNX_ONNX_PROTO_FILE}" VERBATIM)
file(STRINGS "${NNX_ONNX_PROTO_FILE}" NNX_ONNX_PROTO_LITE
     REGEX "^[ \t]*option[ \t]+optimize_for[ \t]*=[ \t]*LITE_RUNTIME[ \t]*;")
if(NNX_ONNX_PROTO_LITE)
  set(NNX_PROTOBUF_LIBRARY protobuf::libprotobuf-lite)
else()
  set(NNX_PROTOBUF_LIBRARY protobuf::libprotobuf)
endif()
message(STATUS "onnx.proto: ${NNX_ONNX_PROTO_FILE} (linked with ${NNX_PROTOBUF_LIBRARY})")
# Generated code: its own warnings are not ours.
set_source_files_properties("${NNX_ONNX_PROTO_OUT}/onnx.pb.cc" PROPERTIES COMPILE_OPTIONS "-w")
