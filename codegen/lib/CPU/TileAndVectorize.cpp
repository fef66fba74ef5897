//===- TileAndVectorize.cpp - Tile linalg ops for threads and SIMD --------===//
//
// Implements nn-tile-and-vectorize: every linalg op on tensors with static
// loop ranges gets an scf.forall over its outermost parallel loop (when it
// is big enough to be worth a thread pool round trip) and an scf.for nest
// whose innermost tile is vectorized. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-tile-and-vectorize"

namespace mlir::nn {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

/// How many tiles the parallel loop aims for: enough that the pool's
/// contiguous chunks balance for any thread count up to a few dozen.
constexpr int64_t kParallelTiles = 64;

/// The loop that walks the innermost dimension of the first output, or -1
/// (a rank-0 output, or a non-trivial expression there).
int64_t vectorDim(linalg::LinalgOp op) {
  if (op.getNumDpsInits() == 0)
    return -1;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (map.getNumResults() == 0)
    return -1;
  auto dim = llvm::dyn_cast<AffineDimExpr>(map.getResults().back());
  return dim ? dim.getPosition() : -1;
}

/// The reduction loop along which some input is read in its innermost
/// dimension, or -1.
int64_t innermostReductionDim(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0)
      continue;
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      if (iterators[d] == utils::IteratorType::reduction &&
          map.getResults().back().isFunctionOfDim(d))
        return d;
  }
  return -1;
}

/// Whether every result of `op` is combined by an operation whose result
/// does not depend on the order of the reduction (float max/min, integer
/// arithmetic), so that vectorizing along the reduction loop changes no
/// bit. A float sum would be reassociated.
bool reductionOrderIsFree(linalg::LinalgOp op) {
  for (unsigned i = 0; i < op.getNumDpsInits(); ++i) {
    SmallVector<Operation *, 4> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), i, combiners) ||
        combiners.size() != 1)
      return false;
    if (!llvm::isa<arith::MaximumFOp, arith::MinimumFOp, arith::AddIOp,
                   arith::MulIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
                   arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
                   arith::MinUIOp>(combiners.front()))
      return false;
  }
  return true;
}

/// Whether the vectors of `op` lower to LLVM: every operand's elements are
/// whole bytes (a vector of i1 is stored as packed bits, a memref of i1 one
/// byte per element), and no body op has several results (such as
/// arith.mului_extended in dropout's Philox rounds: the unit-dimension
/// patterns do not flatten them, and LLVM lowers only their 1-D form).
bool hasLowerableVectors(linalg::LinalgOp op) {
  bool bytes = llvm::all_of(op->getOperands(), [](Value v) {
    Type element = getElementTypeOrSelf(v.getType());
    return !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 == 0;
  });
  bool singleResults =
      llvm::all_of(op.getBlock()->getOperations(),
                   [](Operation &inner) { return inner.getNumResults() <= 1; });
  return bytes && singleResults;
}

/// Whether `op` only moves elements (linalg.copy, a transpose, a
/// broadcast): its vectorized read/write pair folds away, and the copy it
/// stood for becomes a memref.copy, which for strided views calls a
/// runtime function compiled models do not link. Those stay loops.
bool onlyMovesElements(linalg::LinalgOp op) {
  return op.getBlock()->getOperations().size() == 1;
}

/// The inner tile along the vector dimension of extent `size`: the whole
/// extent up to `maxSize`, else the largest power of two from `maxSize`
/// down to 8 that divides it (so every tile has the same static shape),
/// else 0.
int64_t vectorTile(int64_t size, int64_t maxSize) {
  if (size <= maxSize)
    return size;
  for (int64_t t = maxSize; t >= 8; t /= 2)
    if (size % t == 0)
      return t;
  return 0;
}

/// The parallel tile along a loop of extent `size`: a divisor of `size`
/// that is a multiple of `multiple`, giving about kParallelTiles tiles
/// (never fewer than two), or 0.
int64_t parallelTile(int64_t size, int64_t multiple) {
  int64_t want = std::max<int64_t>(size / kParallelTiles, multiple);
  for (int64_t t = want - want % multiple; t >= multiple; t -= multiple)
    if (size % t == 0 && size / t >= 2)
      return t;
  for (int64_t t = want; t <= size / 2; t += multiple)
    if (t % multiple == 0 && size % t == 0)
      return t;
  return 0;
}

/// Tiles `op` with `sizes` (0: untiled) into `loopType` loops and replaces
/// it; returns the tiled op, or null when tiling fails (op untouched).
linalg::LinalgOp tile(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<int64_t> sizes,
                      scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, llvm::cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return nullptr;
  rewriter.replaceOp(op, tiled->replacements);
  return llvm::dyn_cast<linalg::LinalgOp>(tiled->tiledOps.back());
}

struct TileAndVectorizePass
    : public nn::impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using TileAndVectorizePassBase::TileAndVectorizePassBase;

  /// Tiles and vectorizes one op (see the pass description). Every step
  /// that does not apply leaves a correct, less optimized op behind.
  void process(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ShapedType::isDynamicShape(ranges) ||
        llvm::is_contained(ranges, 0) || !op.hasOnlyProjectedPermutations())
      return;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    // Vectors run along the output's innermost dimension, or along an
    // input's innermost reduction when that keeps every bit.
    int64_t vdim = vectorDim(op);
    if (int64_t rdim = innermostReductionDim(op); rdim >= 0)
      vdim = reductionOrderIsFree(op) ? rdim : -1;
    int64_t vtile =
        vdim >= 0 && hasLowerableVectors(op) && !onlyMovesElements(op)
            ? vectorTile(ranges[vdim], vectorSize)
            : 0;

    int64_t work = 1;
    for (int64_t r : ranges)
      work *= r;
    if (minParallelWork > 0 && work >= minParallelWork) {
      std::optional<unsigned> pdim;
      for (auto [d, it] : llvm::enumerate(iterators))
        if (it == utils::IteratorType::parallel && ranges[d] > 1) {
          pdim = d;
          break;
        }
      int64_t ptile =
          !pdim ? 0
                : parallelTile(ranges[*pdim],
                               int64_t(*pdim) == vdim && vtile ? vtile : 1);
      if (ptile) {
        SmallVector<int64_t> sizes(ranges.size(), 0);
        sizes[*pdim] = ptile;
        linalg::LinalgOp tiled = tile(
            rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
        if (!tiled)
          return;
        op = tiled;
        ranges = op.getStaticLoopRanges();
        LLVM_DEBUG(llvm::dbgs() << "parallel tile " << ptile << " on loop "
                                << *pdim << "\n");
      }
    }
    if (!vtile)
      return;
    // Every loop but the vector one steps by 1, so the vector tile is the
    // op's only non-unit extent (a reduction one accumulates in its scf.for);
    // loops of extent 1 need no loop.
    SmallVector<int64_t> sizes(ranges.size());
    for (auto [d, r] : llvm::enumerate(ranges))
      sizes[d] = int64_t(d) == vdim ? (r == vtile ? 0 : vtile) : (r > 1);
    if (llvm::any_of(sizes, [](int64_t s) { return s != 0; })) {
      linalg::LinalgOp tiled =
          tile(rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp);
      if (!tiled)
        return;
      op = tiled;
    }
    rewriter.setInsertionPoint(op);
    if (failed(linalg::vectorize(rewriter, op)))
      LLVM_DEBUG(llvm::dbgs() << "not vectorized: " << op << "\n");
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Only ops already in the function: tiling creates new ones.
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          llvm::isa<TilingInterface>(op.getOperation()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      process(rewriter, op);

    // The tiles are [1, ..., 1, n]: drop the unit dimensions so that the
    // vectors are 1-D (a reduction across the vector, over a unit
    // dimension, becomes elementwise), then fold what tiling left behind.
    RewritePatternSet unitDims(&getContext());
    vector::populateCastAwayVectorLeadingOneDimPatterns(unitDims);
    vector::populateVectorTransferDropUnitDimsPatterns(unitDims);
    vector::MultiDimReductionOp::getCanonicalizationPatterns(unitDims,
                                                             &getContext());
    vector::TransferReadOp::getCanonicalizationPatterns(unitDims,
                                                        &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(unitDims,
                                                         &getContext());
    if (failed(applyPatternsAndFoldGreedily(func, std::move(unitDims))))
      return signalPassFailure();
    // What is left reduces along the vector: one horizontal
    // vector.reduction per step.
    RewritePatternSet reductions(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        reductions, vector::VectorMultiReductionLowering::InnerReduction);
    if (failed(applyPatternsAndFoldGreedily(func, std::move(reductions))))
      return signalPassFailure();
  }
};

} // namespace
