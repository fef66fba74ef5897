//===- ScalarBodyInterface.td - Pointwise ops' scalar bodies -*- tablegen -*-===//
//
// How codegen evaluates one element of a pointwise nn op. Declared here and
// attached to the ops as external models by codegen (ScalarBodyInterface.h),
// so the dialect itself builds no arith or math.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_SCALARBODYINTERFACE_TD
#define NN_CONVERSION_SCALARBODYINTERFACE_TD

include "mlir/IR/OpBase.td"

def ScalarBodyOpInterface : OpInterface<"ScalarBodyOpInterface"> {
  let description = [{
    A pointwise (NN_Pointwise) op's scalar expression: what one result
    element is, given one element of each operand. It is the body of the
    op's own linalg.generic and of every nn.fused epilogue the op is part
    of. Every NN_Pointwise op implements it (ConversionTests checks);
    lowering an op that does not is a located error, not a crash.
  }];
  let cppNamespace = "::mlir::nn";
  let methods = [
    InterfaceMethod<[{
        Builds the result element from `scalars`, one element of each
        operand in operand order, already in the op's compute type (f32
        for f16/bf16 tensors): the caller widens and rounds.
      }],
      "::mlir::Value", "buildScalar",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$scalars)>,
  ];
}

#endif // NN_CONVERSION_SCALARBODYINTERFACE_TD
