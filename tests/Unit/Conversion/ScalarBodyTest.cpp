//===- ScalarBodyTest.cpp - Pointwise ops' scalar bodies ------------------===//
//
// Every NN_Pointwise op of the dialect has a ScalarBodyOpInterface (a new
// pointwise op without one fails here, not in a user's compile), and an op
// without one is a located error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/Conversion/ScalarBodyInterface.h"
#include "nn/IR/NNDialect.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

namespace {

TEST(ScalarBodyTest, EveryPointwiseOpHasOne) {
  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<mlir::nn::NNDialect>();
  int pointwise = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "nn" ||
        !name.hasTrait<mlir::OpTrait::nn::Pointwise>())
      continue;
    ++pointwise;
    EXPECT_TRUE(name.hasInterface<mlir::nn::ScalarBodyOpInterface>())
        << name.getStringRef().str() << " has no scalar body";
  }
  // The loop saw the pointwise ops (arithmetic, math, relu, activations).
  EXPECT_GE(pointwise, 20);
}

TEST(ScalarBodyTest, AnOpWithoutOneIsALocatedError) {
  // A context the bodies were never registered in.
  mlir::MLIRContext context;
  context.loadDialect<mlir::nn::NNDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %y = nn.relu %x : tensor<4xf32> loc(\"model.py\":7:3)\n"
      "  return %y : tensor<4xf32>\n"
      "}\n",
      &context);
  ASSERT_TRUE(module);
  mlir::Operation *relu = nullptr;
  module->walk([&](mlir::nn::ReluOp op) { relu = op; });
  ASSERT_NE(relu, nullptr);
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(message);
    os << d.getLocation() << ": " << d;
    return mlir::success();
  });
  EXPECT_FALSE(mlir::nn::scalarBodyOf(relu));
  EXPECT_NE(message.find("model.py\":7:3"), std::string::npos) << message;
  EXPECT_NE(message.find("'nn.relu' is pointwise but has no scalar body"),
            std::string::npos)
      << message;
}

} // namespace
