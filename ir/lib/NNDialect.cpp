//===- NNDialect.cpp - nn dialect registration ----------------------------===//
//
// Registers the nn dialect's operations and attributes.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNDialect.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nn;

#include "nn/IR/NNOpsDialect.cpp.inc"
#include "nn/IR/NNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/IR/NNAttrs.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nn/IR/NNOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nn/IR/NNAttrs.cpp.inc"
      >();
}
