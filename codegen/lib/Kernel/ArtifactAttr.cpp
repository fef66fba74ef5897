//===- ArtifactAttr.cpp - The artifact description as an attribute -------===//
//
// #nn_kernel.artifact<"json">: the typed ArtifactDescription the lowering
// carries from nn-describe-artifact to the artifact table, written in IR as
// the JSON text the artifact embeds (ArtifactABI.h) and read back with the
// runtime's parser.
//
//===----------------------------------------------------------------------===//

#include "nn/Kernel/KernelDialect.h"
#include "nn/Runtime/ArtifactDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::nn::kernel;

namespace nn {
llvm::hash_code hash_value(const ArtifactDescription &description) {
  // Equal descriptions hash equal; what tells two models apart most often
  // is enough to spread them (equality compares every field).
  llvm::hash_code hash =
      llvm::hash_combine(description.state.size(), description.inputs.size(),
                         description.outputs.size(), description.has_rng,
                         description.workspace_bytes);
  for (const std::vector<TensorInfo> *tensors :
       {&description.inputs, &description.outputs})
    for (const TensorInfo &tensor : *tensors)
      hash = llvm::hash_combine(hash, tensor.name);
  for (const StateInfo &state : description.state)
    hash = llvm::hash_combine(hash, state.name);
  return hash;
}
} // namespace nn

Attribute ArtifactAttr::parse(AsmParser &parser, Type) {
  std::string json;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&json) || parser.parseGreater())
    return {};
  absl::StatusOr<::nn::ArtifactDescription> description =
      ::nn::parse_artifact_description(json, "#nn_kernel.artifact");
  if (!description.ok()) {
    parser.emitError(loc) << std::string(description.status().message());
    return {};
  }
  return get(parser.getContext(), std::move(*description));
}

void ArtifactAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printString(::nn::to_json(getDescription()));
  printer << '>';
}

ArtifactAttr mlir::nn::kernel::getArtifact(ModuleOp module) {
  return module->getAttrOfType<ArtifactAttr>(kArtifactAttrName);
}

void mlir::nn::kernel::setArtifact(ModuleOp module,
                                   ::nn::ArtifactDescription description) {
  module->setAttr(kArtifactAttrName, ArtifactAttr::get(module.getContext(),
                                                       std::move(description)));
}

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != kArtifactAttrName)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is not an attribute of the nn_kernel dialect";
  if (!llvm::isa<ModuleOp>(op) || !llvm::isa<ArtifactAttr>(attr.getValue()))
    return op->emitError() << "'" << kArtifactAttrName
                           << "' is a module's #nn_kernel.artifact<...>";
  return success();
}
