//===- NNDialect.cpp - nn dialect registration ----------------------------===//
//
// Registers the nn dialect's operations and attributes, and verifies the
// `nn.*` attributes passes exchange on ops, arguments and results.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNDialect.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nn;

#include "nn/IR/NNEnums.cpp.inc"
#include "nn/IR/NNOpsDialect.cpp.inc"

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

//===----------------------------------------------------------------------===//
// The declared `nn.*` attributes (discardableAttrs in NNBase.td)
//===----------------------------------------------------------------------===//

namespace {

/// Where a declared attribute may appear.
enum Place : unsigned { onOp = 1, onArgument = 2, onResult = 4 };

/// One declared attribute: its name, where it may appear and what it holds.
struct DeclaredAttr {
  StringLiteral name;
  unsigned places;
  bool (*accepts)(Attribute);
  StringLiteral kind;
};

template <typename T> bool isAttr(Attribute attr) { return llvm::isa<T>(attr); }

const DeclaredAttr kDeclared[] = {
    // On a result, and on the out-parameter bufferization makes of it.
    {NNAttr::kName, onArgument | onResult, isAttr<StringAttr>, "a string"},
    // On an argument once bufferization made the result an out-parameter.
    {NNAttr::kGrad, onArgument | onResult, isAttr<StringAttr>, "a string"},
    {NNAttr::kRng, onArgument, isAttr<IntegerAttr>, "an integer"},
    {NNAttr::kDefault, onArgument, isAttr<FloatAttr>, "a float"},
    {NNAttr::kStartsAtZero, onOp, isAttr<UnitAttr>, "a unit attribute"},
    {NNAttr::kState, onArgument, isAttr<StringAttr>, "a string"},
    {NNAttr::kEmbedded, onArgument, isAttr<ElementsAttr>,
     "an elements attribute"},
    {NNAttr::kContext, onArgument, isAttr<UnitAttr>, "a unit attribute"},
    {NNAttr::kContextSlot, onArgument, isAttr<IntegerAttr>, "an integer"},
    {NNAttr::kContextSlots, onOp, isAttr<IntegerAttr>, "an integer"},
    {NNAttr::kContextBytes, onOp, isAttr<DenseI64ArrayAttr>, "an array<i64>"},
    {NNAttr::kWorkspaceBytes, onOp, isAttr<IntegerAttr>, "an integer"},
};

/// Checks `attr`, found at `place` of `op` (`where` names it), against its
/// declaration.
LogicalResult verifyDeclared(Operation *op, NamedAttribute attr, Place place,
                             const Twine &where) {
  for (const DeclaredAttr &declared : kDeclared) {
    if (attr.getName() != declared.name)
      continue;
    if (!(declared.places & place))
      return op->emitError()
             << "'" << declared.name << "' is not an attribute of " << where;
    if (!declared.accepts(attr.getValue()))
      return op->emitError()
             << "'" << declared.name << "' of " << where << " must be "
             << declared.kind << ", not " << attr.getValue();
    return success();
  }
  return op->emitError() << "'" << attr.getName().getValue()
                         << "' is not an attribute the nn dialect declares";
}

} // namespace

LogicalResult NNDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  return verifyDeclared(op, attr, onOp, "an op");
}

LogicalResult NNDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned index,
                                                  NamedAttribute attr) {
  return verifyDeclared(op, attr, onArgument, "argument #" + Twine(index));
}

LogicalResult NNDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned index,
                                                     NamedAttribute attr) {
  return verifyDeclared(op, attr, onResult, "result #" + Twine(index));
}
