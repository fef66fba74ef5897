//===- KernelCalls.h - Kernel ops and their calls, in pieces ---*- C++ -*-===//
//
// Two passes, one file per piece:
//
// convert-nn-to-kernel (before convert-nn-to-linalg, on tensors) makes
// nn.matmul, nn.linear, 2-D nn.conv (groups 1, or depthwise), batched
// nn.matmul and nn.scaled_dot_product_attention, alone or leading an
// nn.fused group, and 2-D nn.max_pool, nn_kernel ops
// (nn/Kernel/KernelOps.td):
//
// - Epilogue.cpp: which ops the kernels take, and which consumers a
//   kernel's store applies (matchEpilogue: bias, up to two broadcast adds,
//   then relu, clamp or leaky_relu; what it cannot apply stays pointwise).
// - Packer.cpp: weights packed once in @prepare, in the model's context.
// - Contraction.cpp: GEMM and convolution, alone or leading a group.
// - Batched.cpp: batched matmul and attention, read through permutes and
//   split pieces without copies.
// - Pooling.cpp: 2-D max pooling, reading its input in place.
// - ConvertNNToKernel.cpp: the pass.
//
// nn-lower-kernel-ops (after one-shot bufferization, on memrefs) makes each
// nn_kernel op the call of its function of the runtime's nn_kernels
// (nn/Runtime/Kernels.h):
//
// - CallBuilder.cpp: the operands of a call, as KernelABI.def types them
//   (pointers and strides of memrefs, the epilogue and matrix structs in
//   stack slots), and the call.
// - LowerKernelOps.cpp: the pass, one call per op.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CODEGEN_CPU_KERNELCALLS_KERNELCALLS_H
#define NN_CODEGEN_CPU_KERNELCALLS_KERNELCALLS_H

#include "nn/Conversion/CPU/KernelABI.h"
#include "nn/IR/NNOps.h"
#include "nn/Kernel/KernelDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace mlir::nn::kernel_calls {

//===----------------------------------------------------------------------===//
// Epilogue.cpp
//===----------------------------------------------------------------------===//

/// A statically shaped f32 tensor type (of rank `rank` unless it is -1), or
/// null.
RankedTensorType staticF32(Value value, int64_t rank = -1);

/// True when `conv` is depthwise (groups = input channels = output
/// channels, one [1, KH, KW] filter per channel): nn_rt_conv2d_depthwise_nchw
/// computes it. Channel multipliers > 1 and other groupings are not.
bool isDepthwise(ConvOp conv);

/// Why the kernels cannot compute `op` (an nn.matmul, nn.linear or nn.conv),
/// or null when they can.
const char *whyNoKernel(Operation *op);

/// Why the batched kernels cannot compute `op` (an nn.matmul with batch
/// dims or an nn.scaled_dot_product_attention), or null when they can.
const char *whyNoBatchedKernel(Operation *op);

/// An nn.matmul with batch dimensions on its right side: one GEMM per batch
/// index. ([..., K] x [K, N] is one GEMM, its leading dimensions the rows.)
bool isBatchedMatmul(Operation *op);

/// A tensor the kernel adds in its store (nn_rt_addend): its element for
/// (i, m, n) is at i * image + m * row + n * col in its row-major buffer.
struct Addend {
  Value tensor;
  int64_t image = 0, row = 0, col = 0;
};

/// What a kernel applies in its store (nn_rt_epilogue): the contraction's
/// own bias and activation, then the pointwise consumers it absorbs.
struct KernelEpilogue {
  SmallVector<Addend, kernel_abi::kMaxAddends> addends;
  int32_t activation = kernel_abi::kActNone;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  float slope = 0.f;
  /// The absorbed consumers, in order; each one's result feeds only the next.
  SmallVector<Operation *> absorbed;
  /// The value the kernel computes: the last absorbed op's result, or the
  /// contraction's.
  Value result;
};

/// Maps a value seen by the contraction and its consumers to the value the
/// kernel call may use at its insertion point (null: none).
using OutsideFn = function_ref<Value(Value)>;

/// The epilogue of `contraction`: its bias and activation, then the chain of
/// single-use consumers the kernel's store can apply (adds of a tensor
/// `outside` provides, while addend slots remain, then at most one relu,
/// clamp or leaky_relu). The chain stops at the first consumer that does
/// not fit; the caller keeps everything after it.
KernelEpilogue matchEpilogue(Operation *contraction, OutsideFn outside);

/// `e` as the kernel ops' epilogue attribute (null when it does nothing);
/// its addends are the op's `addends` operands, in order.
kernel::EpilogueAttr epilogueAttr(MLIRContext *context,
                                  const KernelEpilogue &e);
SmallVector<Value> addendValues(const KernelEpilogue &e);

/// The nn_kernel.batch_matmul computing `op` (isBatchedMatmul), its operands
/// mapped through `outside` and read through their permutes, with the
/// epilogue `e`, writing its result in the order of `permute` (an absorbed
/// nn.permute of the result, or null), at the rewriter's insertion point.
Value emitBatchedMatmul(PatternRewriter &rewriter, MatmulOp op,
                        OutsideFn outside, const KernelEpilogue &e,
                        Operation *permute);

//===----------------------------------------------------------------------===//
// CallBuilder.cpp
//===----------------------------------------------------------------------===//

/// Builds the operands of a kernel call, and the call.
class CallBuilder {
public:
  CallBuilder(OpBuilder &builder, Location loc);

  Value i64(int64_t v);
  Value i32(int32_t v);
  Value f32(float v);
  Value null();
  Value toI64(Value index);

  /// The address of element 0 of `memref` and its strides (in elements).
  std::pair<Value, SmallVector<Value>> pointer(Value memref);

  /// `value` stored in a stack slot of `anchor`'s function, allocated in its
  /// entry block (so a call in a loop reuses it), which keeps the compiled
  /// function re-entrant: the kernels take their structs by pointer.
  Value spill(Operation *anchor, Value value);

  /// A pointer to an nn_rt_epilogue holding `e` and the `addends`
  /// (row-major memrefs), or a null pointer when `e` does nothing.
  Value epilogue(Operation *anchor, kernel::EpilogueAttr e, ValueRange addends);

  /// An nn_rt_matrix {ptr, batch strides, row, col} in a stack slot; the
  /// strides of a kernel's batch dims (at most NN_RT_MAX_BATCH_DIMS), which
  /// the struct holds right-aligned, as batchSizes() pads the sizes.
  Value matrix(Operation *anchor, Value ptr, ArrayRef<Value> batchStrides,
               Value row, Value col);

  /// `values` as an i64 array in a stack slot.
  Value i64Array(Operation *anchor, ArrayRef<int64_t> values);

  /// The batch sizes of a kernel (`batch`, padded with leading 1s to
  /// NN_RT_MAX_BATCH_DIMS) as an i64 array in a stack slot.
  Value batchSizes(Operation *anchor, ArrayRef<int64_t> batch);

  /// Calls `function` with `args` (of the types KernelABI.def gives it),
  /// declaring it in the module on first use; returns its results.
  ValueRange call(Operation *anchor, kernel_abi::Function function,
                  ValueRange args);

  OpBuilder &b;
  Location loc;
  Type ptrType;
};

//===----------------------------------------------------------------------===//
// Packer.cpp
//===----------------------------------------------------------------------===//

/// How a packed operand is laid out: by the kernel that reads it, and for a
/// GEMM's B by whether the operand is the transposed weight of nn.linear.
enum class PackKind { linearWeight, matmulRhs, convWeight };

/// Packs state-only kernel operands once, in @prepare (made by
/// nn-hoist-state-computations), into buffers of the artifact's context,
/// where the kernel ops of forward read them packed. Without a @prepare
/// nothing is packed ahead and every call packs its operands itself.
///
/// The context's slots are the dense ones (@prepare's results, which the
/// other functions read as `nn.context_slot` arguments), then the packed
/// ones. Which dense slots stay is known only once every kernel is
/// lowered: one that nothing reads any more (a batch-norm-folded weight
/// that only feeds a packing) is dropped, and the packed slots' numbers
/// follow the dense slots that stay. So while the patterns run, the `slot`
/// of an `nn_kernel.pack_*` / `nn_kernel.packed` op is its index among the
/// packed slots; finish() adds the number of dense slots that stay.
class Packer {
public:
  /// Finds @prepare and checks that the module's context is the one
  /// nn-hoist-state-computations leaves (one dense slot per @prepare result,
  /// each read as its result's type, no packed slots yet), then gives every
  /// public function a `!nn_kernel.context` argument: @prepare fills the slots,
  /// the others read them (translateToArtifactIR passes it; unused ones are
  /// removed by finish()). Without a @prepare there is nothing to check.
  LogicalResult init(ModuleOp module);

  /// Emits at the builder's insertion point in @prepare the nn_kernel.pack_*
  /// op that packs `source` into slot `slot` of `context`.
  using PackFn = function_ref<void(OpBuilder &, Value source, Value context,
                                   int64_t slot)>;

  /// The packed form of `operand` for `kind` and `layout`, an
  /// nn_kernel.packed read from forward's context at the rewriter's
  /// insertion point, or null when it cannot be packed ahead. On first use
  /// of (operand, kind, layout), `pack` emits the packing into @prepare.
  Value packed(PatternRewriter &rewriter, Location loc, Value operand,
               PackKind kind, StringRef layout, PackFn pack);

  /// Drops the dense slots no function reads any more, numbers the packed
  /// slots after the ones that stay, records the slot count and drops the
  /// context argument of functions that read no slot.
  void finish(ModuleOp module);

private:
  /// The value in @prepare that equals `operand` (a value seen by a kernel
  /// call in another function) on every call: the same state argument when
  /// forward never writes it, or the @prepare result forward reads from a
  /// context slot. Null when there is none (an input, an intermediate,
  /// state forward writes).
  Value sourceInPrepare(Value operand);
  int64_t dropUnreadDenseSlots(ModuleOp module);

  func::FuncOp prepare;
  /// @prepare's results as init() found them.
  int64_t denseSlots = 0;
  /// The index among the packed slots of each (source in @prepare,
  /// PackKind, layout) packed so far: a weight read by several calls (tied,
  /// or reused) of one layout is packed once. The layout names what else
  /// decides the packing (a convolution's geometry picks its kernel).
  std::map<std::tuple<const void *, int, std::string>, int64_t> packedSlots;
};

//===----------------------------------------------------------------------===//
// The patterns
//===----------------------------------------------------------------------===//

/// Contraction.cpp: nn.matmul (2-D), nn.linear and nn.conv, alone (with the
/// consumers their epilogue absorbs) or leading an nn.fused group.
void populateContractionPatterns(RewritePatternSet &patterns, Packer &packer);

/// Batched.cpp: nn.matmul with batch dimensions and attention.
void populateBatchedPatterns(RewritePatternSet &patterns);

/// Pooling.cpp: 2-D max pooling.
void populatePoolingPatterns(RewritePatternSet &patterns);

} // namespace mlir::nn::kernel_calls

#endif // NN_CODEGEN_CPU_KERNELCALLS_KERNELCALLS_H
