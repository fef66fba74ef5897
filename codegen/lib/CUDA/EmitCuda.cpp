//===- EmitCuda.cpp - Bufferized linalg to CUDA C++ kernels ---------------===//
//
// See EmitCuda.h. One KernelWriter per kernel: it names the kernel's
// buffers, writes the thread's position in the iteration space, the loads,
// the payload as one `const T vN = ...;` per op, and the stores. The plan
// follows every memref of a function back to the argument, allocation or
// global it views.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CUDA/EmitCuda.h"
#include "nn/Conversion/Passes.h"
#include "nn/IR/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::cuda;

/// What every emitted source starts with: the scalar helpers the payloads
/// call, the same on the GPU and under the emulation header.
static constexpr const char *kPrelude =
    R"cuda(// CUDA kernels emitted by nn. Compiled by NVRTC for the GPU, or as host
// C++ under nn's emulation header (NN_CUDA_EMULATION), which runs them on
// the CPU.
#if defined(__CUDACC__)
#define NN_DEVICE static __device__ __forceinline__
// The helpers below that a source does not call are no news.
#pragma nv_diag_suppress 177
#elif !defined(NN_CUDA_EMULATION)
#error "compile with NVRTC, or as C++ after nn's CUDA emulation header"
#endif

typedef unsigned short nn_f16;
typedef unsigned short nn_bf16;

#if defined(__CUDACC__)
NN_DEVICE float nn_f32_from_bits(unsigned int u) { return __uint_as_float(u); }
NN_DEVICE unsigned int nn_f32_bits(float f) { return __float_as_uint(f); }
NN_DEVICE double nn_f64_from_bits(unsigned long long u) {
  return __longlong_as_double((long long)u);
}
NN_DEVICE unsigned long long nn_f64_bits(double f) {
  return (unsigned long long)__double_as_longlong(f);
}
#else
NN_DEVICE float nn_f32_from_bits(unsigned int u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
NN_DEVICE unsigned int nn_f32_bits(float f) {
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
NN_DEVICE double nn_f64_from_bits(unsigned long long u) {
  double f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
NN_DEVICE unsigned long long nn_f64_bits(double f) {
  unsigned long long u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
#endif

// bf16 and f16 are stored as their bits and computed in f32, rounding to
// nearest even as PyTorch's c10::BFloat16 and c10::Half do (the f16
// conversions are c10/util/Half.h's, exact for subnormals).
NN_DEVICE float nn_bf16_to_f32(nn_bf16 h) {
  return nn_f32_from_bits((unsigned int)h << 16);
}
NN_DEVICE nn_bf16 nn_f32_to_bf16(float f) {
  unsigned int u = nn_f32_bits(f);
  if (f != f)
    return (nn_bf16)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (nn_bf16)(u >> 16);
}
NN_DEVICE float nn_f16_to_f32(nn_f16 h) {
  const unsigned int w = (unsigned int)h << 16;
  const unsigned int sign = w & 0x80000000u;
  const unsigned int twoW = w + w;
  const float normalized =
      nn_f32_from_bits((twoW >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized =
      nn_f32_from_bits((twoW >> 17) | (126u << 23)) - 0.5f;
  return nn_f32_from_bits(sign | (twoW < (1u << 27) ? nn_f32_bits(denormalized)
                                                     : nn_f32_bits(normalized)));
}
NN_DEVICE nn_f16 nn_f32_to_f16(float f) {
  float base = (fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const unsigned int w = nn_f32_bits(f);
  const unsigned int shl1W = w + w;
  const unsigned int sign = w & 0x80000000u;
  unsigned int bias = shl1W & 0xFF000000u;
  if (bias < 0x71000000u)
    bias = 0x71000000u;
  base = nn_f32_from_bits((bias >> 1) + 0x07800000u) + base;
  const unsigned int bits = nn_f32_bits(base);
  const unsigned int nonsign = ((bits >> 13) & 0x00007C00u) + (bits & 0x00000FFFu);
  return (nn_f16)((sign >> 16) | (shl1W > 0xFF000000u ? 0x7E00u : nonsign));
}

// arith.maximumf and minimumf: NaN if either is, and -0 < +0 (fmaxf may
// return either zero, and neither NaN).
NN_DEVICE float nn_maximumf(float a, float b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return nn_f32_bits(a) & 0x80000000u ? b : a;
  return a > b ? a : b;
}
NN_DEVICE float nn_minimumf(float a, float b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return nn_f32_bits(a) & 0x80000000u ? a : b;
  return a < b ? a : b;
}
NN_DEVICE double nn_maximumf(double a, double b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return nn_f64_bits(a) >> 63 ? b : a;
  return a > b ? a : b;
}
NN_DEVICE double nn_minimumf(double a, double b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return nn_f64_bits(a) >> 63 ? a : b;
  return a < b ? a : b;
}

// Affine maps' floordiv, ceildiv and mod, for negative operands too.
NN_DEVICE long long nn_floordiv(long long a, long long b) {
  const long long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
NN_DEVICE long long nn_ceildiv(long long a, long long b) {
  const long long q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
NN_DEVICE long long nn_mod(long long a, long long b) {
  const long long r = a % b;
  return r < 0 ? r + b : r;
}
)cuda";

namespace {

/// The C type of a scalar or element type; empty where there is none.
std::string cType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "nn_f16";
  if (type.isBF16())
    return "nn_bf16";
  if (type.isIndex())
    return "long long";
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1:
      return "bool";
    case 8:
      return "signed char";
    case 16:
      return "short";
    case 32:
      return "int";
    case 64:
      return "long long";
    default:
      return "";
    }
  }
  return "";
}

/// The unsigned C type of an integer type's width (for the unsigned ops).
std::string unsignedType(Type type) {
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  switch (width) {
  case 1:
    return "bool";
  case 8:
    return "unsigned char";
  case 16:
    return "unsigned short";
  case 32:
    return "unsigned int";
  default:
    return "unsigned long long";
  }
}

/// A floating-point constant as an exact C literal.
std::string floatLiteral(const APFloat &value, Type type) {
  bool isF64 = type.isF64();
  double d = value.convertToDouble();
  if (std::isnan(d))
    return isF64 ? "nn_f64_from_bits(0x7ff8000000000000ull)"
                 : "nn_f32_from_bits(0x7fc00000u)";
  if (std::isinf(d)) {
    if (isF64)
      return d > 0 ? "nn_f64_from_bits(0x7ff0000000000000ull)"
                   : "nn_f64_from_bits(0xfff0000000000000ull)";
    return d > 0 ? "nn_f32_from_bits(0x7f800000u)"
                 : "nn_f32_from_bits(0xff800000u)";
  }
  // %a is exact; the suffix keeps f32 constants f32.
  return llvm::formatv("{0}{1}", llvm::format("%a", d), isF64 ? "" : "f").str();
}

/// The module path an op came from (the first name in its location), as a C
/// identifier suffix: "layer1.conv1" → "_layer1_conv1".
std::string pathSuffix(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (name.empty())
    return "";
  std::string out = "_";
  for (char c : name)
    out += llvm::isAlnum(c) ? c : '_';
  return out;
}

/// The bytes of `value` as kernels read them: little-endian elements in
/// row-major order, a bool one byte.
std::vector<char> bytesOf(DenseElementsAttr value) {
  std::vector<char> bytes;
  if (value.getElementType().isInteger(1)) {
    // Stored one bit per element.
    for (bool b : value.getValues<bool>())
      bytes.push_back(b);
  } else if (value.isSplat()) {
    ArrayRef<char> one = value.getRawData();
    for (int64_t i = 0; i < value.getNumElements(); ++i)
      bytes.insert(bytes.end(), one.begin(), one.end());
  } else {
    bytes.assign(value.getRawData().begin(), value.getRawData().end());
  }
  return bytes;
}

/// The bytes of one element in a kernel's buffer; 0 for a type kernels do
/// not take.
int64_t elementBytes(Type type) {
  if (cType(type).empty())
    return 0;
  if (type.isIndex())
    return 8;
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

/// A memref operand's static shape and layout, or a located error.
struct Layout {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  /// One past the largest element index the layout reaches.
  int64_t extent() const {
    int64_t end = offset;
    for (auto [size, stride] : llvm::zip(shape, strides)) {
      if (size == 0)
        return offset;
      end += (size - 1) * stride;
    }
    return end + 1;
  }
};

FailureOr<Layout> staticLayout(Operation *user, Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return user->emitOpError("reads or writes ")
           << memref.getType() << ": CUDA kernels take ranked memrefs";
  Layout layout;
  if (!type.hasStaticShape() ||
      failed(getStridesAndOffset(type, layout.strides, layout.offset)) ||
      ShapedType::isDynamic(layout.offset) ||
      llvm::any_of(layout.strides, ShapedType::isDynamic))
    return user->emitOpError("reads or writes ")
           << type
           << ", which has a dynamic shape or layout: CUDA kernels are "
              "emitted for static ones";
  if (cType(type.getElementType()).empty())
    return user->emitOpError("has elements of type ")
           << type.getElementType() << ", which CUDA kernels do not take";
  layout.shape.assign(type.getShape().begin(), type.getShape().end());
  return layout;
}

/// The output points from which even a long reduction is a thread's per
/// point: 2^17 threads are half of what an H100's or H200's 132
/// multiprocessors hold at once (2048 each), enough to hide the reads'
/// latency without a block's shared-memory rounds. Below it, a thread per
/// point would leave most of the GPU idle while each walks its whole
/// reduction. (A rule from the hardware's sizes, not yet measured.)
constexpr int64_t kMaxBlockReductionPoints = int64_t{1} << 17;

/// The op that folds each value into `acc` (a reduction's accumulator)
/// when that is all the payload does with it: `acc` used once, by an add,
/// max or min of f32/f64 (or an integer add) whose result is `yielded` and
/// goes nowhere else. Such a fold can be split into partials that start
/// from its identity and are combined by the same op. Null otherwise.
Operation *combinerOf(BlockArgument acc, Value yielded) {
  if (!acc.hasOneUse() || !yielded.hasOneUse())
    return nullptr;
  Operation *user = *acc.getUsers().begin();
  if (user->getNumResults() != 1 || user->getResult(0) != yielded)
    return nullptr;
  Type type = acc.getType();
  if (isa<arith::AddIOp>(user))
    return type.isInteger(32) || type.isInteger(64) ? user : nullptr;
  if (!type.isF32() && !type.isF64())
    return nullptr;
  return isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(user)
             ? user
             : nullptr;
}

/// The identity of a combinerOf fold, as a C expression of its type.
std::string identityOf(Operation *combiner) {
  Type type = combiner->getResult(0).getType();
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    return "(" + cType(type) + ")0";
  // -inf for a max, +inf for a min, by their bits (NVRTC has no INFINITY).
  bool max = isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner);
  if (type.isF64())
    return max ? "nn_f64_from_bits(0xfff0000000000000ull)"
               : "nn_f64_from_bits(0x7ff0000000000000ull)";
  return max ? "nn_f32_from_bits(0xff800000u)"
             : "nn_f32_from_bits(0x7f800000u)";
}

/// Writes one kernel (see the file comment).
class KernelWriter {
public:
  KernelWriter(std::string name, Operation *op)
      : name(std::move(name)), op(op) {}

  /// A linalg op: its payload over its iteration space. `filled` is the
  /// linalg.fill just before it that it overwrites, folded in (or null).
  LogicalResult writeLinalg(linalg::LinalgOp linalgOp,
                            linalg::FillOp filled = nullptr);
  /// memref.copy: an identity payload over the target's shape.
  LogicalResult writeCopy(memref::CopyOp copy);

  const std::string name;
  std::string source;
  /// The memrefs the kernel's parameters are, in order.
  SmallVector<Value> buffers;
  int64_t iterations = 1;
  /// Each iteration is a block's (a block reduction), not a thread's.
  bool blockPerIteration = false;

private:
  /// The index of the parameter for `memref`, added (its layout checked
  /// and kept) on first use.
  FailureOr<unsigned> parameter(Value memref);
  /// `p.pN[<linear index>]` for the element of `memref` at `indices` (C
  /// expressions).
  FailureOr<std::string> element(Value memref, ArrayRef<std::string> indices);
  /// The C expression of an affine map result over the loop variables.
  std::string affine(AffineExpr expr) const;
  /// The C expression of a payload operand.
  FailureOr<std::string> operand(Value value);
  /// Writes `op` of the payload as `const T vN = ...;`.
  LogicalResult writePayloadOp(Operation *payloadOp);
  /// The grid-stride loop over the points of `loops` (sizes `sizes`,
  /// outermost first), a thread's each or, with `perBlock`, a block's, and
  /// the point's indices.
  void openKernel(ArrayRef<std::string> loops, ArrayRef<int64_t> sizes,
                  bool perBlock = false);
  /// `const nn_index <loops[i]> = ...;` for the point `flat` of a row-major
  /// iteration space of `sizes`.
  void unflatten(StringRef flat, ArrayRef<std::string> loops,
                 ArrayRef<int64_t> sizes);
  void closeKernel();
  /// `combiner` (a payload op of two operands) applied to the C expressions
  /// `a` and `b`, written as a `const T vN`; returns vN.
  FailureOr<std::string> combine(Operation *combiner, const std::string &a,
                                 const std::string &b);
  std::string fresh() { return "v" + std::to_string(nextValue++); }
  void line(const Twine &text) {
    body.append(indent, ' ');
    body += text.str();
    body += '\n';
  }

  Operation *op;
  std::string body;
  unsigned indent = 2;
  unsigned nextValue = 0;
  DenseMap<Value, std::string> names;
  DenseMap<Value, unsigned> parameterIndex;
  /// The layout of each parameter's memref.
  SmallVector<Layout> layouts;
  /// The loop variables of the iteration space, by dimension.
  SmallVector<std::string> dims;
  /// The largest element index any operand reaches (for the index type).
  int64_t maxIndex = 0;
};

FailureOr<unsigned> KernelWriter::parameter(Value memref) {
  if (auto it = parameterIndex.find(memref); it != parameterIndex.end())
    return it->second;
  FailureOr<Layout> layout = staticLayout(op, memref);
  if (failed(layout))
    return failure();
  maxIndex = std::max(maxIndex, layout->extent());
  parameterIndex[memref] = buffers.size();
  buffers.push_back(memref);
  layouts.push_back(std::move(*layout));
  return buffers.size() - 1;
}

FailureOr<std::string> KernelWriter::element(Value memref,
                                             ArrayRef<std::string> indices) {
  FailureOr<unsigned> index = parameter(memref);
  if (failed(index))
    return failure();
  const Layout &layout = layouts[*index];
  SmallVector<std::string> terms;
  if (layout.offset != 0)
    terms.push_back(std::to_string(layout.offset));
  for (auto [index, stride, size] :
       llvm::zip(indices, layout.strides, layout.shape)) {
    if (stride == 0 || size == 1)
      continue;
    terms.push_back(stride == 1 ? index
                                : "(nn_index)(" + index + ") * " +
                                      std::to_string(stride));
  }
  if (terms.empty())
    terms.push_back("0");
  return "p.p" + std::to_string(*index) + "[" + llvm::join(terms, " + ") + "]";
}

std::string KernelWriter::affine(AffineExpr expr) const {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(constant.getValue());
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::string lhs = affine(binary.getLHS()), rhs = affine(binary.getRHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return "(" + lhs + " + " + rhs + ")";
  case AffineExprKind::Mul:
    return "(" + lhs + " * " + rhs + ")";
  case AffineExprKind::FloorDiv:
    return "nn_floordiv(" + lhs + ", " + rhs + ")";
  case AffineExprKind::CeilDiv:
    return "nn_ceildiv(" + lhs + ", " + rhs + ")";
  default:
    return "nn_mod(" + lhs + ", " + rhs + ")";
  }
}

void KernelWriter::openKernel(ArrayRef<std::string> loops,
                              ArrayRef<int64_t> sizes, bool perBlock) {
  iterations = 1;
  for (int64_t size : sizes)
    iterations *= size;
  maxIndex = std::max(maxIndex, iterations);
  blockPerIteration = perBlock;
  if (perBlock)
    line("for (nn_index t = blockIdx.x; t < " + std::to_string(iterations) +
         "; t += gridDim.x) {");
  else
    line("for (nn_index t = (nn_index)blockIdx.x * blockDim.x + threadIdx.x; "
         "t < " +
         std::to_string(iterations) +
         "; t += (nn_index)gridDim.x * blockDim.x) {");
  indent += 2;
  unflatten("t", loops, sizes);
}

void KernelWriter::unflatten(StringRef flat, ArrayRef<std::string> loops,
                             ArrayRef<int64_t> sizes) {
  if (loops.empty())
    return;
  if (loops.size() == 1) {
    line("const nn_index " + loops[0] + " = " + flat.str() + ";");
    return;
  }
  std::string rest = "rest_" + flat.str();
  line("nn_index " + rest + " = " + flat.str() + ";");
  for (size_t i = loops.size(); i-- > 1;) {
    line("const nn_index " + loops[i] + " = " + rest + " % " +
         std::to_string(sizes[i]) + ";");
    line(rest + " /= " + std::to_string(sizes[i]) + ";");
  }
  line("const nn_index " + loops[0] + " = " + rest + ";");
}

void KernelWriter::closeKernel() {
  indent -= 2;
  line("}");
  std::string params;
  for (auto [i, buffer] : llvm::enumerate(buffers))
    params += llvm::formatv(
        "  {0} *p{1};\n",
        cType(cast<MemRefType>(buffer.getType()).getElementType()), i);
  std::string indexType = maxIndex < (int64_t{1} << 31) ? "int" : "long long";
  source = llvm::formatv(R"cuda(
struct {0}_params {{
{1}};

extern "C" __global__ void __launch_bounds__({2}) {0}(const {0}_params p) {{
  typedef {3} nn_index;
{4}}

#ifdef NN_CUDA_EMULATION
extern "C" const unsigned long {0}_params_bytes = sizeof({0}_params);
extern "C" void {0}_emulated(const void *params, unsigned grid, unsigned block) {{
  const {0}_params p = *static_cast<const {0}_params *>(params);
  {5}(grid, block, [&] {{ {0}(p); });
}
#endif
)cuda",
                         name, params, kBlockSize, indexType, body,
                         blockPerIteration ? "nn_emulate_block_launch"
                                           : "nn_emulate_launch")
               .str();
}

FailureOr<std::string> KernelWriter::operand(Value value) {
  if (auto it = names.find(value); it != names.end())
    return it->second;
  // Scalars defined outside the payload: constants, folded in.
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    if (failed(writePayloadOp(constant)))
      return failure();
    return names.lookup(value);
  }
  return op->emitOpError("uses a value defined outside it that is not a "
                         "constant: ")
         << value;
}

LogicalResult KernelWriter::writePayloadOp(Operation *payloadOp) {
  if (payloadOp->getNumResults() != 1)
    return payloadOp->emitOpError("has no CUDA C++ form (in a kernel's "
                                  "payload)");
  Value result = payloadOp->getResult(0);
  Type type = result.getType();
  std::string resultType = cType(type);
  if (resultType.empty())
    return payloadOp->emitOpError("computes ")
           << type << ", which CUDA kernels do not take";
  SmallVector<std::string> args;
  for (Value v : payloadOp->getOperands()) {
    if (isa<MemRefType>(v.getType()))
      continue;
    FailureOr<std::string> arg = operand(v);
    if (failed(arg))
      return failure();
    args.push_back(*arg);
  }
  bool isF64 = type.isF64() || (payloadOp->getNumOperands() > 0 &&
                                payloadOp->getOperand(0).getType().isF64());
  // math's unary and binary functions: C's f32 name or f64 name.
  auto call = [&](StringRef f32) -> std::string {
    std::string fn = isF64 ? f32.drop_back().str() : f32.str();
    return fn + "(" + llvm::join(args, ", ") + ")";
  };
  // The prelude's helpers, which have no f64 spelling of their own.
  auto helper = [&](StringRef fn) {
    return fn.str() + "(" + llvm::join(args, ", ") + ")";
  };
  auto infix = [&](StringRef symbol) {
    return "(" + args[0] + " " + symbol.str() + " " + args[1] + ")";
  };
  auto asUnsigned = [&](unsigned i) {
    return "(" + unsignedType(payloadOp->getOperand(i).getType()) + ")" +
           args[i];
  };
  if (llvm::any_of(payloadOp->getOperandTypes(),
                   [](Type t) { return t.isF16() || t.isBF16(); }) &&
      !isa<arith::ExtFOp, arith::BitcastOp>(payloadOp))
    return payloadOp->emitOpError("computes in ")
           << payloadOp->getOperand(0).getType()
           << ": CUDA kernels compute f16 and bf16 in f32 (extend first)";
  if ((type.isF16() || type.isBF16()) &&
      !isa<arith::TruncFOp, arith::BitcastOp, arith::ConstantOp,
           memref::LoadOp>(payloadOp))
    return payloadOp->emitOpError("computes ")
           << type << ": CUDA kernels compute f16 and bf16 in f32";

  FailureOr<std::string> expr =
      llvm::TypeSwitch<Operation *, FailureOr<std::string>>(payloadOp)
          .Case([&](arith::ConstantOp c) -> FailureOr<std::string> {
            if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
              if (type.isF16() || type.isBF16())
                return "(" + resultType + ")" +
                       std::to_string(
                           f.getValue().bitcastToAPInt().getZExtValue());
              return floatLiteral(f.getValue(), type);
            }
            if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
              if (type.isInteger(1))
                return std::string(i.getValue().isZero() ? "false" : "true");
              if (i.getValue().isMinSignedValue() &&
                  i.getValue().getBitWidth() == 64)
                return std::string("(-9223372036854775807LL - 1)");
              return "(" + resultType + ")" +
                     std::to_string(i.getValue().getSExtValue()) + "LL";
            }
            return failure();
          })
          .Case<arith::AddFOp, arith::AddIOp>(
              [&](Operation *) { return infix("+"); })
          .Case<arith::SubFOp, arith::SubIOp>(
              [&](Operation *) { return infix("-"); })
          .Case<arith::MulFOp, arith::MulIOp>(
              [&](Operation *) { return infix("*"); })
          .Case<arith::DivFOp, arith::DivSIOp>(
              [&](Operation *) { return infix("/"); })
          .Case([&](arith::RemFOp) { return call("fmodf"); })
          .Case([&](arith::NegFOp) { return "(-" + args[0] + ")"; })
          .Case([&](arith::MaximumFOp) { return helper("nn_maximumf"); })
          .Case([&](arith::MinimumFOp) { return helper("nn_minimumf"); })
          .Case([&](arith::MaxNumFOp) { return call("fmaxf"); })
          .Case([&](arith::MinNumFOp) { return call("fminf"); })
          .Case([&](arith::RemSIOp) { return infix("%"); })
          .Case([&](arith::DivUIOp) {
            return "(" + asUnsigned(0) + " / " + asUnsigned(1) + ")";
          })
          .Case([&](arith::RemUIOp) {
            return "(" + asUnsigned(0) + " % " + asUnsigned(1) + ")";
          })
          .Case([&](arith::FloorDivSIOp) { return helper("nn_floordiv"); })
          .Case([&](arith::CeilDivSIOp) { return helper("nn_ceildiv"); })
          .Case([&](arith::AndIOp) { return infix("&"); })
          .Case([&](arith::OrIOp) { return infix("|"); })
          .Case([&](arith::XOrIOp) { return infix("^"); })
          .Case([&](arith::ShLIOp) { return infix("<<"); })
          .Case([&](arith::ShRSIOp) { return infix(">>"); })
          .Case([&](arith::ShRUIOp) {
            return "(" + asUnsigned(0) + " >> " + args[1] + ")";
          })
          .Case([&](arith::MaxSIOp) {
            return "(" + args[0] + " > " + args[1] + " ? " + args[0] + " : " +
                   args[1] + ")";
          })
          .Case([&](arith::MinSIOp) {
            return "(" + args[0] + " < " + args[1] + " ? " + args[0] + " : " +
                   args[1] + ")";
          })
          .Case([&](arith::MaxUIOp) {
            return "(" + asUnsigned(0) + " > " + asUnsigned(1) + " ? " +
                   args[0] + " : " + args[1] + ")";
          })
          .Case([&](arith::MinUIOp) {
            return "(" + asUnsigned(0) + " < " + asUnsigned(1) + " ? " +
                   args[0] + " : " + args[1] + ")";
          })
          .Case([&](arith::SelectOp) {
            return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
          })
          .Case([&](arith::CmpFOp cmp) -> FailureOr<std::string> {
            const std::string &a = args[0], &b = args[1];
            using P = arith::CmpFPredicate;
            switch (cmp.getPredicate()) {
            case P::AlwaysFalse:
              return std::string("false");
            case P::AlwaysTrue:
              return std::string("true");
            case P::OEQ:
              return "(" + a + " == " + b + ")";
            case P::OGT:
              return "(" + a + " > " + b + ")";
            case P::OGE:
              return "(" + a + " >= " + b + ")";
            case P::OLT:
              return "(" + a + " < " + b + ")";
            case P::OLE:
              return "(" + a + " <= " + b + ")";
            case P::ONE:
              return "(" + a + " < " + b + " || " + a + " > " + b + ")";
            case P::ORD:
              return "(" + a + " == " + a + " && " + b + " == " + b + ")";
            case P::UEQ:
              return "!(" + a + " < " + b + " || " + a + " > " + b + ")";
            case P::UGT:
              return "!(" + a + " <= " + b + ")";
            case P::UGE:
              return "!(" + a + " < " + b + ")";
            case P::ULT:
              return "!(" + a + " >= " + b + ")";
            case P::ULE:
              return "!(" + a + " > " + b + ")";
            case P::UNE:
              return "(" + a + " != " + b + ")";
            case P::UNO:
              return "(" + a + " != " + a + " || " + b + " != " + b + ")";
            }
            return failure();
          })
          .Case([&](arith::CmpIOp cmp) -> FailureOr<std::string> {
            using P = arith::CmpIPredicate;
            switch (cmp.getPredicate()) {
            case P::eq:
              return infix("==");
            case P::ne:
              return infix("!=");
            case P::slt:
              return infix("<");
            case P::sle:
              return infix("<=");
            case P::sgt:
              return infix(">");
            case P::sge:
              return infix(">=");
            case P::ult:
              return "(" + asUnsigned(0) + " < " + asUnsigned(1) + ")";
            case P::ule:
              return "(" + asUnsigned(0) + " <= " + asUnsigned(1) + ")";
            case P::ugt:
              return "(" + asUnsigned(0) + " > " + asUnsigned(1) + ")";
            case P::uge:
              return "(" + asUnsigned(0) + " >= " + asUnsigned(1) + ")";
            }
            return failure();
          })
          .Case([&](arith::ExtFOp) -> std::string {
            Type from = payloadOp->getOperand(0).getType();
            if (from.isBF16())
              return "nn_bf16_to_f32(" + args[0] + ")";
            if (from.isF16())
              return "nn_f16_to_f32(" + args[0] + ")";
            return "(" + resultType + ")" + args[0];
          })
          .Case([&](arith::TruncFOp) -> std::string {
            if (type.isBF16())
              return "nn_f32_to_bf16(" + args[0] + ")";
            if (type.isF16())
              return "nn_f32_to_f16(" + args[0] + ")";
            return "(" + resultType + ")" + args[0];
          })
          .Case([&](arith::ExtSIOp) -> std::string {
            if (payloadOp->getOperand(0).getType().isInteger(1))
              return "(" + args[0] + " ? -1 : 0)";
            return "(" + resultType + ")" + args[0];
          })
          .Case([&](arith::ExtUIOp) {
            return "(" + resultType + ")" + asUnsigned(0);
          })
          .Case([&](arith::UIToFPOp) {
            return "(" + resultType + ")" + asUnsigned(0);
          })
          .Case([&](arith::IndexCastUIOp) {
            return "(" + resultType + ")" + asUnsigned(0);
          })
          .Case<arith::TruncIOp, arith::SIToFPOp, arith::FPToSIOp,
                arith::FPToUIOp, arith::IndexCastOp>(
              [&](Operation *) { return "(" + resultType + ")" + args[0]; })
          .Case([&](arith::BitcastOp) -> std::string {
            Type from = payloadOp->getOperand(0).getType();
            if (from.isF32())
              return "(" + resultType + ")nn_f32_bits(" + args[0] + ")";
            if (type.isF32())
              return "nn_f32_from_bits((unsigned int)" + args[0] + ")";
            if (from.isF64())
              return "(" + resultType + ")nn_f64_bits(" + args[0] + ")";
            if (type.isF64())
              return "nn_f64_from_bits((unsigned long long)" + args[0] + ")";
            return "(" + resultType + ")" + args[0];
          })
          .Case([&](math::ExpOp) { return call("expf"); })
          .Case([&](math::Exp2Op) { return call("exp2f"); })
          .Case([&](math::ExpM1Op) { return call("expm1f"); })
          .Case([&](math::LogOp) { return call("logf"); })
          .Case([&](math::Log1pOp) { return call("log1pf"); })
          .Case([&](math::Log2Op) { return call("log2f"); })
          .Case([&](math::Log10Op) { return call("log10f"); })
          .Case([&](math::TanhOp) { return call("tanhf"); })
          .Case([&](math::SinhOp) { return call("sinhf"); })
          .Case([&](math::CoshOp) { return call("coshf"); })
          .Case([&](math::SinOp) { return call("sinf"); })
          .Case([&](math::CosOp) { return call("cosf"); })
          .Case([&](math::TanOp) { return call("tanf"); })
          .Case([&](math::AsinOp) { return call("asinf"); })
          .Case([&](math::AcosOp) { return call("acosf"); })
          .Case([&](math::AtanOp) { return call("atanf"); })
          .Case([&](math::Atan2Op) { return call("atan2f"); })
          .Case([&](math::ErfOp) { return call("erff"); })
          .Case([&](math::SqrtOp) { return call("sqrtf"); })
          .Case([&](math::CbrtOp) { return call("cbrtf"); })
          // 1/sqrt as the CPU path computes it (CUDA's rsqrtf is 2 ulp).
          .Case([&](math::RsqrtOp) {
            return std::string(isF64 ? "(1.0 / " : "(1.0f / ") + call("sqrtf") +
                   ")";
          })
          .Case([&](math::PowFOp) { return call("powf"); })
          .Case([&](math::AbsFOp) { return call("fabsf"); })
          .Case([&](math::CeilOp) { return call("ceilf"); })
          .Case([&](math::FloorOp) { return call("floorf"); })
          .Case([&](math::RoundOp) { return call("roundf"); })
          .Case([&](math::RoundEvenOp) { return call("rintf"); })
          .Case([&](math::TruncOp) { return call("truncf"); })
          .Case([&](math::FmaOp) { return call("fmaf"); })
          .Case([&](math::CopySignOp) { return call("copysignf"); })
          .Case([&](math::AbsIOp) {
            return "(" + args[0] + " < 0 ? -" + args[0] + " : " + args[0] + ")";
          })
          .Case([&](linalg::IndexOp index) -> FailureOr<std::string> {
            if (index.getDim() >= dims.size())
              return failure();
            return dims[index.getDim()];
          })
          .Case([&](memref::LoadOp load) -> FailureOr<std::string> {
            SmallVector<std::string> indices;
            for (Value i : load.getIndices()) {
              FailureOr<std::string> index = operand(i);
              if (failed(index))
                return failure();
              indices.push_back(*index);
            }
            return element(load.getMemRef(), indices);
          })
          .Default([](Operation *) { return failure(); });
  if (failed(expr))
    return payloadOp->emitOpError("has no CUDA C++ form (in a kernel's "
                                  "payload)");
  std::string value = fresh();
  line("const " + resultType + " " + value + " = " + *expr + ";");
  names[result] = value;
  return success();
}

LogicalResult KernelWriter::writeLinalg(linalg::LinalgOp linalgOp,
                                        linalg::FillOp filled) {
  if (!linalgOp.hasPureBufferSemantics())
    return op->emitOpError("is on tensors: CUDA kernels are emitted after "
                           "bufferization");
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op->emitOpError("has a dynamic iteration space: CUDA kernels are "
                           "emitted for static ones");
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  SmallVector<std::string> parallel, reduction;
  SmallVector<int64_t> parallelSizes, reductionSizes;
  for (auto [i, iterator] : llvm::enumerate(iterators)) {
    dims.push_back("d" + std::to_string(i));
    if (iterator == utils::IteratorType::parallel) {
      parallel.push_back(dims.back());
      parallelSizes.push_back(ranges[i]);
    } else {
      reduction.push_back(dims.back());
      reductionSizes.push_back(ranges[i]);
    }
  }
  if (llvm::any_of(linalgOp.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return op->emitOpError("indexes with symbols, which CUDA kernels do not "
                           "take");
  Block *payload = linalgOp.getBlock();
  auto yield = cast<linalg::YieldOp>(payload->getTerminator());
  // A reduction of kBlockSize points or more, over fewer output points than
  // kMaxBlockReductionPoints, whose accumulators only fold values in is
  // shared by a block per output point: each thread folds a strided share
  // into a partial from the fold's identity, then the block combines the
  // partials in shared memory, and thread 0 folds their total into the
  // output. Otherwise each thread reduces its point alone.
  int64_t reductionPoints = 1, outputPoints = 1;
  for (int64_t size : reductionSizes)
    reductionPoints *= size;
  for (int64_t size : parallelSizes)
    outputPoints *= size;
  SmallVector<Operation *> combiners;
  if (!reduction.empty() && reductionPoints >= kBlockSize &&
      outputPoints < kMaxBlockReductionPoints) {
    for (auto [init, yielded] :
         llvm::zip(linalgOp.getDpsInitsMutable(), yield.getValues())) {
      Operation *combiner =
          combinerOf(linalgOp.getMatchingBlockArgument(&init), yielded);
      if (!combiner) {
        combiners.clear();
        break;
      }
      combiners.push_back(combiner);
    }
  }
  const bool perBlock = !combiners.empty();
  maxIndex = std::max(maxIndex, reductionPoints);
  openKernel(parallel, parallelSizes, perBlock);

  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  // An operand's element, at the thread's (and the reduction loop's) point.
  auto at = [&](OpOperand &opOperand) -> FailureOr<std::string> {
    AffineMap map = maps[opOperand.getOperandNumber()];
    SmallVector<std::string> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(affine(e));
    return element(opOperand.get(), indices);
  };
  // Whether an operand's element changes along the reduction loop.
  auto variesInReduction = [&](OpOperand &opOperand) {
    AffineMap map = maps[opOperand.getOperandNumber()];
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction && map.isFunctionOfDim(i))
        return true;
    return false;
  };
  auto load = [&](OpOperand &opOperand) -> LogicalResult {
    BlockArgument arg = linalgOp.getMatchingBlockArgument(&opOperand);
    if (!isa<MemRefType>(opOperand.get().getType())) {
      // A scalar input (linalg.fill's value).
      FailureOr<std::string> value = operand(opOperand.get());
      if (failed(value))
        return failure();
      names[arg] = *value;
      return success();
    }
    FailureOr<std::string> element = at(opOperand);
    if (failed(element))
      return failure();
    if (arg.use_empty())
      return success();
    std::string value = fresh();
    line("const " + cType(arg.getType()) + " " + value + " = " + *element +
         ";");
    names[arg] = value;
    return success();
  };

  // Threads run in any order: a buffer both read and written must be read
  // where it is written (bufferization makes ops in place only so).
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (input->get() == init.get() &&
          maps[input->getOperandNumber()] != maps[init.getOperandNumber()])
        return op->emitOpError("reads and writes the same buffer through "
                               "different indexing maps: its threads would "
                               "race");

  // Inputs read once per thread, then the accumulators.
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (!variesInReduction(*input) && failed(load(*input)))
      return failure();
  // The accumulators o<i>; for a block, each thread's partial o<i> starts
  // from its fold's identity and the output's start i<i> waits for the end.
  SmallVector<std::string> accumulators, starts;
  for (auto [i, init] : llvm::enumerate(linalgOp.getDpsInitsMutable())) {
    if (variesInReduction(init))
      return op->emitOpError("writes an output along a reduction dimension, "
                             "which CUDA kernels do not do");
    FailureOr<std::string> element = at(init);
    if (failed(element))
      return failure();
    BlockArgument arg = linalgOp.getMatchingBlockArgument(&init);
    std::string type = cType(arg.getType());
    std::string acc = "o" + std::to_string(i);
    std::string start;
    if (filled && init.get() == filled.getOutputs()[0]) {
      // The fill's value, not what it would have written.
      FailureOr<std::string> value = operand(filled.getInputs()[0]);
      if (failed(value))
        return failure();
      start = *value;
    } else if (!reduction.empty() || !arg.use_empty()) {
      start = *element;
    }
    if (perBlock) {
      starts.push_back("i" + std::to_string(i));
      line("const " + type + " " + starts.back() + " = " + start + ";");
      line(type + " " + acc + " = " + identityOf(combiners[i]) + ";");
    } else {
      line(type + " " + acc + (start.empty() ? "" : " = " + start) + ";");
    }
    names[arg] = acc;
    accumulators.push_back(acc);
  }
  if (perBlock) {
    line("for (nn_index r = threadIdx.x; r < " +
         std::to_string(reductionPoints) + "; r += blockDim.x) {");
    indent += 2;
    unflatten("r", reduction, reductionSizes);
  } else {
    for (auto [loop, size] : llvm::zip(reduction, reductionSizes)) {
      line("for (nn_index " + loop + " = 0; " + loop + " < " +
           std::to_string(size) + "; ++" + loop + ") {");
      indent += 2;
    }
  }
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (variesInReduction(*input) && failed(load(*input)))
      return failure();
  for (Operation &payloadOp : payload->without_terminator())
    if (failed(writePayloadOp(&payloadOp)))
      return failure();
  for (auto [acc, value] : llvm::zip(accumulators, yield.getValues())) {
    FailureOr<std::string> yielded = operand(value);
    if (failed(yielded))
      return failure();
    line(acc + " = " + *yielded + ";");
  }
  for (size_t i = 0; i < (perBlock ? 1 : reduction.size()); ++i) {
    indent -= 2;
    line("}");
  }
  if (perBlock) {
    // The partials combined in halves, then folded into the output's
    // start by thread 0; the last barrier lets the next point reuse the
    // shared sums.
    SmallVector<std::string> shared;
    for (auto [i, init] : llvm::enumerate(linalgOp.getDpsInitsMutable())) {
      shared.push_back("s" + std::to_string(i));
      line("__shared__ " +
           cType(linalgOp.getMatchingBlockArgument(&init).getType()) + " " +
           shared.back() + "[" + std::to_string(kBlockSize) + "];");
      line(shared.back() + "[threadIdx.x] = " + accumulators[i] + ";");
    }
    line("__syncthreads();");
    line("for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {");
    indent += 2;
    line("if (threadIdx.x < half) {");
    indent += 2;
    for (auto [s, combiner] : llvm::zip(shared, combiners)) {
      FailureOr<std::string> sum =
          combine(combiner, s + "[threadIdx.x]", s + "[threadIdx.x + half]");
      if (failed(sum))
        return failure();
      line(s + "[threadIdx.x] = " + *sum + ";");
    }
    indent -= 2;
    line("}");
    line("__syncthreads();");
    indent -= 2;
    line("}");
    line("if (threadIdx.x == 0) {");
    indent += 2;
    for (auto [i, init] : llvm::enumerate(linalgOp.getDpsInitsMutable())) {
      FailureOr<std::string> total =
          combine(combiners[i], starts[i], shared[i] + "[0]");
      if (failed(total))
        return failure();
      line(*at(init) + " = " + *total + ";");
    }
    indent -= 2;
    line("}");
    line("__syncthreads();");
  } else {
    for (auto [acc, init] :
         llvm::zip(accumulators, linalgOp.getDpsInitsMutable()))
      line(*at(init) + " = " + acc + ";");
  }
  closeKernel();
  return success();
}

FailureOr<std::string> KernelWriter::combine(Operation *combiner,
                                             const std::string &a,
                                             const std::string &b) {
  Value lhs = combiner->getOperand(0), rhs = combiner->getOperand(1);
  Value result = combiner->getResult(0);
  std::string oldLhs = names.lookup(lhs), oldRhs = names.lookup(rhs),
              oldResult = names.lookup(result);
  names[lhs] = a;
  names[rhs] = b;
  LogicalResult written = writePayloadOp(combiner);
  std::string sum = names.lookup(result);
  names[lhs] = oldLhs;
  names[rhs] = oldRhs;
  names[result] = oldResult;
  if (failed(written))
    return failure();
  return sum;
}

LogicalResult KernelWriter::writeCopy(memref::CopyOp copy) {
  FailureOr<Layout> target = staticLayout(op, copy.getTarget());
  if (failed(target))
    return failure();
  for (size_t i = 0; i < target->shape.size(); ++i)
    dims.push_back("d" + std::to_string(i));
  openKernel(dims, target->shape);
  FailureOr<std::string> from = element(copy.getSource(), dims);
  if (failed(from))
    return failure();
  FailureOr<std::string> to = element(copy.getTarget(), dims);
  if (failed(to))
    return failure();
  line(*to + " = " + *from + ";");
  closeKernel();
  return success();
}

/// Whether the op after `fill` is a linalg op that writes every element of
/// the filled buffer as its output, starting from the filled value (a
/// reduction's accumulator): it then starts from the fill's value itself,
/// and the fill is no kernel of its own. Softmax and the normalizations'
/// statistics save a launch and a pass over the buffer per reduction.
bool overwrittenNext(linalg::FillOp fill) {
  auto next = dyn_cast_or_null<linalg::LinalgOp>(fill->getNextNode());
  Value buffer = fill.getOutputs()[0];
  if (!next || !next.hasPureBufferSemantics() ||
      !fill.getInputs()[0].getDefiningOp<arith::ConstantOp>())
    return false;
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return false;
  // Read only as the accumulator: as an input, its other elements would
  // be read filled.
  for (OpOperand *input : next.getDpsInputOperands())
    if (input->get() == buffer)
      return false;
  SmallVector<int64_t> ranges = next.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  int64_t parallelPoints = 1;
  for (auto [range, iterator] : llvm::zip(ranges, next.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      parallelPoints *= range;
  for (OpOperand &init : next.getDpsInitsMutable())
    if (init.get() == buffer)
      // A projected permutation over as many points as the buffer has
      // elements writes each once.
      return next.getMatchingIndexingMap(&init).isProjectedPermutation() &&
             parallelPoints == type.getNumElements();
  return false;
}

/// Builds one function's kernels and plan.
class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, std::string &source)
      : func(func), source(source) {
    plan.function = func.getSymName().str();
  }

  LogicalResult build();
  LaunchPlan plan;

private:
  /// The plan buffer `memref` is a view of.
  FailureOr<unsigned> bufferOf(Operation *user, Value memref);
  /// Appends `writer`'s kernel to the source and its launch to the plan.
  LogicalResult launch(Operation *op, KernelWriter &writer);

  func::FuncOp func;
  std::string &source;
  DenseMap<Value, unsigned> roots;
};

FailureOr<unsigned> PlanBuilder::bufferOf(Operation *user, Value memref) {
  if (auto it = roots.find(memref); it != roots.end())
    return it->second;
  return user->emitOpError("uses ")
         << memref << ", which is neither an argument nor an allocation";
}

LogicalResult PlanBuilder::launch(Operation *op, KernelWriter &writer) {
  PlanLaunch launch;
  launch.kernel = writer.name;
  for (Value buffer : writer.buffers) {
    FailureOr<unsigned> index = bufferOf(op, buffer);
    if (failed(index))
      return failure();
    launch.buffers.push_back(*index);
  }
  launch.iterations = writer.iterations;
  launch.blockPerIteration = writer.blockPerIteration;
  plan.launches.push_back(std::move(launch));
  // State the kernel writes (train-mode batch-norm statistics): a runtime
  // that runs on a copy of the state copies it back.
  SmallVector<Value> written;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      written.push_back(init.get());
  else if (auto copy = dyn_cast<memref::CopyOp>(op))
    written.push_back(copy.getTarget());
  for (Value memref : written) {
    FailureOr<unsigned> index = bufferOf(op, memref);
    if (failed(index))
      return failure();
    const PlanBuffer &buffer = plan.buffers[*index];
    if (buffer.kind != PlanBuffer::Kind::Argument)
      continue;
    if (auto name =
            func.getArgAttrOfType<StringAttr>(buffer.argument, NNAttr::kState);
        name && !llvm::is_contained(plan.writtenState, name.str()))
      plan.writtenState.push_back(name.str());
  }
  source += writer.source;
  return success();
}

LogicalResult PlanBuilder::build() {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("has more than one block: CUDA launch plans are "
                            "straight-line");
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      return func.emitOpError("takes ")
             << arg.getType() << ": CUDA functions take memrefs only";
    if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      NNAttr::kState))
      plan.state.push_back(name.str());
    roots[arg] = plan.buffers.size();
    PlanBuffer &argument = plan.buffers.emplace_back();
    argument.kind = PlanBuffer::Kind::Argument;
    argument.argument = arg.getArgNumber();
    // State the artifact embeds (a non-persistent buffer, --embed-weights):
    // its value, which the runtime uploads when the caller binds none.
    if (auto value = func.getArgAttrOfType<DenseElementsAttr>(
            arg.getArgNumber(), NNAttr::kEmbedded)) {
      argument.data = bytesOf(value);
      argument.bytes = static_cast<int64_t>(argument.data.size());
    }
  }
  unsigned kernelIndex = 0;
  for (Operation &op : func.getBody().front()) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](memref::AllocOp alloc) -> LogicalResult {
              auto type = alloc.getType();
              if (!type.hasStaticShape() || !type.getLayout().isIdentity())
                return alloc.emitOpError("allocates ")
                       << type << ": CUDA launch plans hold static buffers";
              int64_t bytes = elementBytes(type.getElementType());
              if (bytes == 0)
                return alloc.emitOpError("allocates ")
                       << type << ", whose elements CUDA kernels do not take";
              roots[alloc] = plan.buffers.size();
              plan.buffers.push_back({PlanBuffer::Kind::Temporary, 0,
                                      type.getNumElements() * bytes});
              return success();
            })
            .Case([&](memref::GetGlobalOp get) -> LogicalResult {
              auto global =
                  SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
                      get, get.getNameAttr());
              auto value = global ? dyn_cast_or_null<DenseElementsAttr>(
                                        global.getConstantInitValue())
                                  : DenseElementsAttr();
              int64_t bytes = value ? elementBytes(value.getElementType()) : 0;
              if (bytes == 0)
                return get.emitOpError("reads a global that is not a "
                                       "constant CUDA kernels take");
              roots[get] = plan.buffers.size();
              PlanBuffer &constant = plan.buffers.emplace_back();
              constant.kind = PlanBuffer::Kind::Constant;
              constant.bytes = value.getNumElements() * bytes;
              constant.data = bytesOf(value);
              return success();
            })
            .Case<memref::SubViewOp, memref::ExpandShapeOp,
                  memref::CollapseShapeOp, memref::CastOp,
                  memref::ReinterpretCastOp, memref::ReshapeOp>(
                [&](Operation *view) {
                  FailureOr<unsigned> root =
                      bufferOf(view, view->getOperand(0));
                  if (failed(root))
                    return failure();
                  roots[view->getResult(0)] = *root;
                  return success();
                })
            .Case<linalg::LinalgOp, memref::CopyOp>([&](Operation *kernelOp) {
              if (auto fill = dyn_cast<linalg::FillOp>(kernelOp);
                  fill && overwrittenNext(fill))
                return success();
              linalg::FillOp filled = nullptr;
              if (auto previous =
                      dyn_cast_or_null<linalg::FillOp>(kernelOp->getPrevNode());
                  previous && overwrittenNext(previous))
                filled = previous;
              std::string name = plan.function + "_" +
                                 std::to_string(kernelIndex++) +
                                 pathSuffix(kernelOp->getLoc());
              KernelWriter writer(name, kernelOp);
              LogicalResult written =
                  isa<memref::CopyOp>(kernelOp)
                      ? writer.writeCopy(cast<memref::CopyOp>(kernelOp))
                      : writer.writeLinalg(cast<linalg::LinalgOp>(kernelOp),
                                           filled);
              if (failed(written))
                return failure();
              return launch(kernelOp, writer);
            })
            // Scalars the kernels fold in; what the plan frees itself.
            .Case<arith::ConstantOp, memref::DeallocOp,
                  bufferization::DeallocOp, memref::GlobalOp, func::ReturnOp>(
                [](Operation *) { return success(); })
            .Default([](Operation *other) {
              return other->emitOpError("has no CUDA lowering (a CUDA "
                                        "function is allocations, views and "
                                        "kernels)");
            });
    if (failed(result))
      return failure();
  }
  return success();
}

} // namespace

FailureOr<CudaProgram> mlir::nn::cuda::emitCudaProgram(ModuleOp module) {
  CudaProgram program;
  program.source = kPrelude;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    PlanBuilder builder(func, program.source);
    if (failed(builder.build()))
      return failure();
    program.plans.push_back(std::move(builder.plan));
  }
  return program;
}

void mlir::nn::cuda::registerToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "nn-to-cuda",
      "Emit the CUDA C++ kernels and launch plans of bufferized "
      "linalg",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitOpError("is not a module");
        FailureOr<CudaProgram> program = emitCudaProgram(module);
        if (failed(program))
          return failure();
        os << program->source;
        for (const LaunchPlan &plan : program->plans) {
          os << "\n// plan " << plan.function << ":\n";
          for (auto [i, buffer] : llvm::enumerate(plan.buffers)) {
            if (buffer.kind == PlanBuffer::Kind::Argument)
              os << "//   b" << i << " = argument " << buffer.argument << "\n";
            else if (buffer.kind == PlanBuffer::Kind::Constant)
              os << "//   b" << i << " = constant " << buffer.bytes
                 << " bytes\n";
            else
              os << "//   b" << i << " = temporary " << buffer.bytes
                 << " bytes\n";
          }
          for (const PlanLaunch &launch : plan.launches) {
            os << "//   " << launch.kernel << "<<<" << launch.gridSize() << ", "
               << kBlockSize << ">>>(";
            llvm::interleaveComma(launch.buffers, os,
                                  [&](unsigned b) { os << "b" << b; });
            os << ")\n";
          }
          if (!plan.writtenState.empty()) {
            os << "//   writes state: ";
            llvm::interleaveComma(plan.writtenState, os);
            os << "\n";
          }
        }
        return success();
      },
      [](DialectRegistry &registry) { registerCodegenDialects(registry); });
}
