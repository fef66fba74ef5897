//===- Tracer.cpp - Tracing a forward into the nn dialect -----------------===//
//
// nn::trace and the TraceContext behind the functional ops: the model's
// parameters and buffers become nn.parameter / nn.buffer symbols, the inputs
// become arguments of func.func @forward, every functional call one op
// located at the calling module's path.
//
//===----------------------------------------------------------------------===//

#include "ModuleError.h"
#include "TraceContext.h"

#include "nn/Conversion/CPU/EmbedState.h"
#include "nn/IR/NNOps.h"
#include "nn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace nn {

using mlir::Value;

TracedModule::Impl::Impl() {
  context.loadDialect<mlir::nn::NNDialect, mlir::func::FuncDialect,
                      mlir::arith::ArithDialect>();
}

namespace detail {
namespace {

thread_local TraceContext *currentTrace = nullptr;

/// What a symbolic tensor of a trace points to.
struct ValueNode : TraceNode {
  ValueNode(Value value, TraceContext *owner) : value(value), owner(owner) {}

  RemovableHandle register_grad_hook(Tensor &self, GradHook hook) override {
    if (TraceContext::active() != owner)
      throw Error("register_hook: " + self.to_string() +
                  " belongs to a trace that is no longer running");
    // Every copy of the tensor shares this node, so all of them (and the
    // uses already traced) now read the hooked value.
    value = owner->hookGradient(value, std::move(hook));
    // The hook belongs to this trace alone: nothing to remove later.
    return RemovableHandle();
  }

  Value value;
  TraceContext *owner;
};

} // namespace

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext &context,
                                     bool modulePaths)
    : handler_(&context, [this, modulePaths](mlir::Diagnostic &diagnostic) {
        std::string where;
        if (auto name = llvm::dyn_cast<mlir::NameLoc>(diagnostic.getLocation());
            modulePaths && name)
          where = (name.getName().empty() ? std::string("<root>")
                                          : name.getName().str()) +
                  ": ";
        messages_.push_back(where + diagnostic.str());
        return mlir::success();
      }) {}

std::string DiagnosticCapture::message() const {
  std::string joined;
  for (const std::string &m : messages_)
    joined += (joined.empty() ? "" : "; ") + m;
  return joined.empty() ? "unknown error" : joined;
}

mlir::Type elementType(mlir::MLIRContext &context, DType dtype) {
  mlir::Builder b(&context);
  switch (dtype) {
  case DType::f32:
    return b.getF32Type();
  case DType::f64:
    return b.getF64Type();
  case DType::f16:
    return b.getF16Type();
  case DType::bf16:
    return b.getBF16Type();
  case DType::i64:
    return b.getI64Type();
  case DType::i32:
    return b.getI32Type();
  case DType::i8:
    return b.getIntegerType(8);
  case DType::u8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case DType::boolean:
    return b.getI1Type();
  }
  throw Error("unknown dtype");
}

static DType dtypeOf(mlir::Type type) {
  if (type.isF32())
    return DType::f32;
  if (type.isF64())
    return DType::f64;
  if (type.isF16())
    return DType::f16;
  if (type.isBF16())
    return DType::bf16;
  if (type.isInteger(1))
    return DType::boolean;
  if (type.isUnsignedInteger(8))
    return DType::u8;
  if (type.isInteger(8))
    return DType::i8;
  if (type.isInteger(32))
    return DType::i32;
  if (type.isInteger(64))
    return DType::i64;
  throw Error("the nn dialect produced an element type nn has no dtype for");
}

static mlir::RankedTensorType tensorType(mlir::MLIRContext &context,
                                         const Shape &shape, DType dtype) {
  return mlir::RankedTensorType::get(shape, elementType(context, dtype));
}

TraceContext::TraceContext(
    TracedModule::Impl &impl, Module &root,
    const std::vector<std::pair<std::string, Module *>> &extra)
    : builder(&impl.context), impl_(impl), previous_(currentTrace) {
  for (auto &[path, module] : root.named_modules())
    modulePaths_.emplace(module.get(), path);
  for (auto &[prefix, tree] : extra)
    for (auto &[path, module] : tree->named_modules())
      modulePaths_.emplace(module.get(),
                           path.empty() ? prefix : prefix + "." + path);
  paths_.push_back("");
  currentTrace = this;
  builder.setInsertionPointToEnd(impl_.module->getBody());
  declareState(root, "");
  for (auto &[prefix, tree] : extra)
    declareState(*tree, prefix);
}

TraceContext::TraceContext(TracedModule::Impl &impl, mlir::func::FuncOp forward)
    : builder(&impl.context), impl_(impl), previous_(currentTrace) {
  paths_.push_back("");
  currentTrace = this;
  // A tie's first name is the symbol its loads read (declareState).
  for (const auto &[name, tensor] : impl_.state)
    if (tensor.storage())
      stateSymbols_.emplace(tensor.storage().get(), name);
  entry_ = &forward.getBody().front();
  builder.setInsertionPoint(entry_->getTerminator());
}

TraceContext::~TraceContext() { currentTrace = previous_; }

TraceContext *TraceContext::active() { return currentTrace; }

TraceContext &TraceContext::current(const char *op) {
  if (!currentTrace)
    throw Error(std::string("nn::functional::") + op +
                " called outside nn::trace: a forward runs only while it is "
                "traced; compile the traced module and run the artifact");
  return *currentTrace;
}

void TraceContext::declareState(Module &root, const std::string &under) {
  // Parameters, then buffers, each module's own in registration order. A
  // tensor shared by several names (a tie) is declared under every name, the
  // later ones `tied_to` the first, which every load reads; nn-tie-weights
  // then merges the group into one symbol.
  auto declare = [&](const std::string &name, const Tensor &tensor,
                     bool isBuffer, bool flag) {
    if (tensor.is_cuda())
      throw Error("nn::trace: " + name + " is on " + tensor.device().str() +
                  ", and nn traces and compiles models on the CPU until its "
                  "CUDA backend lands; move the model with to(Device::cpu())");
    auto [first, isNew] = stateSymbols_.emplace(tensor.storage().get(), name);
    mlir::FlatSymbolRefAttr tiedTo;
    if (!isNew)
      tiedTo = mlir::FlatSymbolRefAttr::get(&impl_.context, first->second);
    auto type = tensorType(impl_.context, tensor.shape(), tensor.dtype());
    auto loc = mlir::NameLoc::get(builder.getStringAttr(name));
    // A non-persistent buffer is in no state_dict file: the compiled
    // artifact carries its value (and still binds it by name when given).
    if (isBuffer) {
      mlir::ElementsAttr value;
      if (!flag)
        value = mlir::nn::denseAttrOf(tensor, type);
      builder.create<mlir::nn::BufferOp>(loc, name, type, flag, tiedTo,
                                         /*aliases=*/mlir::ArrayAttr(), value);
    } else
      builder.create<mlir::nn::ParameterOp>(loc, name, type, !flag, tiedTo,
                                            /*aliases=*/mlir::ArrayAttr(),
                                            /*value=*/mlir::ElementsAttr());
    impl_.state.insert(name, tensor);
  };
  auto modules = root.named_modules();
  for (bool buffers : {false, true})
    for (auto &[path, module] : modules) {
      std::string full = under.empty()  ? path
                         : path.empty() ? under
                                        : under + "." + path;
      std::string prefix = full.empty() ? "" : full + ".";
      auto own = buffers ? module->named_buffers(false)
                         : module->named_parameters(false);
      for (auto &[name, tensor] : own)
        declare(prefix + name, tensor, buffers,
                buffers ? module->is_persistent_buffer(name)
                        : module->requires_grad(name));
    }
}

mlir::Location TraceContext::location() {
  return mlir::NameLoc::get(builder.getStringAttr(path()));
}

void TraceContext::fail(const std::string &message) const {
  throw Error((path().empty() ? std::string("<root>") : path()) + ": " +
              message);
}

void failInModule(const std::string &message) {
  if (TraceContext *t = TraceContext::active())
    t->fail(message);
  throw Error(message);
}

void TraceContext::pushModule(const Module &module) {
  auto it = modulePaths_.find(&module);
  if (it != modulePaths_.end()) {
    paths_.push_back(it->second);
    return;
  }
  // Called but never registered (kept in a plain container): name it by
  // type under the caller.
  std::string unregistered = "<unregistered " + module.name() + ">";
  paths_.push_back(path().empty() ? unregistered : path() + "." + unregistered);
}

void TraceContext::popModule() { paths_.pop_back(); }

Value TraceContext::valueOf(const Tensor &tensor, const char *op,
                            const char *role) {
  if (!tensor.defined())
    fail(std::string(op) + ": " + role + " is an undefined tensor");
  if (tensor.is_symbolic()) {
    auto *node = dynamic_cast<const ValueNode *>(tensor.node().get());
    if (!node || node->owner != this)
      fail(std::string(op) + ": " + role +
           " is a symbolic tensor of another trace");
    return node->value;
  }
  auto symbol = stateSymbols_.find(tensor.storage().get());
  if (symbol == stateSymbols_.end())
    return constantOf(tensor, op, role);
  auto loaded = loads_.find(symbol->second);
  if (loaded != loads_.end())
    return loaded->second;
  // Loads go to the top of the function so every later use is dominated.
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *entry = builder.getInsertionBlock();
  builder.setInsertionPointToStart(entry);
  for (mlir::Operation &existing : *entry)
    if (llvm::isa<mlir::nn::LoadOp>(existing))
      builder.setInsertionPointAfter(&existing);
  auto type = tensorType(impl_.context, tensor.shape(), tensor.dtype());
  Value value = builder.create<mlir::nn::LoadOp>(
      mlir::NameLoc::get(builder.getStringAttr(symbol->second)), type,
      symbol->second);
  loads_.emplace(symbol->second, value);
  return value;
}

Value TraceContext::constantOf(const Tensor &tensor, const char *op,
                               const char *role) {
  // A tensor that wants a gradient and is no parameter would silently get
  // none as a constant: it was meant to be registered.
  if (tensor.requires_grad())
    fail(std::string(op) + ": " + role + " (" + tensor.to_string() +
         ") requires grad but is not a parameter of the traced model; "
         "register it with register_parameter (a constant of the trace has "
         "no gradient)");
  auto type = tensorType(impl_.context, tensor.shape(), tensor.dtype());
  mlir::DenseElementsAttr value;
  if (tensor.dtype() == DType::boolean) {
    // i1 elements are bits in a DenseElementsAttr, bytes in a Tensor.
    const auto *bytes = static_cast<const uint8_t *>(tensor.raw_data());
    llvm::SmallVector<bool> bits(bytes, bytes + tensor.numel());
    value = mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
  } else {
    value = mlir::DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(static_cast<const char *>(tensor.raw_data()),
                                   tensor.nbytes()));
  }
  return builder.create<mlir::arith::ConstantOp>(location(), value);
}

void TraceContext::store(const Tensor &buffer, Value value, const char *op) {
  auto symbol = buffer.defined() && !buffer.is_symbolic()
                    ? stateSymbols_.find(buffer.storage().get())
                    : stateSymbols_.end();
  if (symbol == stateSymbols_.end())
    fail(std::string(op) + ": can only assign to a buffer of the traced "
                           "model, not to an input or computed tensor");
  mlir::Operation *decl =
      mlir::SymbolTable::lookupSymbolIn(impl_.module.get(), symbol->second);
  if (!llvm::isa_and_nonnull<mlir::nn::BufferOp>(decl) &&
      !(parameterStores_ && llvm::isa_and_nonnull<mlir::nn::ParameterOp>(decl)))
    fail(std::string(op) + ": '" + symbol->second +
         "' is a parameter; only buffers are written by a forward");
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  auto declType =
      llvm::cast<mlir::RankedTensorType>(mlir::nn::declaredStateType(decl));
  if (type != declType)
    fail(std::string(op) + ": value " + mlir::nn::formatShape(type.getShape()) +
         " does not match buffer '" + symbol->second + "' " +
         mlir::nn::formatShape(declType.getShape()) +
         " (or its dtype differs)");
  builder.create<mlir::nn::StoreOp>(location(), symbol->second, value);
  loads_[symbol->second] = value;
}

void TraceContext::declareBuffer(const std::string &name, const Tensor &tensor,
                                 bool startsAtZero) {
  if (!entry_)
    fail("declareBuffer: no traced forward to add state to");
  if (impl_.state.find(name))
    fail("declareBuffer: '" + name + "' is state of the trace already");
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(entry_->getParentOp());
  auto type = tensorType(impl_.context, tensor.shape(), tensor.dtype());
  auto buffer = builder.create<mlir::nn::BufferOp>(
      mlir::NameLoc::get(builder.getStringAttr(name)), name, type,
      /*persistent=*/true, mlir::FlatSymbolRefAttr(),
      /*aliases=*/mlir::ArrayAttr(), /*value=*/mlir::ElementsAttr());
  if (startsAtZero)
    buffer->setAttr(mlir::nn::NNAttr::kStartsAtZero, builder.getUnitAttr());
  stateSymbols_.emplace(tensor.storage().get(), name);
  impl_.state.insert(name, tensor);
}

Value TraceContext::addInput(const std::string &name, const Shape &shape,
                             DType dtype,
                             llvm::ArrayRef<mlir::NamedAttribute> attrs) {
  if (!entry_)
    fail("addInput: no traced forward to add an input to");
  auto func = llvm::cast<mlir::func::FuncOp>(entry_->getParentOp());
  unsigned index = func.getNumArguments();
  if (index > 0 && func.getArgAttr(index - 1, mlir::nn::NNAttr::kRng))
    --index;
  llvm::SmallVector<mlir::NamedAttribute> all(attrs.begin(), attrs.end());
  all.push_back(builder.getNamedAttr(mlir::nn::NNAttr::kName,
                                     builder.getStringAttr(name)));
  func.insertArgument(index, tensorType(impl_.context, shape, dtype),
                      builder.getDictionaryAttr(all),
                      mlir::NameLoc::get(builder.getStringAttr(name)));
  return func.getArgument(index);
}

void TraceContext::capture(const std::string &name, const Tensor &value) {
  if (name.empty())
    fail("nn::capture: the name is empty");
  if (name.rfind("output.", 0) == 0)
    fail("nn::capture: \"" + name +
         "\" is reserved for forward's own outputs; pick another name");
  for (const auto &[taken, _] : captures_)
    if (taken == name)
      fail("nn::capture: \"" + name + "\" is captured twice");
  captures_.emplace_back(name, valueOf(value, "capture", "the captured value"));
}

Tensor TraceContext::wrap(Value value) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  return Tensor::symbolic(Shape(type.getShape()),
                          dtypeOf(type.getElementType()),
                          std::make_shared<ValueNode>(value, this));
}

std::pair<Value, int64_t> TraceContext::nextRandomStream(int64_t count) {
  if (!rngState_) {
    if (!entry_)
      fail("random ops need a forward to trace into");
    rngState_ = entry_->addArgument(
        mlir::RankedTensorType::get({2}, builder.getI64Type()),
        mlir::NameLoc::get(builder.getStringAttr("rng")));
  }
  int64_t offset = randomOffset_;
  randomOffset_ += count;
  return {rngState_, offset};
}

mlir::Value TraceContext::scalar(double value, mlir::Type like) {
  mlir::Type elementType = mlir::getElementTypeOrSelf(like);
  auto type = mlir::RankedTensorType::get({}, elementType);
  mlir::Attribute element =
      llvm::isa<mlir::FloatType>(elementType)
          ? mlir::Attribute(builder.getFloatAttr(elementType, value))
          : mlir::Attribute(builder.getIntegerAttr(
                elementType, static_cast<int64_t>(value)));
  return builder.create<mlir::arith::ConstantOp>(
      location(), mlir::DenseElementsAttr::get(type, element));
}

Tensor TraceContext::finish(mlir::Operation *op,
                            const DiagnosticCapture &capture) {
  if (auto infer = llvm::dyn_cast<mlir::InferTypeOpInterface>(op)) {
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), types))) {
      op->erase();
      fail(capture.message());
    }
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
  }
  if (mlir::failed(mlir::verify(op))) {
    op->erase();
    fail(capture.message());
  }
  return wrap(op->getResult(0));
}

std::vector<Tensor> TraceContext::finishAll(mlir::Operation *op,
                                            const DiagnosticCapture &capture) {
  finish(op, capture); // infers and verifies; throws on failure
  std::vector<Tensor> results;
  for (Value result : op->getResults())
    results.push_back(wrap(result));
  return results;
}

ModuleCallScope::ModuleCallScope(const Module &module)
    : pushed_(TraceContext::active() != nullptr) {
  if (pushed_)
    TraceContext::active()->pushModule(module);
}

ModuleCallScope::~ModuleCallScope() {
  if (pushed_)
    TraceContext::active()->popModule();
}

} // namespace detail

void capture(const std::string &name, const Tensor &value) {
  detail::TraceContext::current("capture").capture(name, value);
}

TracedModule
trace(Module &root, const std::vector<TensorSpec> &inputs,
      const std::function<std::vector<Tensor>(const std::vector<Tensor> &)>
          &forward,
      const std::vector<std::pair<std::string, Module *>> &extra) {
  auto impl = std::make_shared<TracedModule::Impl>();
  mlir::MLIRContext &ctx = impl->context;
  impl->module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  detail::TraceContext trace(*impl, root, extra);
  mlir::OpBuilder &b = trace.builder;

  llvm::SmallVector<mlir::Type> inputTypes;
  for (const TensorSpec &spec : inputs) {
    for (int64_t d : spec.shape)
      if (d < 0)
        throw Error("nn::trace: input shapes must be static, got " +
                    shape_str(spec.shape));
    inputTypes.push_back(detail::tensorType(ctx, spec.shape, spec.dtype));
  }
  b.setInsertionPointToEnd(impl->module->getBody());
  auto func = b.create<mlir::func::FuncOp>(
      mlir::NameLoc::get(b.getStringAttr(root.name())), "forward",
      b.getFunctionType(inputTypes, {}));
  mlir::Block *entry = func.addEntryBlock();
  std::vector<Tensor> symbolic;
  for (auto [i, spec] : llvm::enumerate(inputs)) {
    if (!spec.name.empty())
      func.setArgAttr(i, mlir::nn::NNAttr::kName, b.getStringAttr(spec.name));
    symbolic.push_back(trace.wrap(entry->getArgument(i)));
  }

  b.setInsertionPointToEnd(entry);
  trace.setEntryBlock(entry);
  std::vector<Tensor> outputs = forward(symbolic);
  llvm::SmallVector<Value> results;
  for (const Tensor &output : outputs)
    results.push_back(trace.valueOf(output, "forward", "an output"));
  for (const auto &[name, value] : trace.captures())
    results.push_back(value);
  b.create<mlir::func::ReturnOp>(func.getLoc(), results);
  // A random op added the generator state as the last argument; it says how
  // many numbers a run draws, so the runtime can advance the state.
  func.setFunctionType(b.getFunctionType(entry->getArgumentTypes(),
                                         mlir::ValueRange(results).getTypes()));
  if (trace.rngState())
    func.setArgAttr(inputs.size(), mlir::nn::NNAttr::kRng,
                    b.getI64IntegerAttr(trace.randomDraws()));
  for (auto [i, captured] : llvm::enumerate(trace.captures()))
    func.setResultAttr(outputs.size() + i, mlir::nn::NNAttr::kName,
                       b.getStringAttr(captured.first));

  detail::DiagnosticCapture capture(ctx);
  if (mlir::failed(mlir::verify(*impl->module)))
    throw Error("nn::trace produced invalid IR (a bug in nn): " +
                capture.message());
  return TracedModule(std::move(impl));
}

std::string TracedModule::to_string(bool debug_info) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (debug_info)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  impl_->module->print(os, flags);
  return os.str();
}

std::shared_ptr<mlir::nn::OptimizePipelineOptions>
detail::optimizePipelineOptions(const OptimizeOptions &options) {
  auto pipeline = std::make_shared<mlir::nn::OptimizePipelineOptions>();
  pipeline->tieWeights = options.tie_weights;
  pipeline->foldBatchNorm = options.fold_batchnorm;
  pipeline->foldScalarMul = options.fold_scalar_mul;
  pipeline->mergeLinears = options.merge_linears;
  pipeline->decomposeConv3d = options.decompose_conv3d;
  pipeline->fuse = options.fuse;
  return pipeline;
}

TracedModule &TracedModule::optimize(const OptimizeOptions &options) {
  detail::DiagnosticCapture capture(impl_->context);
  mlir::PassManager pm(&impl_->context);
  mlir::nn::buildOptimizePipeline(pm,
                                  *detail::optimizePipelineOptions(options));
  if (mlir::failed(pm.run(*impl_->module)))
    throw Error("nn-optimize failed: " + capture.message());
  return *this;
}

TracedModule TracedModule::clone() const {
  auto copy = std::make_shared<Impl>();
  // Round-trip through bytes: the clone lives in its own context.
  std::string text;
  llvm::raw_string_ostream os(text);
  impl_->module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  copy->module =
      mlir::parseSourceString<mlir::ModuleOp>(os.str(), &copy->context);
  if (!copy->module)
    throw Error("TracedModule::clone: the IR does not re-parse (a bug in nn)");
  copy->state = impl_->state;
  copy->hookSites = impl_->hookSites;
  return TracedModule(std::move(copy));
}

const StateDict &TracedModule::state() const { return impl_->state; }

} // namespace nn
