//===- ArtifactTable.cpp - The artifact description and table ------------===//
//
// describeArtifact reads the calling convention off an nn module (state in
// declaration order, then inputs, then outputs) as the runtime's
// ArtifactDescription; nn-describe-artifact attaches it to the module
// (#nn_kernel.artifact) before it is lowered. translateToArtifactIR
// completes it with what lowering decided and wraps the lowered `forward`
// in the C table: a packed-argument entry (`forward(ctx, args)`), context
// hooks and the description's JSON, reachable from the one exported symbol.
//
//===----------------------------------------------------------------------===//

#include "HostTarget.h"
#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CPU/KernelABI.h"
#include "nn/Conversion/Passes.h"
#include "nn/IR/NNOps.h"
#include "nn/Runtime/ArtifactDescription.h"
#include "nn/Runtime/CpuFeatures.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/MC/MCSubtargetInfo.h"

namespace mlir::nn {
#define GEN_PASS_DEF_DESCRIBEARTIFACTPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

StringRef mlir::nn::safetensorsDTypeName(Type type) {
  if (type.isF32())
    return "F32";
  if (type.isF64())
    return "F64";
  if (type.isF16())
    return "F16";
  if (type.isBF16())
    return "BF16";
  if (type.isInteger(1))
    return "BOOL";
  if (type.isSignlessInteger(64) || type.isSignedInteger(64))
    return "I64";
  if (type.isSignlessInteger(32) || type.isSignedInteger(32))
    return "I32";
  if (type.isSignlessInteger(8) || type.isSignedInteger(8))
    return "I8";
  if (type.isUnsignedInteger(8))
    return "U8";
  return "";
}

/// The name, shape and dtype of a tensor crossing the boundary.
static FailureOr<::nn::TensorInfo> describeTensor(Location loc, StringRef name,
                                                  Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << "'" << name
                          << "' must be a statically shaped tensor, got "
                          << type;
  std::optional<::nn::DType> dtype = ::nn::dtype_from_safetensors_name(
      safetensorsDTypeName(tensor.getElementType()));
  if (!dtype)
    return emitError(loc) << "'" << name << "' has element type "
                          << tensor.getElementType()
                          << ", which compiled artifacts do not support";
  ::nn::TensorInfo info;
  info.name = name.str();
  info.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  info.dtype = *dtype;
  return info;
}

/// The boundary name of argument/result `index`: its `nn.name` attribute or
/// `<prefix>.<index>`.
static std::string boundaryName(DictionaryAttr attrs, StringRef prefix,
                                unsigned index) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(NNAttr::kName))
      return name.str();
  return (prefix + "." + Twine(index)).str();
}

/// The range [0, high) an op that indexes with a tensor puts on its values
/// (except `ignore`, nll_loss's ignore_index), and where the op came from.
struct IndexBound {
  StringRef op;
  int64_t high;
  std::optional<int64_t> ignore;
  Location loc;
};

/// The bounds the index-taking uses of `value` put on its elements: through
/// ops that keep every element (reshapes, permutes, expand, cat, stack; a
/// slice or split is not followed, since elements it drops are never read)
/// down to embedding, index_select, gather and nll_loss.
static void collectIndexBounds(Value value, SmallVectorImpl<IndexBound> &out) {
  auto dimSize = [](Value tensor, int64_t dim) {
    auto type = llvm::cast<RankedTensorType>(tensor.getType());
    int64_t rank = std::max<int64_t>(type.getRank(), 1);
    return type.getRank() == 0 ? 1
                               : type.getDimSize(dim < 0 ? dim + rank : dim);
  };
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    Location loc = user->getLoc();
    if (auto op = llvm::dyn_cast<EmbeddingOp>(user)) {
      if (use.get() == op.getIndices())
        out.push_back({"embedding", dimSize(op.getWeight(), 0), {}, loc});
    } else if (auto op = llvm::dyn_cast<IndexSelectOp>(user)) {
      if (use.get() == op.getIndex())
        out.push_back(
            {"index_select",
             dimSize(op.getInput(), static_cast<int64_t>(op.getDim())),
             {},
             loc});
    } else if (auto op = llvm::dyn_cast<GatherOp>(user)) {
      if (use.get() == op.getIndex())
        out.push_back(
            {"gather",
             dimSize(op.getInput(), static_cast<int64_t>(op.getDim())),
             {},
             loc});
    } else if (auto op = llvm::dyn_cast<NllLossOp>(user)) {
      auto inputType = llvm::cast<RankedTensorType>(op.getInput().getType());
      if (use.get() == op.getTarget())
        out.push_back({"nll_loss",
                       dimSize(op.getInput(), inputType.getRank() == 1 ? 0 : 1),
                       op.getIgnoreIndex(), loc});
    } else if (llvm::isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ExpandOp,
                         PermuteOp, TransposeOp, CatOp, StackOp>(user)) {
      collectIndexBounds(user->getResult(0), out);
    }
  }
}

/// The index checks of an input: one per op that indexes with its values,
/// so the runtime refuses an out-of-range index before the compiled code
/// reads out of bounds (PyTorch raises there too).
static std::vector<::nn::IndexCheck> describeIndexChecks(Value input) {
  SmallVector<IndexBound> bounds;
  collectIndexBounds(input, bounds);
  std::vector<::nn::IndexCheck> checks;
  for (const IndexBound &bound : bounds) {
    ::nn::IndexCheck check{bound.op.str(), "", bound.high, bound.ignore};
    if (auto name = llvm::dyn_cast<NameLoc>(bound.loc))
      check.where = name.getName().str();
    checks.push_back(std::move(check));
  }
  return checks;
}

/// Whether a statically shaped value of `type` holds more bytes than an
/// int64 counts (tensor<99999999999x99999999999xf32>).
static bool overflowsInt64(Type type) {
  auto shaped = llvm::dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return false;
  Type element = shaped.getElementType();
  int64_t bytes =
      element.isIntOrFloat()
          ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
          : 8;
  for (int64_t d : shaped.getShape())
    if (!ShapedType::isDynamic(d) && __builtin_mul_overflow(bytes, d, &bytes))
      return true;
  return false;
}

/// Refuses, at the op, any value or declared state whose size in bytes does
/// not fit an int64: tiling, buffer planning and the kernels' arguments
/// would compute it with overflow.
static LogicalResult verifySizes(ModuleOp module) {
  WalkResult walk = module.walk([](Operation *op) {
    auto refuse = [&](Type type) {
      op->emitError() << "a value of type " << type
                      << " holds more bytes than an int64 counts";
      return WalkResult::interrupt();
    };
    for (Type type : op->getResultTypes())
      if (overflowsInt64(type))
        return refuse(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (overflowsInt64(type))
            return refuse(type);
    for (NamedAttribute attr : op->getAttrs())
      if (auto type = llvm::dyn_cast<TypeAttr>(attr.getValue());
          type && overflowsInt64(type.getValue()))
        return refuse(type.getValue());
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<::nn::ArtifactDescription>
mlir::nn::describeArtifact(ModuleOp module, StringRef funcName) {
  if (failed(verifySizes(module)))
    return failure();
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  if (!func || func.isDeclaration())
    return module.emitError() << "no function '" << funcName << "' to compile";

  ::nn::ArtifactDescription description;
  llvm::DenseSet<StringAttr> written = writtenState(module);
  for (Operation &op : module.getBody()->getOperations()) {
    FailureOr<::nn::TensorInfo> tensor = failure();
    ::nn::StateInfo entry;
    if (auto param = llvm::dyn_cast<ParameterOp>(op)) {
      tensor = describeTensor(op.getLoc(), param.getSymName(), param.getType());
      entry.requires_grad = !param.getFrozen();
    } else if (auto buffer = llvm::dyn_cast<BufferOp>(op)) {
      tensor =
          describeTensor(op.getLoc(), buffer.getSymName(), buffer.getType());
      entry.is_buffer = true;
      entry.persistent = buffer.getPersistent();
      entry.requires_grad = false;
      // An optimizer's state before its first step.
      entry.starts_at_zero = buffer->hasAttr(NNAttr::kStartsAtZero);
    } else {
      continue;
    }
    if (failed(tensor))
      return failure();
    static_cast<::nn::TensorInfo &>(entry) = std::move(*tensor);
    // Every other state_dict name of the tensor (nn-tie-weights), and
    // whether it is passed to forward (unused state is not).
    if (auto names = op.getAttrOfType<ArrayAttr>("aliases"))
      for (auto alias : names.getAsValueRange<StringAttr>())
        entry.aliases.push_back(alias.str());
    entry.argument = isStateUsed(
        module, op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()));
    if (ElementsAttr value = embeddedValue(&op, written)) {
      if (!llvm::isa<DenseElementsAttr>(value))
        return op.emitOpError("embeds a value the artifact cannot hold: ")
               << "only dense<...> elements are embedded";
      entry.embedded = true;
    }
    description.state.push_back(std::move(entry));
  }

  FunctionType type = func.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    // The random generator state (nn.rng) is no user input: the runtime
    // supplies it, after the inputs, and advances it by `draws` per run.
    if (auto draws = func.getArgAttrOfType<IntegerAttr>(i, NNAttr::kRng)) {
      if (i + 1 != type.getNumInputs() || draws.getInt() < 0)
        return func.emitError() << "the nn.rng argument must be the last one "
                                   "and draw a count >= 0";
      auto entry = describeTensor(func.getLoc(), "rng", input);
      if (failed(entry))
        return failure();
      if (entry->shape != ::nn::Shape{2} || entry->dtype != ::nn::DType::i64)
        return func.emitError() << "the nn.rng argument must be a "
                                   "tensor<2xi64>, got "
                                << input;
      description.has_rng = true;
      description.rng_draws = static_cast<uint64_t>(draws.getInt());
      continue;
    }
    auto entry = describeTensor(
        func.getLoc(), boundaryName(func.getArgAttrDict(i), "input", i), input);
    if (failed(entry))
      return failure();
    entry->index_checks = describeIndexChecks(func.getArgument(i));
    // A hyper-parameter of a training step: the value it was traced with.
    if (auto value = func.getArgAttrOfType<FloatAttr>(i, NNAttr::kDefault))
      entry->default_value = value.getValueAsDouble();
    description.inputs.push_back(std::move(*entry));
  }
  for (auto [i, result] : llvm::enumerate(type.getResults())) {
    auto entry = describeTensor(
        func.getLoc(), boundaryName(func.getResultAttrDict(i), "output", i),
        result);
    if (failed(entry))
      return failure();
    description.outputs.push_back(std::move(*entry));
  }
  // What the runtime's reader would refuse (two inputs named alike) is an
  // error of the compile, not of the first load.
  if (absl::Status checked =
          ::nn::check_artifact_description(description, funcName.str());
      !checked.ok())
    return func.emitError() << std::string(checked.message());
  return description;
}

/// Where the artifact's C entry points find each argument of a lowered
/// entry point (read off its `nn.*` argument attributes before
/// translation drops them).
struct ArgSource {
  enum Kind {
    fromArray,   // the next pointer of the caller's array (args, state_args)
    fromContext, // the context itself (nn.context)
    fromSlot,    // the buffer in context slot `slot` (nn.context_slot)
  } kind = fromArray;
  int64_t slot = 0;
  /// For state from the array: the artifact's own copy (nn.embedded), read
  /// when the caller passes null.
  ElementsAttr embedded;
};

/// The context the entry points share: `slots` buffers, the first
/// `denseBytes.size()` of which @prepare returns (out-parameters after
/// bufferization, allocated by the C prepare with these sizes), the rest
/// allocated by @prepare itself (packed operands of CPU-dependent size).
struct ContextLayout {
  int64_t slots = 0;
  SmallVector<int64_t> denseBytes;
};

/// The sources of `func`'s arguments. In @prepare (`isPrepare`) the
/// arguments without a mark after the state are its results turned
/// out-parameters: dense slots 0, 1, ... in order.
static FailureOr<SmallVector<ArgSource>>
argumentSources(FunctionOpInterface func, bool isPrepare,
                const ContextLayout &layout) {
  SmallVector<ArgSource> sources;
  int64_t dense = 0;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    ArgSource source;
    if (func.getArgAttr(i, NNAttr::kContext)) {
      source.kind = ArgSource::fromContext;
    } else if (auto slot = func.getArgAttrOfType<IntegerAttr>(
                   i, NNAttr::kContextSlot)) {
      source = {ArgSource::fromSlot, slot.getInt()};
    } else if (isPrepare && !func.getArgAttr(i, NNAttr::kState)) {
      source = {ArgSource::fromSlot, dense++};
    } else if (auto value =
                   func.getArgAttrOfType<ElementsAttr>(i, NNAttr::kEmbedded)) {
      source.embedded = value;
    }
    if (source.kind == ArgSource::fromSlot &&
        (source.slot < 0 || source.slot >= layout.slots))
      return func.emitError() << "argument " << i << " reads context slot "
                              << source.slot << " of " << layout.slots;
    sources.push_back(source);
  }
  if (isPrepare && dense != static_cast<int64_t>(layout.denseBytes.size()))
    return func.emitError() << "@prepare writes " << dense
                            << " context slots, the module declares "
                            << layout.denseBytes.size();
  return sources;
}

/// The row-major bytes of `value` as the runtime lays a tensor out (bools
/// one byte each), in `storage` unless the attribute holds them as is.
static StringRef tensorBytesOf(ElementsAttr value, std::string &storage) {
  auto dense = llvm::cast<DenseElementsAttr>(value);
  Type element = dense.getElementType();
  if (element.isInteger(1)) {
    for (bool bit : dense.getValues<bool>())
      storage.push_back(bit ? 1 : 0);
    return storage;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return StringRef(raw.data(), raw.size());
  for (int64_t i = 0, n = dense.getNumElements(); i < n; ++i)
    storage.append(raw.data(), raw.size());
  return storage;
}

/// Adds the nn_artifact_v2 table around `impl` (the lowered forward, every
/// argument a bare pointer) and `prepareImpl` (the lowered @prepare, or
/// null: nothing to prepare), and the exported getter.
static void addArtifactTable(llvm::Module &m, llvm::Function *impl,
                             ArrayRef<ArgSource> forwardSources,
                             llvm::Function *prepareImpl,
                             ArrayRef<ArgSource> prepareSources,
                             const ContextLayout &layout,
                             StringRef description) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32Ty = b.getInt32Ty();
  auto internal = llvm::GlobalValue::InternalLinkage;
  auto runtime = [&](kernel_abi::Function function) {
    return m.getOrInsertFunction(kernel_abi::name(function),
                                 kernel_abi::functionType(ctx, function));
  };
  auto slotAddress = [&](llvm::Value *context, int64_t slot) {
    return b.CreateConstInBoundsGEP1_64(ptrTy, context, slot);
  };
  /// The constant global holding an embedded tensor, one per value.
  llvm::DenseMap<Attribute, llvm::GlobalVariable *> embeddedGlobals;
  auto embeddedGlobal = [&](ElementsAttr value) {
    llvm::GlobalVariable *&global = embeddedGlobals[value];
    if (!global) {
      std::string storage;
      StringRef bytes = tensorBytesOf(value, storage);
      auto *init =
          llvm::ConstantDataArray::getRaw(bytes, bytes.size(), b.getInt8Ty());
      global = new llvm::GlobalVariable(m, init->getType(), true, internal,
                                        init, "nn_embedded");
      global->setAlignment(llvm::Align(64));
    }
    return global;
  };
  /// The call of `callee` with arguments from `sources`: the next pointer
  /// of `array` (or, where it is null, the embedded copy), the context, or
  /// a slot's buffer.
  auto callWith = [&](llvm::Function *callee, ArrayRef<ArgSource> sources,
                      llvm::Value *context, llvm::Value *array) {
    SmallVector<llvm::Value *> callArgs;
    int64_t next = 0;
    for (const ArgSource &source : sources) {
      if (source.kind == ArgSource::fromContext) {
        callArgs.push_back(context);
      } else if (source.kind == ArgSource::fromSlot) {
        callArgs.push_back(
            b.CreateLoad(ptrTy, slotAddress(context, source.slot)));
      } else {
        llvm::Value *given = b.CreateLoad(
            ptrTy, b.CreateConstInBoundsGEP1_64(ptrTy, array, next++));
        if (source.embedded)
          given = b.CreateSelect(b.CreateIsNull(given),
                                 embeddedGlobal(source.embedded), given);
        callArgs.push_back(given);
      }
    }
    b.CreateCall(callee, callArgs);
  };

  // int32_t forward(void *ctx, void *const *args)
  auto *forward = llvm::Function::Create(
      llvm::FunctionType::get(i32Ty, {ptrTy, ptrTy}, false), internal,
      "nn_forward", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", forward));
  callWith(impl, forwardSources, forward->getArg(0), forward->getArg(1));
  b.CreateRet(b.getInt32(0));

  // int32_t prepare(void *ctx, void *const *state_args): the dense slots
  // allocated, @prepare run, then every slot checked (a packed operand's
  // buffer is null when its allocation failed, and the packing skipped it).
  auto *prepare = llvm::Function::Create(
      llvm::FunctionType::get(i32Ty, {ptrTy, ptrTy}, false), internal,
      "nn_prepare", m);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", prepare);
  auto *fail = llvm::BasicBlock::Create(ctx, "fail", prepare);
  b.SetInsertPoint(fail);
  b.CreateRet(b.getInt32(1));
  b.SetInsertPoint(entry);
  llvm::Value *context = prepare->getArg(0);
  auto bufferFn = runtime(kernel_abi::Function::nn_rt_context_buffer);
  auto failIfNull = [&](llvm::Value *pointer) {
    auto *ok = llvm::BasicBlock::Create(ctx, "ok", prepare);
    b.CreateCondBr(b.CreateIsNull(pointer), fail, ok);
    b.SetInsertPoint(ok);
  };
  for (auto [slot, bytes] : llvm::enumerate(layout.denseBytes))
    failIfNull(
        b.CreateCall(bufferFn, {context, b.getInt64(slot), b.getInt64(bytes)}));
  if (prepareImpl)
    callWith(prepareImpl, prepareSources, context, prepare->getArg(1));
  for (int64_t slot = 0; slot < layout.slots; ++slot)
    failIfNull(b.CreateLoad(ptrTy, slotAddress(context, slot)));
  b.CreateRet(b.getInt32(0));

  // The context: `slots` buffer pointers (nn_rt_context_*, in nn_kernels).
  auto *create = llvm::Function::Create(llvm::FunctionType::get(ptrTy, false),
                                        internal, "nn_create_context", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", create));
  b.CreateRet(b.CreateCall(runtime(kernel_abi::Function::nn_rt_context_create),
                           {b.getInt64(layout.slots)}));
  auto *destroy = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptrTy}, false), internal,
      "nn_destroy_context", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", destroy));
  b.CreateCall(runtime(kernel_abi::Function::nn_rt_context_destroy),
               {destroy->getArg(0), b.getInt64(layout.slots)});
  b.CreateRetVoid();

  auto *jsonInit = llvm::ConstantDataArray::getString(ctx, description, true);
  auto *json = new llvm::GlobalVariable(m, jsonInit->getType(), true, internal,
                                        jsonInit, "nn_description");
  auto *tableTy =
      llvm::StructType::get(ctx, {i32Ty, ptrTy, ptrTy, ptrTy, ptrTy, ptrTy});
  auto *tableInit = llvm::ConstantStruct::get(
      tableTy, {b.getInt32(NN_ARTIFACT_ABI_VERSION), json, create, destroy,
                forward, prepare});
  auto *table = new llvm::GlobalVariable(m, tableTy, true, internal, tableInit,
                                         "nn_artifact_table");

  auto *getter = llvm::Function::Create(llvm::FunctionType::get(ptrTy, false),
                                        llvm::GlobalValue::ExternalLinkage,
                                        NN_ARTIFACT_ENTRY_POINT, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", getter));
  b.CreateRet(table);
}

/// Whether `machine` may use the ISA extension LLVM calls `feature`.
static bool targetHasFeature(const llvm::TargetMachine &machine,
                             StringRef feature) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  for (const llvm::SubtargetFeatureKV &known : info->getAllProcessorFeatures())
    if (feature == known.Key)
      return info->getFeatureBits().test(known.Value);
  return false;
}

/// Completes `description` with what only lowering and the target decide:
/// the workspace, the arena nn-plan-buffers gave `funcName` (its
/// `nn.workspace_bytes`, removed here as LLVM IR has no place for it; 0 when
/// it has none), and the target, the CPU the code is generated for and every
/// ISA feature of it that the runtime checks before loading.
static void completeDescription(::nn::ArtifactDescription &description,
                                ModuleOp module, StringRef funcName,
                                const llvm::TargetMachine &machine) {
  if (auto func = module.lookupSymbol<FunctionOpInterface>(funcName)) {
    if (auto attr = func->getAttrOfType<IntegerAttr>(NNAttr::kWorkspaceBytes))
      description.workspace_bytes = attr.getInt();
    func->removeAttr(NNAttr::kWorkspaceBytes);
  }
  description.target_cpu = machine.getTargetCPU().str();
  description.target_features.clear();
  for (const std::string &feature : ::nn::checkable_cpu_features())
    if (targetHasFeature(machine, feature))
      description.target_features.push_back(feature);
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::nn::translateToArtifactIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                                StringRef funcName, const CpuTarget &target) {
  kernel::ArtifactAttr artifact = kernel::getArtifact(module);
  if (!artifact)
    return module.emitError() << "the module has no artifact description ('"
                              << kernel::kArtifactAttrName
                              << "'): nn-describe-artifact runs before it is "
                                 "lowered";
  if (failed(verifyExternalCalls(module)))
    return failure();
  ::nn::ArtifactDescription description = artifact.getDescription();
  module->removeAttr(kernel::kArtifactAttrName);
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, error);
  if (!machine)
    return module.emitError() << "no target machine: " << error;
  completeDescription(description, module, funcName, *machine);
  // The context's layout and how each entry point's arguments are supplied,
  // from the attributes nn-hoist-state-computations and
  // convert-nn-to-kernel left.
  ContextLayout layout;
  if (auto slots = module->getAttrOfType<IntegerAttr>(NNAttr::kContextSlots))
    layout.slots = slots.getInt();
  if (auto bytes =
          module->getAttrOfType<DenseI64ArrayAttr>(NNAttr::kContextBytes))
    layout.denseBytes.assign(bytes.asArrayRef().begin(),
                             bytes.asArrayRef().end());
  if (static_cast<int64_t>(layout.denseBytes.size()) > layout.slots)
    return module.emitError()
           << "the context has " << layout.slots << " slots but "
           << layout.denseBytes.size() << " of them dense";
  auto lookup = [&](StringRef name) {
    return module.lookupSymbol<FunctionOpInterface>(name);
  };
  FunctionOpInterface forwardOp = lookup(funcName),
                      prepareOp = lookup("prepare");
  if (!forwardOp)
    return module.emitError()
           << "the lowered module has no function '" << funcName << "'";
  auto forwardSources = argumentSources(forwardOp, false, layout);
  if (failed(forwardSources))
    return failure();
  FailureOr<SmallVector<ArgSource>> prepareSources = SmallVector<ArgSource>();
  if (prepareOp)
    prepareSources = argumentSources(prepareOp, true, layout);
  if (failed(prepareSources))
    return failure();
  module->removeAttr(NNAttr::kContextSlots);
  module->removeAttr(NNAttr::kContextBytes);

  // The nn.* argument attributes (each state argument's state_dict key) are
  // in the description already; LLVM IR has no place for them, and the
  // translation would warn about each.
  module.walk([](FunctionOpInterface func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : llvm::to_vector(func.getArgAttrs(i)))
        if (attr.getName().getValue().starts_with("nn."))
          func.removeArgAttr(i, attr.getName());
  });
  // The translation interfaces are registered by runCompilePipeline.
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "nn");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");
  llvm::Function *impl = llvmModule->getFunction(funcName);
  if (!impl)
    return module.emitError()
           << "the lowered module has no function '" << funcName << "'";
  llvm::Function *prepareImpl =
      prepareOp ? llvmModule->getFunction("prepare") : nullptr;
  for (auto [fn, sources] : {std::pair{impl, &*forwardSources},
                             std::pair{prepareImpl, &*prepareSources}}) {
    if (!fn)
      continue;
    if (fn->arg_size() != sources->size() ||
        llvm::any_of(fn->getFunctionType()->params(),
                     [](llvm::Type *param) { return !param->isPointerTy(); }))
      return module.emitError()
             << "'" << fn->getName()
             << "' must take every tensor as a bare pointer after lowering";
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  addArtifactTable(*llvmModule, impl, *forwardSources, prepareImpl,
                   *prepareSources, layout, ::nn::to_json(description));

  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple().str());
  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return module.emitError()
           << "LLVM optimization failed: " << llvm::toString(std::move(err));
  return llvmModule;
}

namespace {
struct DescribeArtifactPass
    : public mlir::nn::impl::DescribeArtifactPassBase<DescribeArtifactPass> {
  using DescribeArtifactPassBase::DescribeArtifactPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<::nn::ArtifactDescription> description =
        describeArtifact(module, funcName);
    if (failed(description))
      return signalPassFailure();
    kernel::setArtifact(module, std::move(*description));
  }
};
} // namespace
