//===- ConvolutionVJP.cpp - Gradients of convolution and pooling ----------===//
//
// Convolution differentiates into convolutions, as cuDNN's backward does:
//
//   dx = conv_transpose(dy, weight)   (same stride, padding, dilation and
//                                      groups; output_padding restoring x's
//                                      size)
//   dweight = conv(x regrouped [C_in/g, g·N, H, W],
//                  dy as weight [C_out, N, OH, OW],
//                  stride = dilation, dilation = stride, groups = g),
//             cropped to the kernel and transposed back
//   dbias = Σ dy over N and the spatial dims
//
// Over many output positions dweight is one GEMM over windows of the input's
// rows instead (see convWeightGradWindows), and a strided convolution's dx
// is the offsets' parts of one 1x1 convolution put back on the stride's
// phases (convInputGradScattered), without the transposed convolution's
// zero insertion.
//
// A 1-D convolution is lifted to 2-D (a unit height); 3-D differentiates
// the same way, one more spatial dimension in every step. Pooling spreads each
// output's gradient back over its window (one part per kernel offset, the
// parts summed on the stride's phases: scatterOffsets): to every element
// for average pooling (divided as the forward divided), to the first
// maximum of the window (row-major scan, as PyTorch) for max pooling, in
// any number of spatial dimensions; adaptive average pooling
// and interpolation are constant matrices, one per spatial dimension
// (Aₕᵀ·dy·A_w in 2-D).
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::nn;

namespace {

/// `v` [N, C, L] as [N, C, 1, L] (unchanged when 2-D or 3-D spatial).
Value lift(GradBuilder &g, Value v) {
  ArrayRef<int64_t> s = shapeOf(v);
  if (s.size() != 3)
    return v;
  return g.reshape(v, {s[0], s[1], 1, s[2]});
}

/// A 1-D window attribute as 2-D, the height's entry `unit` (unchanged
/// when `rank` is 2 or 3).
SmallVector<int64_t> lift(ArrayRef<int64_t> values, int64_t rank,
                          int64_t unit) {
  if (rank != 1)
    return SmallVector<int64_t>(values);
  if (values.size() == 2) // [lo, hi]
    return {unit, values[0], unit, values[1]};
  return {unit, values[0]};
}

/// A padding attribute's entries: all low sides, then all high sides.
SmallVector<int64_t> lowHigh(ArrayRef<int64_t> lo, ArrayRef<int64_t> hi) {
  SmallVector<int64_t> both(lo);
  llvm::append_range(both, hi);
  return both;
}

/// An nn.conv of `input` by `weight` (no bias) with a result of `shape` in
/// the input's element type; `padding` holds the low sides, then the high.
Value convolution(GradBuilder &g, ArrayRef<int64_t> shape, Value input,
                  Value weight, ArrayRef<int64_t> stride,
                  ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                  int64_t groups) {
  OpBuilder &b = g.builder();
  auto type = RankedTensorType::get(
      shape, llvm::cast<RankedTensorType>(input.getType()).getElementType());
  return b.create<ConvOp>(
      g.location(), type, input, weight, Value(),
      b.getDenseI64ArrayAttr(stride), b.getDenseI64ArrayAttr(padding),
      b.getDenseI64ArrayAttr(dilation), b.getI64IntegerAttr(groups));
}

/// A pooling or convolution window's geometry along one spatial dim.
struct Window {
  int64_t in, out, kernel, stride, padLow, padHigh, dilation;
  /// The padded length every window fits in.
  int64_t canvas() const {
    return std::max(in + padLow + padHigh,
                    (out - 1) * stride + dilation * (kernel - 1) + 1);
  }
};

/// Elements k·dilation, k·dilation + stride, ... (out of them) of `x`
/// along `dim`: kernel offset k of every window.
Value offsetView(GradBuilder &g, Value x, int64_t dim, const Window &w,
                 int64_t k) {
  int64_t start = k * w.dilation;
  return g.slice(x, dim, start, start + (w.out - 1) * w.stride + 1, w.stride);
}

/// Each spatial dimension's window of a pooling op: `kernel`, `stride`,
/// `padding` and `dilation` hold one entry per dimension of `x` after N and
/// C; `y` is the pooled result.
SmallVector<Window> windowsOf(Value x, Value y, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> padding,
                              ArrayRef<int64_t> dilation) {
  ArrayRef<int64_t> xs = shapeOf(x), ys = shapeOf(y);
  SmallVector<Window> windows;
  for (size_t i = 0; i < kernel.size(); ++i)
    windows.push_back({xs[2 + i], ys[2 + i], kernel[i], stride[i], padding[i],
                       padding[i], dilation.empty() ? 1 : dilation[i]});
  return windows;
}

/// Calls `body` with every offset of a kernel of sizes `kernel` (row-major:
/// the last dimension fastest, PyTorch's scan order).
void forEachOffset(ArrayRef<int64_t> kernel,
                   function_ref<void(ArrayRef<int64_t>)> body) {
  SmallVector<int64_t> k(kernel.size(), 0);
  for (;;) {
    body(k);
    int64_t d = static_cast<int64_t>(kernel.size()) - 1;
    for (; d >= 0; --d) {
      if (++k[d] < kernel[d])
        break;
      k[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// forEachOffset over the offsets of a pooling op's windows.
void forEachOffset(ArrayRef<Window> windows,
                   function_ref<void(ArrayRef<int64_t>)> body) {
  SmallVector<int64_t> kernel;
  for (const Window &w : windows)
    kernel.push_back(w.kernel);
  forEachOffset(kernel, body);
}

/// offsetView in every spatial dimension: offset `k` of each window.
Value offsetView(GradBuilder &g, Value x, ArrayRef<Window> windows,
                 ArrayRef<int64_t> k) {
  for (size_t i = 0; i < windows.size(); ++i)
    x = offsetView(g, x, 2 + i, windows[i], k[i]);
  return x;
}

/// The inverse of offsetView, summed over the kernel's offsets: each
/// `parts[k]` (per window, [N, C, out...]) put back at offset k of every
/// window of the unpadded input, as a pooling op's gradient. Built on the
/// stride's phases rather than offset by offset: offset k lands on canvas
/// positions k·dilation + stride·o, which is phase (k·dilation mod stride)
/// at o + (k·dilation div stride) of a grid `stride` times coarser. So
/// each phase is a sum of the parts that land on it, each shifted on the
/// coarse grid (output-sized tensors), and the phases interleave once into
/// the canvas, which is cropped to the input: one input-sized result where
/// scattering offset by offset made one (zeros mostly) per offset.
/// Within a phase the parts are added in offset order; no position gets a
/// part of another phase, so the sums are those of adding offset by
/// offset.
Value scatterOffsets(GradBuilder &g, ArrayRef<Window> windows,
                     ArrayRef<std::pair<SmallVector<int64_t>, Value>> parts) {
  size_t rank = windows.size();
  // Per dim: the coarse grid's length, which holds every shifted part and,
  // interleaved, the canvas.
  SmallVector<int64_t> grid;
  for (const Window &w : windows) {
    int64_t lastShift = (w.kernel - 1) * w.dilation / w.stride;
    grid.push_back(
        std::max((w.canvas() + w.stride - 1) / w.stride, w.out + lastShift));
  }
  std::map<SmallVector<int64_t>, Value> phases;
  for (const auto &[k, part] : parts) {
    // N and C unpadded.
    SmallVector<int64_t> phase, lo = {0, 0}, hi = {0, 0};
    for (size_t i = 0; i < rank; ++i) {
      const Window &w = windows[i];
      int64_t at = k[i] * w.dilation, shift = at / w.stride;
      phase.push_back(at % w.stride);
      lo.push_back(shift);
      hi.push_back(grid[i] - w.out - shift);
    }
    Value shifted = g.pad(part, lo, hi, 0.0);
    Value &sum = phases[phase];
    sum = sum ? g.add(sum, shifted) : shifted;
  }
  Value like = parts.front().second;
  // Phases of dims [0, i) fixed by `phase`: dims >= i interleaved.
  std::function<Value(size_t, SmallVector<int64_t> &)> interleave =
      [&](size_t i, SmallVector<int64_t> &phase) -> Value {
    if (i == rank) {
      if (auto it = phases.find(phase); it != phases.end())
        return it->second;
      SmallVector<int64_t> shape(shapeOf(like).take_front(2));
      llvm::append_range(shape, grid);
      return g.filled(like, shape, 0.0);
    }
    int64_t stride = windows[i].stride, dim = 2 + i;
    SmallVector<Value> planes;
    for (int64_t p = 0; p < stride; ++p) {
      phase.push_back(p);
      Value plane = interleave(i + 1, phase);
      phase.pop_back();
      SmallVector<int64_t> column(shapeOf(plane));
      column.insert(column.begin() + dim + 1, 1);
      planes.push_back(stride == 1 ? plane : g.reshape(plane, column));
    }
    if (stride == 1)
      return planes.front();
    SmallVector<int64_t> joined(shapeOf(planes.front()));
    joined.erase(joined.begin() + dim + 1);
    joined[dim] *= stride;
    return g.reshape(g.cat(planes, dim + 1), joined);
  };
  SmallVector<int64_t> phase;
  Value canvas = interleave(0, phase);
  for (size_t i = 0; i < rank; ++i)
    canvas = g.slice(canvas, 2 + i, windows[i].padLow,
                     windows[i].padLow + windows[i].in);
  return canvas;
}

/// The row-major constant of `shape` holding `values`, `like`'s element
/// type.
Value constantOf(GradBuilder &g, Value like, ArrayRef<int64_t> shape,
                 ArrayRef<double> values) {
  Type element = llvm::cast<RankedTensorType>(like.getType()).getElementType();
  auto type = RankedTensorType::get(shape, element);
  SmallVector<Attribute> attrs;
  for (double v : values)
    attrs.push_back(g.builder().getFloatAttr(element, v));
  return g.builder().create<arith::ConstantOp>(
      g.location(), DenseElementsAttr::get(type, attrs));
}

/// The [out, in] matrix of adaptive average pooling along one dim: row i
/// averages [floor(i·in/out), ceil((i+1)·in/out)).
Value adaptiveMatrix(GradBuilder &g, Value like, int64_t out, int64_t in) {
  SmallVector<double> values(out * in, 0.0);
  for (int64_t i = 0; i < out; ++i) {
    auto [start, end] = adaptivePoolWindow(i, in, out);
    for (int64_t j = start; j < end; ++j)
      values[i * in + j] = 1.0 / double(end - start);
  }
  return constantOf(g, like, {out, in}, values);
}

/// The gradient of the weight (shaped `weightShape`) of a convolution of
/// `input` [N, C_in, spatial...] whose output's gradient is `dout`
/// [N, C_out, out...]: `input` regrouped as [C_in/g, g·N, spatial...]
/// convolved with `dout` as a [C_out, N, out...] weight (stride and
/// dilation swap roles), cropped to the kernel and transposed to
/// [C_out, C_in/g, ...].
Value convWeightGrad(GradBuilder &g, Value input, Value dout,
                     ArrayRef<int64_t> weightShape, ArrayRef<int64_t> stride,
                     ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                     ArrayRef<int64_t> dilation, int64_t groups) {
  ArrayRef<int64_t> xs = shapeOf(input), ys = shapeOf(dout);
  int64_t rank = static_cast<int64_t>(xs.size()) - 2;
  int64_t n = xs[0], perGroup = xs[1] / groups;
  SmallVector<int64_t> split = {n, groups, perGroup},
                       swapped = {perGroup, groups * n}, order = {2, 1, 0};
  for (int64_t i = 0; i < rank; ++i) {
    split.push_back(xs[2 + i]);
    swapped.push_back(xs[2 + i]);
    order.push_back(3 + i);
  }
  Value regrouped =
      g.reshape(g.permute(g.reshape(input, split), order), swapped);
  SmallVector<int64_t> corrShape = {perGroup, ys[1]};
  for (int64_t i = 0; i < rank; ++i)
    corrShape.push_back(
        (xs[2 + i] + lo[i] + hi[i] - stride[i] * (ys[2 + i] - 1) - 1) /
            dilation[i] +
        1);
  Value corr = convolution(g, corrShape, regrouped, g.transpose(dout, 0, 1),
                           dilation, lowHigh(lo, hi), stride, groups);
  Value cropped = corr;
  for (int64_t i = 0; i < rank; ++i)
    cropped = g.slice(cropped, 2 + i, 0, weightShape[2 + i]);
  return g.transpose(cropped, 0, 1);
}

/// The weight gradient of an ungrouped convolution as one GEMM whose B is
/// a window of consecutive rows of one matrix per kernel offset, for any
/// stride and dilation.
///
/// The padded input, padded further on the high side to a multiple of the
/// stride, is split into stride phases along each spatial dim (padded
/// position p = q·s + phase), the phases some offset reads kept, and laid
/// out [phases..., N, grid..., C] as a [rows, C] matrix. Offset k of a dim
/// reads phase (k·d) % s at grid position out + (k·d) / s, so with the
/// output's gradient placed at grid position `out` (zeros on the high side
/// of each dim, out to the grid's size) as an [O, rows] matrix, each
/// offset's matrix is the rows from its phase's first row plus its reach:
/// dW[O, taps·C] = dy[O, rows] · [window0 | ... | window(taps-1)]. The CPU
/// kernels read the windows in place while packing B (nn_kernel.gemm's
/// row_windows) instead of copying them side by side, and pack dy once.
/// The zeros cost the products the padding adds (7% for 3x3 on 56x56,
/// stride 1 or 2); the last rows, past the last output pixel, are dropped,
/// so every window ends inside its phase. (With one phase per dim, stride 1
/// or a 1x1 kernel, no dim is split.)
Value convWeightGradWindows(GradBuilder &g, Value input, Value dout,
                            ArrayRef<int64_t> weightShape,
                            ArrayRef<int64_t> stride, ArrayRef<int64_t> lo,
                            ArrayRef<int64_t> hi, ArrayRef<int64_t> dilation) {
  ArrayRef<int64_t> xs = shapeOf(input), ys = shapeOf(dout);
  ArrayRef<int64_t> kernel = weightShape.drop_front(2);
  int64_t rank = static_cast<int64_t>(ys.size()) - 2;
  int64_t out = ys[1], channels = xs[1], batch = xs[0];
  // Per dim: the grid (padded size over the stride, rounded up) and the
  // phases read, 0 .. phases - 1.
  SmallVector<int64_t> grid(rank), phases(rank, 1);
  SmallVector<int64_t> padLo = {0, 0}, padHi = {0, 0}, gridHi = {0, 0};
  for (int64_t i = 0; i < rank; ++i) {
    int64_t padded = xs[2 + i] + lo[i] + hi[i];
    grid[i] = (padded + stride[i] - 1) / stride[i];
    for (int64_t k = 0; k < kernel[i]; ++k)
      phases[i] = std::max(phases[i], (k * dilation[i]) % stride[i] + 1);
    padLo.push_back(lo[i]);
    padHi.push_back(hi[i] + grid[i] * stride[i] - padded);
    gridHi.push_back(grid[i] - ys[2 + i]);
  }
  // [N, C, (grid, phase)...], a dim split only where it has several phases.
  Value canvas = g.pad(input, padLo, padHi, 0.0);
  SmallVector<int64_t> split = {batch, channels}, phaseDims, gridDims;
  for (int64_t i = 0; i < rank; ++i) {
    gridDims.push_back(static_cast<int64_t>(split.size()));
    split.push_back(grid[i]);
    if (stride[i] > 1) {
      phaseDims.push_back(static_cast<int64_t>(split.size()));
      split.push_back(stride[i]);
    }
  }
  canvas = g.reshape(canvas, split);
  for (int64_t i = 0, p = 0; i < rank; ++i)
    if (stride[i] > 1)
      canvas = g.slice(canvas, phaseDims[p++], 0, phases[i]);
  SmallVector<int64_t> order(phaseDims);
  order.push_back(0);
  order.append(gridDims);
  order.push_back(1);
  int64_t gridRows = batch, phaseCount = 1;
  for (int64_t i = 0; i < rank; ++i) {
    gridRows *= grid[i];
    phaseCount *= phases[i];
  }
  canvas =
      g.reshape(g.permute(canvas, order), {phaseCount * gridRows, channels});
  // Row pitch of each grid dim, and the farthest reach of any offset.
  SmallVector<int64_t> pitch(rank, 1), phasePitch(rank, 1);
  for (int64_t i = rank - 1; i > 0; --i) {
    pitch[i - 1] = pitch[i] * grid[i];
    phasePitch[i - 1] = phasePitch[i] * phases[i];
  }
  int64_t reach = 0;
  for (int64_t i = 0; i < rank; ++i)
    reach += (kernel[i] - 1) * dilation[i] / stride[i] * pitch[i];
  int64_t rows = gridRows - reach;
  SmallVector<int64_t> outFirst = {1, 0};
  for (int64_t i = 0; i < rank; ++i)
    outFirst.push_back(2 + i);
  Value placed = g.pad(dout, SmallVector<int64_t>(rank + 2, 0), gridHi, 0.0);
  Value dyRows = g.slice(
      g.reshape(g.permute(placed, outFirst), {out, gridRows}), 1, 0, rows);
  SmallVector<Value> windows;
  forEachOffset(kernel, [&](ArrayRef<int64_t> offset) {
    int64_t first = 0, phase = 0;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t at = offset[i] * dilation[i];
      first += at / stride[i] * pitch[i];
      phase += at % stride[i] * phasePitch[i];
    }
    first += phase * gridRows;
    windows.push_back(g.slice(canvas, 0, first, first + rows));
  });
  int64_t taps = static_cast<int64_t>(windows.size());
  Value product =
      g.reshape(g.matmul(dyRows, g.cat(windows, 1)), {out, taps, channels});
  return g.reshape(g.transpose(product, 1, 2), weightShape);
}

/// The output positions (batch times the output's spatial sizes: the GEMM's
/// depth) from which an ungrouped convolution's weight gradient is computed
/// by GEMMs (convWeightGradWindows) rather than one convolution. The one
/// convolution's kernel is dy's whole plane and its output the weight's
/// few taps, which the convolution kernels run far below peak: on
/// ResNet-18 at batch 8 (planes of 14x14 and 7x7) the GEMMs took its
/// training step from 1104 to 991 ms, the padding's zeros (30% more
/// products at 14x14, 65% at 7x7) included.
constexpr int64_t kGemmWeightGradRows = 256;

/// `x` reversed along `dim` (an index_select of a constant index).
Value reversed(GradBuilder &g, Value x, int64_t dim) {
  OpBuilder &b = g.builder();
  int64_t size = shapeOf(x)[dim];
  SmallVector<int64_t> order;
  for (int64_t i = size - 1; i >= 0; --i)
    order.push_back(i);
  auto indexType = RankedTensorType::get({size}, b.getI64Type());
  Value index = b.create<arith::ConstantOp>(
      g.location(),
      DenseElementsAttr::get(indexType, ArrayRef<int64_t>(order)));
  return b.create<IndexSelectOp>(g.location(), x.getType(), x, index,
                                 b.getI64IntegerAttr(dim));
}

/// The gradient of a convolution's input: the stride-1 convolution of
/// `dout` with the kernel flipped in space and its channels swapped within
/// each group ([O, C/g, k...] as [C, O/g, k...]), with the same groups,
/// padded by dilation·(k - 1) less the forward's padding on the low side
/// and to the input's size on the high side. A strided (grouped; an
/// ungrouped one goes to convInputGradScattered) convolution's `dout` is
/// first spread out by its stride (stride - 1 zeros after each element),
/// the transposed convolution's zero insertion. (The
/// transposed convolution computes the same sums, but as generated loops;
/// this goes to the convolution kernels, which even with the s² products of
/// the zeros made ResNet-18's training step 3.5x faster.) Null when the
/// forward's padding exceeds dilation·(k - 1), which would crop.
Value convInputGrad(GradBuilder &g, Value dout, Value weight, Type inputType,
                    ArrayRef<int64_t> stride, ArrayRef<int64_t> lo,
                    ArrayRef<int64_t> dilation, int64_t groups) {
  ArrayRef<int64_t> ws = shapeOf(weight);
  ArrayRef<int64_t> xs = llvm::cast<RankedTensorType>(inputType).getShape();
  int64_t rank = static_cast<int64_t>(ws.size()) - 2;
  SmallVector<int64_t> padLo(rank), padHi(rank), spread(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t reach = dilation[i] * (ws[2 + i] - 1);
    spread[i] = (shapeOf(dout)[2 + i] - 1) * stride[i] + 1;
    padLo[i] = reach - lo[i];
    padHi[i] = xs[2 + i] + reach - padLo[i] - spread[i];
    if (padLo[i] < 0 || padHi[i] < 0)
      return Value();
  }
  for (int64_t i = 0; i < rank; ++i)
    if (stride[i] > 1)
      dout = g.unslice(dout, 2 + i, 0, stride[i], spread[i]);
  Value kernel = weight;
  for (int64_t i = 0; i < rank; ++i)
    kernel = reversed(g, kernel, 2 + i);
  if (groups == 1) {
    kernel = g.transpose(kernel, 0, 1);
  } else {
    SmallVector<int64_t> perGroup = {groups, ws[0] / groups, ws[1]};
    perGroup.append(ws.begin() + 2, ws.end());
    SmallVector<int64_t> swapped = {ws[1] * groups, ws[0] / groups};
    swapped.append(ws.begin() + 2, ws.end());
    kernel = g.reshape(g.transpose(g.reshape(kernel, perGroup), 1, 2), swapped);
  }
  return convolution(g, xs, dout, kernel, SmallVector<int64_t>(rank, 1),
                     lowHigh(padLo, padHi), dilation, groups);
}

/// The input gradient of a strided, ungrouped convolution, without the
/// zero insertion of convInputGrad (whose convolution multiplies zeros by
/// all but one in stride² of its products in 2-D). Each kernel offset k
/// contributes weight[:, :, k]ᵀ · dy ([N, C, out...]) at offset k of every
/// window: all the offsets' parts come from one 1x1 convolution of dy with
/// the weight laid out [taps·C, O] (a GEMM per image reading dy in place),
/// and scatterOffsets puts them back, summed per stride phase and
/// interleaved once, as for pooling. The products are the forward's own.
Value convInputGradScattered(GradBuilder &g, Value dout, Value weight,
                             Value input, ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                             ArrayRef<int64_t> dilation) {
  ArrayRef<int64_t> ws = shapeOf(weight), xs = shapeOf(input),
                    ys = shapeOf(dout);
  int64_t rank = static_cast<int64_t>(ws.size()) - 2;
  int64_t out = ws[0], channels = ws[1], taps = 1;
  SmallVector<Window> windows;
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < rank; ++i) {
    windows.push_back({xs[2 + i], ys[2 + i], ws[2 + i], stride[i], lo[i], hi[i],
                       dilation[i]});
    taps *= ws[2 + i];
    order.push_back(2 + i);
  }
  // [O, C, k...] -> [k..., C, O] -> [taps·C, O, 1...], offsets row-major
  // as forEachOffset visits them.
  order.append({1, 0});
  SmallVector<int64_t> columns = {taps * channels, out};
  columns.append(rank, 1);
  Value kernel = g.reshape(g.permute(weight, order), columns);
  SmallVector<int64_t> allShape = {ys[0], taps * channels};
  allShape.append(ys.begin() + 2, ys.end());
  SmallVector<int64_t> ones(rank, 1);
  Value all = convolution(g, allShape, dout, kernel, ones,
                          SmallVector<int64_t>(2 * rank, 0), ones, 1);
  SmallVector<std::pair<SmallVector<int64_t>, Value>> parts;
  int64_t tap = 0;
  forEachOffset(windows, [&](ArrayRef<int64_t> k) {
    parts.emplace_back(SmallVector<int64_t>(k),
                       g.slice(all, 1, tap * channels, (tap + 1) * channels));
    ++tap;
  });
  return scatterOffsets(g, windows, parts);
}

/// Σ dy over N and the spatial dims: a bias's gradient.
Value biasGrad(GradBuilder &g, Value dy) {
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < int64_t(shapeOf(dy).size()); ++d)
    dims.push_back(d);
  return g.sum(dy, dims, /*keepdim=*/false);
}

/// The [out, in] matrix of nn.interpolate along one dim: each output's
/// source weights, computed in float exactly as the lowering computes them
/// (NNToLinalg/Convolution.cpp), so the product is the forward's linear map.
Value interpolationMatrix(GradBuilder &g, Value like, int64_t out, int64_t in,
                          bool bilinear, bool alignCorners,
                          std::optional<double> given) {
  SmallVector<double> values(out * in, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    if (!bilinear) {
      int64_t src = o;
      if (out == 2 * in)
        src = o / 2;
      else if (out != in)
        src = std::min<int64_t>(
            int64_t(float(o) * interpolationScale(in, out, false, given)),
            in - 1);
      values[o * in + src] = 1.0;
      continue;
    }
    float scale = interpolationScale(in, out, alignCorners, given);
    float real = alignCorners
                     ? scale * float(o)
                     : std::max(scale * (float(o) + 0.5f) - 0.5f, 0.0f);
    int64_t i0 = int64_t(real);
    float lambda = std::min(std::max(real - float(i0), 0.0f), 1.0f);
    int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
    values[o * in + i0] += double(1.0f - lambda);
    values[o * in + i1] += double(lambda);
  }
  return constantOf(g, like, {out, in}, values);
}

} // namespace

void mlir::nn::populateConvolutionVJPRules(VJPRules &rules) {
  rules.add<ConvOp>([](GradBuilder &g, ConvOp op, Value dy,
                       MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput(), w = op.getWeight();
    int64_t rank = shapeOf(x).size() - 2;
    int64_t groups = op.getGroupsAttr().getInt();
    // A 1-D convolution differentiates as a 2-D one of unit height, which
    // the convolution kernels take.
    int64_t lifted = std::max<int64_t>(rank, 2);
    SmallVector<int64_t> stride = lift(op.getStride(), rank, 1),
                         dilation = lift(op.getDilation(), rank, 1),
                         lo = lift(padLow(op.getPadding(), rank), rank, 0),
                         hi = lift(padHigh(op.getPadding(), rank), rank, 0);
    Value x2 = lift(g, x), w2 = lift(g, w), dy2 = lift(g, dy);
    ArrayRef<int64_t> xs = shapeOf(x2), ws = shapeOf(w2), ys = shapeOf(dy2);
    // dx: for a strided, ungrouped convolution the offsets' parts put back
    // on the stride's phases (convInputGradScattered); otherwise a
    // convolution of dy (convInputGrad), or, where the forward's padding is
    // wider than its kernel's reach, the transposed convolution,
    // output_padding making up the rows and columns no window reached.
    SmallVector<int64_t> outputPadding(lifted);
    int64_t plane = 1;
    for (int64_t i = 0; i < lifted; ++i) {
      outputPadding[i] =
          xs[2 + i] - ((ys[2 + i] - 1) * stride[i] - lo[i] - hi[i] +
                       dilation[i] * (ws[2 + i] - 1) + 1);
      plane *= ys[2 + i];
    }
    OpBuilder &b = g.builder();
    bool strided = llvm::any_of(stride, [](int64_t s) { return s > 1; });
    Value dinput =
        groups == 1 && strided
            ? convInputGradScattered(g, dy2, w2, x2, stride, lo, hi, dilation)
            : convInputGrad(g, dy2, w2, x2.getType(), stride, lo, dilation,
                            groups);
    if (!dinput)
      dinput = b.create<ConvTransposeOp>(
          g.location(), x2.getType(), dy2, w2, Value(),
          b.getDenseI64ArrayAttr(stride),
          b.getDenseI64ArrayAttr(lowHigh(lo, hi)),
          b.getDenseI64ArrayAttr(outputPadding),
          b.getDenseI64ArrayAttr(dilation), b.getI64IntegerAttr(groups));
    dx[0] = g.reshape(dinput, shapeOf(x));
    // Many output positions: the GEMMs. (A few, as in most of the tests'
    // cases, are cheaper as one convolution, and compile faster.)
    bool gemm = groups == 1 && plane * ys[0] >= kGemmWeightGradRows;
    Value dweight;
    if (!gemm)
      dweight =
          convWeightGrad(g, x2, dy2, ws, stride, lo, hi, dilation, groups);
    else
      dweight = convWeightGradWindows(g, x2, dy2, ws, stride, lo, hi, dilation);
    dx[1] = g.reshape(dweight, shapeOf(w));
    if (op.getBias())
      dx[2] = biasGrad(g, dy);
    return success();
  });

  // The adjoint pair the other way round: dx = conv(dy, weight) (cropped
  // when output_padding reached past a stride), dweight the convolution
  // weight gradient of dy against x.
  rules.add<ConvTransposeOp>([](GradBuilder &g, ConvTransposeOp op, Value dy,
                                MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput(), w = op.getWeight();
    ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
    int64_t rank = static_cast<int64_t>(xs.size()) - 2;
    SmallVector<int64_t> stride(op.getStride()), dilation(op.getDilation());
    SmallVector<int64_t> lo = padLow(op.getPadding(), rank),
                         hi = padHigh(op.getPadding(), rank);
    int64_t groups = op.getGroupsAttr().getInt();
    SmallVector<int64_t> convShape = {xs[0], xs[1]};
    ArrayRef<int64_t> ys = shapeOf(dy);
    for (int64_t i = 0; i < rank; ++i)
      convShape.push_back(
          (ys[2 + i] + lo[i] + hi[i] - dilation[i] * (ws[2 + i] - 1) - 1) /
              stride[i] +
          1);
    Value conv = convolution(g, convShape, dy, w, stride, lowHigh(lo, hi),
                             dilation, groups);
    for (int64_t i = 0; i < rank; ++i)
      conv = g.slice(conv, 2 + i, 0, xs[2 + i]);
    dx[0] = conv;
    dx[1] = convWeightGrad(g, dy, x, ws, stride, lo, hi, dilation, groups);
    if (op.getBias())
      dx[2] = biasGrad(g, dy);
    return success();
  });

  rules.add<AvgPoolOp>([](GradBuilder &g, AvgPoolOp op, Value dy,
                          MutableArrayRef<Value> dx) -> LogicalResult {
    SmallVector<Window> windows =
        windowsOf(op.getInput(), dy, op.getKernel(), op.getStride(),
                  op.getPadding(), /*dilation=*/{});
    // Each output's share: divided as the forward divided.
    Value share = g.div(
        dy, constantOf(g, dy, shapeOf(dy).drop_front(2), avgPoolDivisors(op)));
    SmallVector<std::pair<SmallVector<int64_t>, Value>> parts;
    forEachOffset(windows, [&](ArrayRef<int64_t> k) {
      parts.emplace_back(SmallVector<int64_t>(k), share);
    });
    dx[0] = scatterOffsets(g, windows, parts);
    return success();
  });

  rules.add<MaxPoolOp>([](GradBuilder &g, MaxPoolOp op, Value dy,
                          MutableArrayRef<Value> dx) -> LogicalResult {
    Value y = op.getResult();
    SmallVector<Window> windows =
        windowsOf(op.getInput(), dy, op.getKernel(), op.getStride(),
                  op.getPadding(), op.getDilation());
    // The input padded with -inf to the canvas every window fits in.
    Value canvas = op.getInput();
    for (auto [i, w] : llvm::enumerate(windows))
      canvas = g.pad(canvas, 2 + i, w.padLow, w.canvas() - w.in - w.padLow,
                     -INFINITY);
    Value taken = g.scalar(dy, 0.0), one = g.scalar(dy, 1.0);
    SmallVector<std::pair<SmallVector<int64_t>, Value>> parts;
    forEachOffset(windows, [&](ArrayRef<int64_t> k) {
      Value at = offsetView(g, canvas, windows, k);
      // The first offset (row-major) holding the window's maximum.
      Value equal = g.mask(g.compare(ComparisonPredicate::eq, at, y), one);
      Value first = g.mul(equal, g.sub(one, taken));
      taken = g.add(taken, first);
      parts.emplace_back(SmallVector<int64_t>(k), g.mul(dy, first));
    });
    dx[0] = scatterOffsets(g, windows, parts);
    return success();
  });

  // Nearest and bilinear interpolation are separable linear maps:
  // y = A_h · x · A_wᵀ per image, so dx = A_hᵀ · dy · A_w.
  rules.add<InterpolateOp>([](GradBuilder &g, InterpolateOp op, Value dy,
                              MutableArrayRef<Value> dx) -> LogicalResult {
    bool bilinear = op.getMode() == "bilinear";
    if (!bilinear && op.getMode() != "nearest")
      return op.emitOpError("has no gradient rule for mode '")
             << op.getMode() << "'";
    ArrayRef<int64_t> xs = shapeOf(op.getInput()), ys = shapeOf(dy);
    std::optional<double> scales[2];
    if (auto given = op.getScales())
      for (int d = 0; d < 2; ++d)
        scales[d] = (*given)[d];
    Value rows = interpolationMatrix(g, dy, ys[2], xs[2], bilinear,
                                     op.getAlignCorners(), scales[0]);
    Value cols = interpolationMatrix(g, dy, ys[3], xs[3], bilinear,
                                     op.getAlignCorners(), scales[1]);
    dx[0] = g.matmul(g.matmul(g.transpose(rows, 0, 1), dy), cols);
    return success();
  });

  // Separable: one constant matrix per spatial dimension, applied to that
  // dimension of dy (Aᵀ from the left, the last dimension's A from the
  // right: for 2-D, Aₕᵀ·dy·A_w).
  rules.add<AdaptiveAvgPoolOp>([](GradBuilder &g, AdaptiveAvgPoolOp op,
                                  Value dy, MutableArrayRef<Value> dx) {
    ArrayRef<int64_t> xs = shapeOf(op.getInput());
    int64_t rank = op.getSpatialRank();
    Value grad = dy;
    for (int64_t i = 0; i < rank; ++i) {
      SmallVector<int64_t> shape(shapeOf(grad));
      int64_t dim = 2 + i, out = shape[dim], in = xs[dim];
      Value a = adaptiveMatrix(g, dy, out, in);
      if (i == rank - 1) {
        grad = g.matmul(grad, a);
        continue;
      }
      // [N·C·(dims before), out, (dims after)] from the left.
      int64_t before = 1, after = 1;
      for (int64_t d = 0; d < dim; ++d)
        before *= shape[d];
      for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d)
        after *= shape[d];
      grad =
          g.matmul(g.transpose(a, 0, 1), g.reshape(grad, {before, out, after}));
      shape[dim] = in;
      grad = g.reshape(grad, shape);
    }
    dx[0] = grad;
    return success();
  });
}
