//===- KernelABITest.cpp - Kernels.h against KernelABI.def ----------------===//
//
// The compiler declares the kernels and lays out their structs from
// nn/Runtime/KernelABI.def; the kernels are compiled from
// nn/Runtime/Kernels.h. These tests hold the two to one ABI: every
// function's C type, every struct field's type and offset (as the compiler
// lays the struct out for x86-64) and every constant, and no function of
// Kernels.h missing from the table.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/KernelABI.h"
#include "nn/Runtime/Kernels.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"

#include "gtest/gtest.h"

#include <cstddef>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

namespace {

namespace abi = mlir::nn::kernel_abi;
using abi::Kind;

/// The C type of each kind, as KernelABI.def's header comment spells it.
template <Kind> struct CType;
template <> struct CType<abi::Void> { using type = void; };
template <> struct CType<abi::I32> { using type = int32_t; };
template <> struct CType<abi::I64> { using type = int64_t; };
template <> struct CType<abi::F32> { using type = float; };
template <> struct CType<abi::FloatPtr> { using type = float *; };
template <> struct CType<abi::ConstFloatPtr> { using type = const float *; };
template <> struct CType<abi::ConstI64Ptr> { using type = const int64_t *; };
template <> struct CType<abi::VoidPtr> { using type = void *; };
template <> struct CType<abi::SlotsPtr> { using type = void **; };
template <> struct CType<abi::EpiloguePtr> {
  using type = const nn_rt_epilogue *;
};
template <> struct CType<abi::MatrixPtr> { using type = const nn_rt_matrix *; };
template <> struct CType<abi::RangeFn> { using type = nn_rt_range_fn; };
template <> struct CType<abi::UnrankedMemRefPtr> {
  using type = nn_rt_unranked_memref *;
};
template <> struct CType<abi::Addend> { using type = nn_rt_addend; };

template <Kind Result, Kind... Arguments>
using CFunction =
    typename CType<Result>::type(typename CType<Arguments>::type...);

template <Kind K, int64_t Count>
using CField = std::conditional_t<Count == 0, typename CType<K>::type,
                                  typename CType<K>::type[Count ? Count : 1]>;

TEST(KernelABITest, EveryFunctionIsDeclaredAsTheTableSays) {
  using namespace abi;
#define NN_RT_FUNCTION(name, result, ...)                                      \
  EXPECT_TRUE(                                                                 \
      (std::is_same_v<decltype(::name), CFunction<result, __VA_ARGS__>>))      \
      << #name " in nn/Runtime/Kernels.h differs from KernelABI.def";
#include "nn/Runtime/KernelABI.def"
}

TEST(KernelABITest, EveryConstantIsTheTables) {
#define NN_RT_CONSTANT(name, cname, value)                                     \
  EXPECT_EQ(cname, value) << #cname;                                           \
  EXPECT_EQ(abi::k##name, cname) << #cname;
#include "nn/Runtime/KernelABI.def"
}

/// The x86-64 System V data layout (the only target the kernels build for).
constexpr const char *kX86_64Layout =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:"
    "64-S128";

TEST(KernelABITest, EveryStructIsLaidOutAsTheCompilerLaysItOut) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::LLVM::LLVMDialect>();
  llvm::LLVMContext llvmContext;
  mlir::LLVM::TypeToLLVMIRTranslator translator(llvmContext);
  llvm::DataLayout layout(kX86_64Layout);
  auto structLayout = [&](const char *name) {
    auto *type = llvm::cast<llvm::StructType>(
        translator.translateType(abi::structType(&context, name)));
    return layout.getStructLayout(type);
  };
  using namespace abi;
#define NN_RT_FIELD(s, field, kind, count)                                     \
  EXPECT_TRUE((std::is_same_v<decltype(s::field), CField<kind, count>>))       \
      << #s "." #field " in nn/Runtime/Kernels.h differs from KernelABI.def";  \
  EXPECT_EQ(offsetof(s, field),                                                \
            structLayout(#s)->getElementOffset(                                \
                static_cast<unsigned>(fieldIndex(#s, #field))))                \
      << #s "." #field;
#include "nn/Runtime/KernelABI.def"
  EXPECT_EQ(sizeof(nn_rt_epilogue),
            structLayout("nn_rt_epilogue")->getSizeInBytes());
  EXPECT_EQ(sizeof(nn_rt_addend),
            structLayout("nn_rt_addend")->getSizeInBytes());
  EXPECT_EQ(sizeof(nn_rt_matrix),
            structLayout("nn_rt_matrix")->getSizeInBytes());
}

/// Functions of Kernels.h that compiled code never calls: the runtime
/// reaches them by dlsym in a loaded artifact.
const std::set<std::string> kCalledByTheRuntimeOnly = {
    "nn_rt_set_num_threads", "nn_rt_get_num_threads",
    "nn_rt_release_cached_memory", "nn_rt_workspace_allocations"};

TEST(KernelABITest, EveryFunctionOfTheHeaderIsInTheTable) {
  std::ifstream file(NN_KERNELS_HEADER);
  ASSERT_TRUE(file) << NN_KERNELS_HEADER;
  std::stringstream text;
  text << file.rdbuf();
  std::string header = text.str();
  std::set<std::string> table;
  for (abi::Function function : abi::functions())
    table.insert(abi::name(function).str());
  std::regex exported(R"(NN_RT_EXPORT\s+[\w\s\*]*?\b(\w+)\s*\()");
  int declared = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), exported), end;
       it != end; ++it, ++declared) {
    std::string name = (*it)[1];
    if (name.rfind("__", 0) == 0) { // NN_RT_EXPORT's own definition
      --declared;
      continue;
    }
    EXPECT_TRUE(table.count(name) || kCalledByTheRuntimeOnly.count(name))
        << name << " is declared in Kernels.h but not in KernelABI.def";
  }
  EXPECT_EQ(declared,
            static_cast<int>(table.size() + kCalledByTheRuntimeOnly.size()));
}

template <typename T> std::string print(const T &value) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  value.print(os);
  return printed;
}

TEST(KernelABITest, TheCompilersTypesAreTheTables) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::LLVM::LLVMDialect>();
  EXPECT_EQ(
      print(abi::functionType(&context, abi::Function::nn_rt_parallel_for)),
      "(i64, (!llvm.ptr, i64, i64) -> (), !llvm.ptr) -> ()");
  EXPECT_EQ(print(abi::structType(&context, "nn_rt_epilogue")),
            "!llvm.struct<(array<2 x struct<(ptr, i64, i64, i64)>>, i32, f32, "
            "f32, f32)>");
  llvm::LLVMContext llvmContext;
  EXPECT_EQ(print(*abi::functionType(llvmContext,
                                     abi::Function::nn_rt_context_buffer)),
            "ptr (ptr, i64, i64)");
}

} // namespace
