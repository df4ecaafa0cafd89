# The checkout build's test programs (not configured in a wheel's build): the test tools the end-to-end tests
# drive (tests/tools/), the ONNX Runtime stand-ins (tests/fakes/), the GoogleTest units (tests/unit/, GTest
# REQUIRED here) and, when Google Benchmark is found, the benchmarks (bench/). Included by CMakeLists.txt.
# Test tools: small programs over the core that the end-to-end tests drive (tests/tools/).
foreach(name nnx_draws nnx_json_roundtrip nnx_lifeline nnx_run_profile nnx_tensor_proto)
  add_executable(${name} tests/tools/${name}.cc)
  target_link_libraries(${name} PRIVATE nnx_core)
endforeach()

# The command line with the pausing fake behind its runtime seam (tests/fakes/pausing_runtime.h).
add_executable(nnx_conformance_pausing tests/tools/nnx_conformance_pausing.cc tests/fakes/pausing_runtime.cc)
target_include_directories(nnx_conformance_pausing PRIVATE tests)
target_link_libraries(nnx_conformance_pausing PRIVATE nnx_cli)

# Test spy: a stand-in ONNX Runtime that forwards to the real one and logs session creation.
add_library(nnx_ort_spy SHARED tests/fakes/ort_spy.cc)
target_include_directories(nnx_ort_spy SYSTEM PRIVATE "${NNX_ORT_INCLUDE}")
target_link_libraries(nnx_ort_spy PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(nnx_ort_spy PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")

# Test fake: a library that claims ONNX Runtime 1.15.1, older than the core supports (tests/fakes/old_runtime.cc).
add_library(nnx_old_runtime SHARED tests/fakes/old_runtime.cc)
target_include_directories(nnx_old_runtime SYSTEM PRIVATE "${NNX_ORT_INCLUDE}")
set_target_properties(nnx_old_runtime PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")

# Test fakes: ONNX Runtime stand-ins that crash at Run or hang at session creation (tests/fakes/faulty_runtime.cc).
foreach(fault crashing hanging)
  add_library(nnx_${fault}_runtime SHARED tests/fakes/faulty_runtime.cc)
  target_include_directories(nnx_${fault}_runtime SYSTEM PRIVATE "${NNX_ORT_INCLUDE}")
  target_link_libraries(nnx_${fault}_runtime PRIVATE ${CMAKE_DL_LIBS})
  set_target_properties(nnx_${fault}_runtime PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")
endforeach()
target_compile_definitions(nnx_crashing_runtime PRIVATE NNX_FAULT_CRASH_AT_RUN)
target_compile_definitions(nnx_hanging_runtime PRIVATE NNX_FAULT_HANG_AT_SESSION)

find_package(GTest REQUIRED)
enable_testing()
include(GoogleTest)
# GoogleTest units, one file per unit (tests/unit/).
set(NNX_UNIT_TEST_SOURCES
  tests/unit/artifacts_test.cc
  tests/unit/auto_workers_test.cc
  tests/unit/exit_codes_test.cc
  tests/unit/host_facts_test.cc
  tests/unit/kept_outputs_test.cc
  tests/unit/shard_balance_test.cc
  tests/unit/cell_settings_test.cc
  tests/unit/feedfwd_test.cc
  tests/unit/hostile_inputs_test.cc
  tests/unit/output_paths_test.cc
  tests/unit/json_python_test.cc
  tests/unit/json_strict_test.cc
  tests/unit/json_tape_test.cc
  tests/unit/json_view_test.cc
  tests/unit/runtime_log_test.cc
  tests/unit/dont_care_test.cc
  tests/unit/terminal_text_test.cc
  tests/unit/load_stage_test.cc
  tests/unit/child_process_test.cc
  tests/unit/file_bytes_test.cc
  tests/unit/sha256_behind_test.cc
  tests/unit/ssh_signature_test.cc
  tests/unit/front_end_test.cc
  tests/unit/default_reference_test.cc
  tests/unit/help_text_test.cc
  tests/unit/check_flags_test.cc
  tests/unit/matrix_test.cc
  tests/unit/module_record_test.cc
  tests/unit/precision_record_test.cc
  tests/unit/module_spec_rules_test.cc
  tests/unit/frozen_sizes_test.cc
  tests/unit/onnx_model_file_test.cc
  tests/unit/onnx_value_info_test.cc
  tests/unit/parity_failure_order_test.cc
  tests/unit/parity_stage_test.cc
  tests/unit/module_parity_test.cc
  tests/unit/export_answer_test.cc
  tests/unit/profile_test.cc
  tests/unit/python_names_test.cc
  tests/unit/profile_spelling_test.cc
  tests/unit/record_test.cc
  tests/unit/report_comparison_test.cc
  tests/unit/report_render_test.cc
  tests/unit/stage_loop_test.cc
  tests/unit/tensor_proto_test.cc
  tests/unit/exact_compare_test.cc
  tests/unit/dtype_tolerance_test.cc
  tests/unit/tolerance_compare_test.cc
  tests/unit/torch_random_test.cc
  tests/unit/triangulation_test.cc
  tests/unit/tensor_frames_test.cc
  tests/unit/worker_channel_test.cc
  tests/unit/validate_record_cases_test.cc
  tests/unit/validate_record_settings_test.cc
  tests/unit/built_in_model_record_test.cc
  tests/unit/validate_record_test.cc
  tests/unit/worker_answer_test.cc
  tests/unit/worker_command_test.cc
  tests/unit/worker_process_test.cc
)
# What the units share (tests/support/): the builders of engine-written records (v1's, a module record's), what
# the validator's units expect of one,
# the file helpers; and the fakes behind the runtime and reference-model seams that the stage units drive (tests/fakes/).
add_library(nnx_test_support STATIC tests/support/engine_record.cc tests/support/files.cc tests/support/module_record.cc
            tests/support/onnx_bytes.cc tests/support/record_expectations.cc
            tests/fakes/fake_runtime.cc tests/fakes/tiny_model.cc)
target_include_directories(nnx_test_support PUBLIC tests)
target_link_libraries(nnx_test_support PUBLIC nnx_core GTest::gtest)
add_executable(nnx_tests ${NNX_UNIT_TEST_SOURCES})
target_link_libraries(nnx_tests PRIVATE nnx_test_support nnx_cli GTest::gtest_main GTest::gmock)
# The ONNX reader's units write their model files with onnx's own Python API (tests/unit/onnx_model_file_test.cc).
set(NNX_ONNX_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "Python with the onnx package, with which the reader's unit tests write real model files")
target_compile_definitions(nnx_tests PRIVATE NNX_BINARY_DIR="${CMAKE_BINARY_DIR}" NNX_ONNX_PYTHON="${NNX_ONNX_PYTHON}")
gtest_discover_tests(nnx_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

find_package(benchmark QUIET)
if(benchmark_FOUND)
  foreach(name core_bench forward_bench)
    add_executable(${name} bench/${name}.cc)
    target_link_libraries(${name} PRIVATE nnx_core benchmark::benchmark)
  endforeach()
endif()
