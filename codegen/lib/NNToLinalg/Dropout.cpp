//===- Dropout.cpp - nn.dropout to linalg ---------------------------------===//
//
// Evaluation dropout (or p = 0) is the identity. Training dropout is one
// elementwise linalg.generic that draws its own random numbers: a
// counter-based generator, Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11), written in arith ops in the body.
// The generator's state (seed, base) is the op's `rng` operand, which the
// runtime supplies per run, so the compiled forward stays re-entrant and
// needs no runtime call:
//
//   counter = (base + offset + i) as (lo32, hi32, 0, 0), i the row-major index
//   key     = (seed lo32, seed hi32)
//   r       = word 0 of Philox4x32-10(counter, key)
//   keep    = (r >> 8) < round((1 - p) · 2²⁴)
//   y       = keep ? x / (1 - p) : 0
//
// tests/E2E/DropoutTest.cpp holds a scalar reference of the same generator.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Philox4x32's multipliers and Weyl key increments.
constexpr uint32_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9, kPhiloxW1 = 0xBB67AE85;
constexpr int kPhiloxRounds = 10;

Value i32(OpBuilder &b, Location loc, uint32_t value) {
  return b.create<arith::ConstantOp>(
      loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}

/// Word 0 of Philox4x32-10 of `counter` (4 × i32) under `key` (2 × i32).
Value philoxWord0(OpBuilder &b, Location loc, std::array<Value, 4> c,
                  std::array<Value, 2> k) {
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      k[0] = b.create<arith::AddIOp>(loc, k[0], i32(b, loc, kPhiloxW0));
      k[1] = b.create<arith::AddIOp>(loc, k[1], i32(b, loc, kPhiloxW1));
    }
    auto p0 =
        b.create<arith::MulUIExtendedOp>(loc, i32(b, loc, kPhiloxM0), c[0]);
    auto p1 =
        b.create<arith::MulUIExtendedOp>(loc, i32(b, loc, kPhiloxM1), c[2]);
    auto xor3 = [&](Value x, Value y, Value z) {
      return b.create<arith::XOrIOp>(loc, b.create<arith::XOrIOp>(loc, x, y),
                                     z);
    };
    c = {xor3(p1.getHigh(), c[1], k[0]), p1.getLow(),
         xor3(p0.getHigh(), c[3], k[1]), p0.getLow()};
  }
  return c[0];
}

struct DropoutOpLowering : public OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isActive()) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    double p = op.getP().convertToDouble();
    if (!(p > 0.0 && p <= 1.0))
      return rewriter.notifyMatchFailure(op, "p is outside (0, 1]");
    if (!op.getRng())
      return rewriter.notifyMatchFailure(op, "training dropout has no rng");
    rewriter.replaceOp(
        op, buildDropout(rewriter, op.getLoc(), op.getInput(), op.getRng(),
                         static_cast<int64_t>(op.getOffset()), p));
    return success();
  }
};

} // namespace

Value mlir::nn::buildDropout(OpBuilder &b, Location loc, Value input, Value rng,
                             int64_t offset, double p) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  // Row-major strides of the element index.
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  auto threshold = static_cast<uint32_t>(std::llround((1.0 - p) * 0x1p24));
  Type i64 = b.getI64Type(), i32Type = b.getI32Type();
  // The state is read once, outside the loops: (seed, base).
  auto element = [&](int64_t i) -> Value {
    return b.create<tensor::ExtractOp>(
        loc, rng, ValueRange{b.create<arith::ConstantIndexOp>(loc, i)});
  };
  Value seed = element(0);
  Value start = b.create<arith::AddIOp>(
      loc, element(1),
      b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(offset)));
  Value seedHi = b.create<arith::TruncIOp>(
      loc, i32Type,
      b.create<arith::ShRUIOp>(
          loc, seed,
          b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(32))));
  Value seedLo = b.create<arith::TruncIOp>(loc, i32Type, seed);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value init =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return buildGeneric(
      b, loc, rank, SmallVector<bool>(rank, false), {{input, all}},
      {{init, all}},
      [&](OpBuilder &b, Location loc, ValueRange args) -> SmallVector<Value> {
        Value index = start;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = b.create<arith::IndexCastOp>(
              loc, i64, b.create<linalg::IndexOp>(loc, d));
          index = b.create<arith::AddIOp>(
              loc, index,
              b.create<arith::MulIOp>(
                  loc, i,
                  b.create<arith::ConstantOp>(
                      loc, b.getI64IntegerAttr(strides[d]))));
        }
        Value hi = b.create<arith::ShRUIOp>(
            loc, index,
            b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(32)));
        Value zero32 = i32(b, loc, 0);
        Value word = philoxWord0(
            b, loc,
            {b.create<arith::TruncIOp>(loc, i32Type, index),
             b.create<arith::TruncIOp>(loc, i32Type, hi), zero32, zero32},
            {seedLo, seedHi});
        Value bits = b.create<arith::ShRUIOp>(loc, word, i32(b, loc, 8));
        Value keep = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                             bits, i32(b, loc, threshold));
        Type t = args[0].getType();
        Value scaled = b.create<arith::DivFOp>(loc, args[0],
                                               buildScalar(b, loc, t, 1.0 - p));
        return {b.create<arith::SelectOp>(loc, keep, scaled,
                                          buildScalar(b, loc, t, 0.0))};
      })[0];
}

void mlir::nn::populateDropoutPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutOpLowering>(patterns.getContext());
}
