//===- LegalizeMathToF32.cpp - f16/bf16 math computed in f32 --------------===//
//
// Implements nn-legalize-math-to-f32: upstream's math-legalize-to-f32
// patterns and target, with a type converter that widens only the floats
// narrower than f32 (LLVM 19's widens f64 too, into an invalid extf). See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "nn-legalize-math-to-f32"

namespace mlir::nn {
#define GEN_PASS_DEF_LEGALIZEMATHTOF32PASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

struct LegalizeMathToF32Pass
    : public mlir::nn::impl::LegalizeMathToF32PassBase<LegalizeMathToF32Pass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([context](FloatType type) -> Type {
      return type.getWidth() < 32 ? Float32Type::get(context) : type;
    });
    converter.addConversion([&converter](VectorType type) -> Type {
      return type.clone(converter.convertType(type.getElementType()));
    });
    // Values cross between the widths by extf (into f32) and truncf (back).
    converter.addTargetMaterialization(
        [](OpBuilder &b, Type type, ValueRange inputs,
           Location loc) -> std::optional<Value> {
          return b.create<arith::ExtFOp>(loc, type, inputs.front()).getResult();
        });
    converter.addSourceMaterialization([](OpBuilder &b, Type type,
                                          ValueRange inputs, Location loc)
                                           -> std::optional<Value> {
      return b.create<arith::TruncFOp>(loc, type, inputs.front()).getResult();
    });
    ConversionTarget target(*context);
    math::populateLegalizeToF32ConversionTarget(target, converter);
    RewritePatternSet patterns(context);
    math::populateLegalizeToF32Patterns(patterns, converter);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
