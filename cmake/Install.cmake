#===- Install.cmake - cmake --install: nn as a CMake and pkg-config package -===#
#
#   <prefix>/include/nn/...           the frontend's and runtime's public headers
#   <prefix>/lib/libnn.so             nn::nn: frontend and compiler (MLIR/LLVM
#                                     are linked as Debian's shared libraries)
#   <prefix>/lib/libnn_runtime.a      nn::runtime: load and run compiled models,
#   <prefix>/lib/libnn_kernels.a      with the kernels (no LLVM, no MLIR); the
#                                     compiler links the archive into every .so
#   <prefix>/lib/libnn_c.so           nn::c: the same with the C interface
#                                     (nn/Runtime/CApi.h), for C and Python
#   <prefix>/lib/python3/dist-packages/nn_runtime.py   the Python loader
#   <prefix>/bin/nn-compile, nn-opt, nn-run
#   <prefix>/lib/cmake/nn/            nnConfig.cmake (find_package(nn))
#   <prefix>/lib/pkgconfig/           nn.pc, nn-runtime.pc
#
# Libraries go to lib/ whatever GNUInstallDirs would say (lib64,
# lib/<multiarch>): the compiler looks for the kernels' archive in the lib/
# beside the bin/ or the libnn.so it runs from.
#
#===------------------------------------------------------------------------===#
include(CMakePackageConfigHelpers)

set(NN_INSTALL_CMAKEDIR lib/cmake/nn)

# libnn.so: the objects of the frontend, compiler and runtime libraries as
# one shared library, so that a program linking it finds the kernels'
# archive beside it.
set(NN_LIBRARY_PARTS nn_frontend NNCodegen NNTransforms NNIR nn_runtime
    nn_kernels nn_kernels_common nn_kernels_avx512)
add_library(nn SHARED)
foreach(part IN LISTS NN_LIBRARY_PARTS)
  target_sources(nn PRIVATE $<TARGET_OBJECTS:${part}>)
  add_dependencies(nn ${part})
endforeach()
target_link_libraries(nn
  PRIVATE MLIR LLVM absl::inlined_vector Threads::Threads ${CMAKE_DL_LIBS}
  PUBLIC absl::status absl::statusor absl::str_format absl::strings)
# The public headers are C++20; a program using them compiles as C++20.
target_compile_features(nn PUBLIC cxx_std_20)
target_compile_features(nn_runtime PUBLIC cxx_std_20)
target_include_directories(nn INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/frontend/include>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/runtime/include>
  $<INSTALL_INTERFACE:include>)
set_target_properties(nn PROPERTIES
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  # MLIR and LLVM live in the llvm-19 package's own lib/ folder.
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
add_library(nn::nn ALIAS nn)
# find_package(nn) names them nn::nn, nn::runtime and nn::kernels.
set_target_properties(nn_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(nn_kernels PROPERTIES EXPORT_NAME kernels)
set_target_properties(nn_c PROPERTIES EXPORT_NAME c)

# The tools find libMLIR.so and libLLVM.so there too once installed.
foreach(tool nn-compile nn-opt nn-run nn-translate)
  set_target_properties(${tool} PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endforeach()

install(TARGETS nn nn_runtime nn_kernels nn_c
  EXPORT nnTargets
  LIBRARY DESTINATION lib
  ARCHIVE DESTINATION lib
  INCLUDES DESTINATION include)
install(TARGETS nn-compile nn-opt nn-run nn-translate RUNTIME DESTINATION bin)
install(DIRECTORY frontend/include/nn runtime/include/nn
  DESTINATION include
  FILES_MATCHING PATTERN "*.h")
install(EXPORT nnTargets NAMESPACE nn:: DESTINATION ${NN_INSTALL_CMAKEDIR})
# The Python loader finds libnn_c.so two folders up from it.
install(FILES python/nn_runtime.py DESTINATION lib/python3/dist-packages)

configure_package_config_file(cmake/nnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nnConfig.cmake
  INSTALL_DESTINATION ${NN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nnConfig.cmake
              ${PROJECT_BINARY_DIR}/nnConfigVersion.cmake
  DESTINATION ${NN_INSTALL_CMAKEDIR})

# pkg-config: ${pcfiledir} keeps the files relocatable with the prefix.
foreach(pc nn nn-runtime)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION lib/pkgconfig)
endforeach()
