//===- NNDialect.h - nn dialect ---------------------------------*- C++ -*-===//
//
// The nn dialect class and its attributes.
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_NNDIALECT_H
#define NN_IR_NNDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "nn/IR/NNOpsDialect.h.inc"
#include "nn/IR/NNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/IR/NNAttrs.h.inc"

#endif // NN_IR_NNDIALECT_H
