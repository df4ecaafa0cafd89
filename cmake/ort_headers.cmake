# ONNX Runtime's C/C++ headers (the library itself is opened at run time with dlopen): sets NNX_ORT_INCLUDE to
# the first of these folders that holds onnxruntime_c_api.h (doc/install.md, "Building from source"):
#   1. NNX_ORT_INCLUDE_DIR, when given (-DNNX_ORT_INCLUDE_DIR=...; a folder without the header is an error)
#   2. ${NNX_ORT_DIR}/include: the checkout's .deps/onnxruntime/include, made by scripts/bootstrap.sh
#   3. $NNX_CACHE/onnxruntime-headers/include (NNX_CACHE from the environment, default
#      ~/.cache/nnx-conformance): what scripts/build_requirements.sh extracts
#   4. /usr/include/onnxruntime: a system's libonnxruntime-dev
# None found is a FATAL_ERROR naming scripts/build_requirements.sh.
set(NNX_ORT_INCLUDE_DIR "" CACHE PATH "ONNX Runtime C/C++ headers (empty: the search of cmake/ort_headers.cmake)")
if(NNX_ORT_INCLUDE_DIR)
  if(NOT EXISTS "${NNX_ORT_INCLUDE_DIR}/onnxruntime_c_api.h")
    message(FATAL_ERROR "NNX_ORT_INCLUDE_DIR=${NNX_ORT_INCLUDE_DIR} holds no onnxruntime_c_api.h")
  endif()
  set(NNX_ORT_INCLUDE "${NNX_ORT_INCLUDE_DIR}")
else()
  if(DEFINED ENV{NNX_CACHE} AND NOT "$ENV{NNX_CACHE}" STREQUAL "")
    set(NNX_ORT_USER_CACHE "$ENV{NNX_CACHE}")
  else()
    set(NNX_ORT_USER_CACHE "$ENV{HOME}/.cache/nnx-conformance")
  endif()
  set(NNX_ORT_CANDIDATES "${NNX_ORT_DIR}/include" "${NNX_ORT_USER_CACHE}/onnxruntime-headers/include"
                         "/usr/include/onnxruntime")
  set(NNX_ORT_INCLUDE "")
  foreach(candidate IN LISTS NNX_ORT_CANDIDATES)
    if(NOT NNX_ORT_INCLUDE AND EXISTS "${candidate}/onnxruntime_c_api.h")
      set(NNX_ORT_INCLUDE "${candidate}")
    endif()
  endforeach()
  if(NOT NNX_ORT_INCLUDE)
    list(JOIN NNX_ORT_CANDIDATES ", " NNX_ORT_SEARCHED)
    message(FATAL_ERROR "ONNX Runtime headers (onnxruntime_c_api.h) not found in ${NNX_ORT_SEARCHED}: run "
                        "scripts/build_requirements.sh (it extracts them into the cache), or give "
                        "-DNNX_ORT_INCLUDE_DIR=<folder>")
  endif()
endif()
message(STATUS "ONNX Runtime headers: ${NNX_ORT_INCLUDE}")
