//===- NNDialect.h - nn dialect ---------------------------------*- C++ -*-===//
//
// The nn dialect class and its attributes.
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_NNDIALECT_H
#define NN_IR_NNDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "nn/IR/NNEnums.h.inc"
#include "nn/IR/NNOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/IR/NNAttrs.h.inc"

namespace mlir::nn {
/// The names of the `nn.*` attributes NNBase.td declares (discardableAttrs):
/// what passes read and write on ops, function arguments and results, which
/// the dialect verifies. NNDialect::get<Name>AttrHelper() gives typed access
/// on ops.
struct NNAttr {
  static constexpr StringLiteral kName =
      NNDialect::NameAttrHelper::getNameStr();
  static constexpr StringLiteral kGrad =
      NNDialect::GradAttrHelper::getNameStr();
  static constexpr StringLiteral kRng = NNDialect::RngAttrHelper::getNameStr();
  static constexpr StringLiteral kDefault =
      NNDialect::DefaultAttrHelper::getNameStr();
  static constexpr StringLiteral kStartsAtZero =
      NNDialect::StartsAtZeroAttrHelper::getNameStr();
  static constexpr StringLiteral kState =
      NNDialect::StateAttrHelper::getNameStr();
  static constexpr StringLiteral kEmbedded =
      NNDialect::EmbeddedAttrHelper::getNameStr();
  static constexpr StringLiteral kContext =
      NNDialect::ContextAttrHelper::getNameStr();
  static constexpr StringLiteral kContextSlot =
      NNDialect::ContextSlotAttrHelper::getNameStr();
  static constexpr StringLiteral kContextSlots =
      NNDialect::ContextSlotsAttrHelper::getNameStr();
  static constexpr StringLiteral kContextBytes =
      NNDialect::ContextBytesAttrHelper::getNameStr();
  static constexpr StringLiteral kWorkspaceBytes =
      NNDialect::WorkspaceBytesAttrHelper::getNameStr();
};
} // namespace mlir::nn

#endif // NN_IR_NNDIALECT_H
