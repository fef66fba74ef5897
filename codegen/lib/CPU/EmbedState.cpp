//===- EmbedState.cpp - Tensor values into the compiled artifact ----------===//
//
// Converts runtime tensors to the `value` attributes of state declarations;
// translateToArtifactIR (ArtifactTable.cpp) turns those into constant globals.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/EmbedState.h"
#include "nn/Conversion/CPU/Compiler.h"
#include "nn/IR/NNOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::nn;

DenseElementsAttr mlir::nn::denseAttrOf(const ::nn::Tensor &tensor,
                                        RankedTensorType type) {
  if (tensor.dtype() == ::nn::DType::boolean) {
    // The attribute packs bools as bits; the tensor holds a byte each.
    const auto *bytes = static_cast<const uint8_t *>(tensor.raw_data());
    SmallVector<bool> bits(bytes, bytes + tensor.numel());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  size_t size =
      static_cast<size_t>(tensor.numel()) * ::nn::dtype_size(tensor.dtype());
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(static_cast<const char *>(tensor.raw_data()), size));
}

/// "2x3 F32": a declared type as the messages name tensors.
static std::string describe(ArrayRef<int64_t> shape, StringRef dtype) {
  return (llvm::join(llvm::map_range(
                         shape, [](int64_t d) { return std::to_string(d); }),
                     "x") +
          " " + dtype)
      .str();
}

LogicalResult mlir::nn::embedState(ModuleOp module,
                                   const ::nn::StateDict &state) {
  llvm::DenseSet<StringAttr> written = writtenState(module);
  SmallVector<std::string> missing, mismatched, writes;
  SmallVector<std::pair<Operation *, DenseElementsAttr>> values;
  for (Operation &op : module.getBody()->getOperations()) {
    if (!llvm::isa<ParameterOp, BufferOp>(op))
      continue;
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    auto type = llvm::cast<RankedTensorType>(
        op.getAttrOfType<TypeAttr>("type").getValue());
    if (written.contains(name)) {
      writes.push_back(name.str());
      continue;
    }
    const ::nn::Tensor *tensor = state.find(name.getValue());
    if (auto aliases = op.getAttrOfType<ArrayAttr>("aliases"))
      for (auto alias : aliases.getAsValueRange<StringAttr>())
        if (!tensor)
          tensor = state.find(alias);
    if (!tensor || !tensor->defined() || tensor->is_symbolic()) {
      missing.push_back(name.str());
      continue;
    }
    StringRef dtype = safetensorsDTypeName(type.getElementType());
    StringRef given(::nn::dtype_safetensors_name(tensor->dtype()));
    if (ArrayRef<int64_t>(tensor->shape()) != type.getShape() ||
        dtype != given) {
      mismatched.push_back("'" + name.str() + "': expected " +
                           describe(type.getShape(), dtype) + ", got " +
                           describe(tensor->shape(), given));
      continue;
    }
    values.emplace_back(&op, denseAttrOf(*tensor, type));
  }
  if (!missing.empty() || !mismatched.empty() || !writes.empty()) {
    InFlightDiagnostic error = module.emitError("cannot embed the weights");
    if (!missing.empty())
      error << "; missing: " << llvm::join(missing, ", ");
    if (!mismatched.empty())
      error << "; " << llvm::join(mismatched, "; ");
    if (!writes.empty())
      error << "; forward writes " << llvm::join(writes, ", ")
            << " (training mode), which must stay bound";
    return error;
  }
  for (auto [op, value] : values)
    op->setAttr("value", value);
  return success();
}

namespace {
struct EmbedStatePass
    : public PassWrapper<EmbedStatePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmbedStatePass)

  explicit EmbedStatePass(const ::nn::StateDict &state) : state(state) {}
  StringRef getName() const final { return "EmbedStatePass"; }
  StringRef getArgument() const final { return "nn-embed-state"; }
  StringRef getDescription() const final {
    return "Give every state declaration its value from a state_dict";
  }
  void runOnOperation() final {
    if (failed(embedState(getOperation(), state)))
      signalPassFailure();
  }

  const ::nn::StateDict &state;
};
} // namespace

std::unique_ptr<Pass>
mlir::nn::createEmbedStatePass(const ::nn::StateDict &state) {
  return std::make_unique<EmbedStatePass>(state);
}
