# `cmake --install <build> --prefix <prefix>` (doc/cpp-api.md, "Using the core from C++"): bin/nnx-conformance,
# lib/libnnx_conformance.a and lib/libnnx_core.a, include/nnx/conformance.h, and
# lib/cmake/nnx_conformance/ so that find_package(nnx_conformance) gives nnx::conformance. The core's own
# dependencies (OpenSSL's libcrypto, nlohmann-json, protobuf-lite, threads, libdl) are found again by the
# package config; ONNX Runtime and OpenBLAS are opened at run time and need nothing at link time.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(NNX_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/nnx_conformance")
install(TARGETS nnx-conformance RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT core)
install(TARGETS nnx_conformance nnx_core EXPORT nnx_conformanceTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT core)
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/nnx" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT core)
install(EXPORT nnx_conformanceTargets NAMESPACE nnx:: DESTINATION "${NNX_PACKAGE_DIR}" COMPONENT core)
configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/nnx_conformanceConfig.cmake.in"
                              "${CMAKE_BINARY_DIR}/nnx_conformanceConfig.cmake" INSTALL_DESTINATION "${NNX_PACKAGE_DIR}")
write_basic_package_version_file("${CMAKE_BINARY_DIR}/nnx_conformanceConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/nnx_conformanceConfig.cmake" "${CMAKE_BINARY_DIR}/nnx_conformanceConfigVersion.cmake"
        DESTINATION "${NNX_PACKAGE_DIR}" COMPONENT core)
