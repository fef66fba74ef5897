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
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <limits>

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

/// Whether a reduction loop of `op` nested inside loop `dim` has more than
/// one iteration.
bool reducesInside(linalg::LinalgOp op, int64_t dim) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t d = dim + 1; d < int64_t(ranges.size()); ++d)
    if (iterators[d] == utils::IteratorType::reduction && ranges[d] != 1)
      return true;
  return false;
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

/// The loop of `op` to split over threads (its outermost parallel loop with
/// more than one iteration) and its tile (see parallelTile; a multiple of
/// `multipleOn.second` when that loop is `multipleOn.first`), or nothing
/// when `op` is below `minWork` points or has no such tile.
std::optional<std::pair<unsigned, int64_t>>
parallelLoop(linalg::LinalgOp op, int64_t minWork,
             std::pair<int64_t, int64_t> multipleOn) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t r : ranges)
    work *= r;
  if (minWork <= 0 || work < minWork)
    return std::nullopt;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (it != utils::IteratorType::parallel || ranges[d] <= 1)
      continue;
    int64_t multiple =
        int64_t(d) == multipleOn.first ? multipleOn.second : int64_t(1);
    if (int64_t ptile = parallelTile(ranges[d], multiple))
      return std::make_pair(unsigned(d), ptile);
    return std::nullopt;
  }
  return std::nullopt;
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

/// Makes loop `dim` of `op` its innermost one (generalizing a named op
/// first), so that the vectors of its tile have their lanes along that
/// loop: a row sum then reduces along the outer vector dimension, one
/// elementwise add per reduced element, instead of across the lanes. Only
/// the iteration order inside the tile changes; each output element still
/// sees its reduced elements in their order.
FailureOr<linalg::GenericOp>
moveLoopInnermost(RewriterBase &rewriter, linalg::LinalgOp op, int64_t dim) {
  rewriter.setInsertionPoint(op);
  auto generic = llvm::dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < generic.getNumLoops(); ++d)
    if (int64_t(d) != dim)
      order.push_back(d);
  order.push_back(dim);
  return linalg::interchangeGenericOp(rewriter, generic, order);
}

/// An 8x8 transpose of 32-bit elements as the 24 two-input shuffles of the
/// classic AVX network (unpack pairs of rows, shuffle pairs of those, swap
/// 128-bit halves), which LLVM maps onto vunpck/vshufps/vperm2f128 and
/// which lower on any target; the default lowering moves 64 single
/// elements.
struct Transpose8x8ToShuffles : public OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (type.getShape() != ArrayRef<int64_t>{8, 8} || type.isScalable() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementType().getIntOrFloatBitWidth() != 32 ||
        op.getPermutation() != ArrayRef<int64_t>{1, 0})
      return rewriter.notifyMatchFailure(op, "not an 8x8 32-bit transpose");
    Location loc = op.getLoc();
    auto shuffle = [&](Value a, Value b, ArrayRef<int64_t> mask) -> Value {
      return rewriter.create<vector::ShuffleOp>(loc, a, b, mask);
    };
    SmallVector<Value> rows;
    for (int64_t i = 0; i < 8; ++i)
      rows.push_back(
          rewriter.create<vector::ExtractOp>(loc, op.getVector(), i));
    // Pairs of rows interleaved within each 128-bit half.
    SmallVector<Value> pairs;
    for (int64_t i = 0; i < 8; i += 2) {
      pairs.push_back(
          shuffle(rows[i], rows[i + 1], {0, 8, 1, 9, 4, 12, 5, 13}));
      pairs.push_back(
          shuffle(rows[i], rows[i + 1], {2, 10, 3, 11, 6, 14, 7, 15}));
    }
    // Four rows' elements of two columns (one per 128-bit half).
    SmallVector<Value> quads;
    for (int64_t i = 0; i < 8; i += 4)
      for (int64_t j = 0; j < 2; ++j) {
        quads.push_back(shuffle(pairs[i + j], pairs[i + j + 2],
                                {0, 1, 8, 9, 4, 5, 12, 13}));
        quads.push_back(shuffle(pairs[i + j], pairs[i + j + 2],
                                {2, 3, 10, 11, 6, 7, 14, 15}));
      }
    // quads[0..3] hold columns (0,4), (1,5), (2,6), (3,7) of rows 0-3,
    // quads[4..7] the same of rows 4-7.
    Value result = rewriter.create<arith::ConstantOp>(
        loc, op.getResultVectorType(),
        rewriter.getZeroAttr(op.getResultVectorType()));
    for (int64_t c = 0; c < 4; ++c) {
      Value low = shuffle(quads[c], quads[c + 4], {0, 1, 2, 3, 8, 9, 10, 11});
      Value high =
          shuffle(quads[c], quads[c + 4], {4, 5, 6, 7, 12, 13, 14, 15});
      result = rewriter.create<vector::InsertOp>(loc, low, result, c);
      result = rewriter.create<vector::InsertOp>(loc, high, result, c + 4);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MLIR's log approximation reads the exponent field of its input, which
/// is wrong for subnormal inputs (below 2^-126, where libm is exact). Those
/// are scaled by 2^23 first and 23·ln 2 subtracted from the result; zero,
/// negative and NaN inputs keep their special results.
void scaleSubnormalLogInput(RewriterBase &rewriter, math::LogOp log) {
  auto type = llvm::cast<ShapedType>(log.getType());
  Location loc = log.getLoc();
  auto splat = [&](float value) -> Value {
    return rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, rewriter.getF32FloatAttr(value)));
  };
  rewriter.setInsertionPoint(log);
  Value x = log.getOperand();
  Value subnormal =
      rewriter.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                     splat(std::numeric_limits<float>::min()));
  Value scaled = rewriter.create<arith::MulFOp>(loc, x, splat(0x1p23f));
  Value input = rewriter.create<arith::SelectOp>(loc, subnormal, scaled, x);
  rewriter.modifyOpInPlace(log, [&] { log->setOperand(0, input); });
  rewriter.setInsertionPointAfter(log);
  Value shifted =
      rewriter.create<arith::SubFOp>(loc, log, splat(23 * float(M_LN2)));
  Value result = rewriter.create<arith::SelectOp>(loc, subnormal, shifted, log);
  rewriter.replaceAllUsesExcept(
      log, result,
      SmallPtrSet<Operation *, 2>{shifted.getDefiningOp(),
                                  result.getDefiningOp()});
}

struct TileAndVectorizePass
    : public mlir::nn::impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using TileAndVectorizePassBase::TileAndVectorizePassBase;

  /// Tiles and vectorizes one op (see the pass description). Every step
  /// that does not apply leaves a correct, less optimized op behind.
  void process(IRRewriter &rewriter, linalg::LinalgOp op,
               bool splitOverThreads) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ShapedType::isDynamicShape(ranges) ||
        llvm::is_contained(ranges, 0) || !op.hasOnlyProjectedPermutations())
      return;
    // Vectors run along the output's innermost dimension, or along an
    // input's innermost reduction when that keeps every bit. A reduction
    // that must keep its order (a float sum) along an input's innermost
    // dimension keeps the output's dimension in the lanes and walks the
    // reduction in blocks as wide as the lanes (`rdim` >= 0 below): each
    // lane still adds its own row's elements one by one. That is the
    // scalar loops' order only if no reduction loop inside `rdim` has more
    // than one iteration (those would run between the blocks' elements).
    int64_t vdim = vectorDim(op);
    int64_t rdim = innermostReductionDim(op);
    int64_t width = vectorSize;
    if (rdim >= 0 && reductionOrderIsFree(op)) {
      vdim = rdim;
      rdim = -1;
    } else if (rdim >= 0) {
      width = reductionLanes;
    }
    int64_t vtile =
        vdim >= 0 && hasLowerableVectors(op) && !onlyMovesElements(op)
            ? vectorTile(ranges[vdim], width)
            : 0;
    int64_t rtile = rdim >= 0 ? vectorTile(ranges[rdim], reductionLanes) : 0;
    if (rdim >= 0 && (reductionLanes <= 1 || !rtile || reducesInside(op, rdim)))
      vtile = 0;

    std::optional<std::pair<unsigned, int64_t>> parallel;
    if (splitOverThreads)
      parallel = parallelLoop(op, minParallelWork, {vdim, vtile ? vtile : 1});
    if (parallel) {
      SmallVector<int64_t> sizes(ranges.size(), 0);
      sizes[parallel->first] = parallel->second;
      linalg::LinalgOp tiled =
          tile(rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
      if (!tiled)
        return;
      op = tiled;
      ranges = op.getStaticLoopRanges();
      LLVM_DEBUG(llvm::dbgs() << "parallel tile " << parallel->second
                              << " on loop " << parallel->first << "\n");
    }
    if (!vtile)
      return;
    // Every loop but the vector one (and the blocked reduction) steps by 1,
    // so the tile is [1, ..., vtile] or [1, ..., vtile, ..., rtile]; a
    // reduction loop accumulates in its scf.for, in order; loops of extent
    // 1 need no loop.
    SmallVector<int64_t> sizes(ranges.size());
    for (auto [d, r] : llvm::enumerate(ranges)) {
      int64_t want = int64_t(d) == vdim   ? vtile
                     : int64_t(d) == rdim ? rtile
                                          : 1;
      sizes[d] = r == want ? 0 : want;
    }
    if (llvm::any_of(sizes, [](int64_t s) { return s != 0; })) {
      linalg::LinalgOp tiled =
          tile(rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp);
      if (!tiled)
        return;
      op = tiled;
    }
    if (rdim >= 0) {
      FailureOr<linalg::GenericOp> lanesInnermost =
          moveLoopInnermost(rewriter, op, vdim);
      if (failed(lanesInnermost))
        return;
      op = *lanesInnermost;
    }
    rewriter.setInsertionPoint(op);
    if (failed(linalg::vectorize(rewriter, op)))
      LLVM_DEBUG(llvm::dbgs() << "not vectorized: " << op << "\n");
  }

  /// Original ops fused into a row tile by fuseRowsInto (erased when the
  /// pass is done with them).
  llvm::SmallPtrSet<Operation *, 16> fused;
  /// The scf.forall loops fuseRowsInto made.
  SmallVector<Operation *> rowTiles;

  /// When `root` is an elementwise op that consumes a row reduction
  /// (softmax's division by the row sums, layer_norm's normalization),
  /// splits it over threads by rows and computes in each tile the rows of
  /// every linalg op it depends on, reductions included: each block of rows
  /// is read from memory once and then stays in cache through every step,
  /// instead of one pass over the whole tensor per op. Only producers
  /// whose every user is in that chain are fused (nothing is computed
  /// twice), and only where the tile takes part of them (a reduction over
  /// the rows themselves would be recomputed per tile).
  void fuseRowsInto(IRRewriter &rewriter, linalg::LinalgOp root) {
    if (root.getNumReductionLoops() != 0 || root->getNumResults() == 0 ||
        ShapedType::isDynamicShape(root.getStaticLoopRanges()))
      return;
    // The linalg ops `root` depends on, and whether one is a reduction.
    llvm::SetVector<Operation *> chain;
    SmallVector<Operation *> worklist = {root};
    bool reduces = false;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      for (Value operand : op->getOperands()) {
        auto producer = operand.getDefiningOp<linalg::LinalgOp>();
        if (!producer || !producer.hasPureTensorSemantics() ||
            !chain.insert(producer))
          continue;
        reduces |= producer.getNumReductionLoops() != 0;
        worklist.push_back(producer);
      }
    }
    if (!reduces)
      return;
    auto inChain = [&](Operation *user) {
      return user == root.getOperation() || chain.contains(user);
    };
    llvm::SmallPtrSet<Operation *, 16> fusible;
    for (Operation *op : chain)
      if (llvm::all_of(op->getUsers(), inChain))
        fusible.insert(op);

    int64_t vdim = vectorDim(root);
    auto parallel = parallelLoop(root, minParallelWork,
                                 {vdim, std::max<int64_t>(reductionLanes, 1)});
    if (!parallel)
      return;
    SmallVector<int64_t> sizes(root.getNumLoops(), 0);
    sizes[parallel->first] = parallel->second;
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(
        getAsIndexOpFoldResult(root.getContext(), sizes));
    options.tilingOptions.setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
    options.setFusionControlFn([&](tensor::ExtractSliceOp slice,
                                   OpResult producer, bool) {
      bool partial = slice.getType() != producer.getType();
      return std::make_tuple(fusible.contains(producer.getOwner()) && partial,
                             false);
    });
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, llvm::cast<TilingInterface>(root.getOperation()),
            options);
    if (failed(result))
      return;
    for (OpResult value : root->getResults())
      rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
    fused.insert(root);
    fused.insert(result->fusedProducers.begin(), result->fusedProducers.end());
    if (!result->loops.empty())
      rowTiles.push_back(result->loops.front().getOperation());
    LLVM_DEBUG(llvm::dbgs() << "fused " << result->fusedProducers.size()
                            << " producers into row tiles of " << root << "\n");
    // The originals are dead now (every user was in the chain); erase
    // users before their producers.
    SmallVector<Operation *> dead = {root};
    dead.append(result->fusedProducers.begin(), result->fusedProducers.end());
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&op : dead)
        if (op && op->use_empty()) {
          rewriter.eraseOp(op);
          op = nullptr;
          erased = true;
        }
    }
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Only ops already in the function: tiling creates new ones.
    SmallVector<linalg::LinalgOp> ops;
    fused.clear();
    rowTiles.clear();
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          llvm::isa<TilingInterface>(op.getOperation()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    IRRewriter rewriter(&getContext());
    if (fuseRows) {
      for (linalg::LinalgOp root : llvm::reverse(ops))
        if (!fused.contains(root))
          fuseRowsInto(rewriter, root);
      // Producers fused into several consumers' tiles (layer_norm's mean
      // feeds both the variance and the normalization) are computed once.
      DominanceInfo dominance(func);
      for (Operation *loop : rowTiles)
        eliminateCommonSubExpressions(rewriter, dominance, loop);
      ops.clear();
      func.walk([&](linalg::LinalgOp op) {
        if (op.hasPureTensorSemantics() &&
            llvm::isa<TilingInterface>(op.getOperation()))
          ops.push_back(op);
      });
    }
    // Ops in a row tile are already split over threads.
    for (linalg::LinalgOp op : ops)
      process(rewriter, op, !op->getParentOfType<scf::ForallOp>());

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
    // A reduction that keeps vector lanes (the blocked row sums) becomes,
    // after a transpose that brings the reduced dimension outermost, one
    // elementwise combine per reduced element, in order: every lane adds
    // its row's elements exactly as the scalar loop would.
    SmallVector<Operation *> laneReductions;
    func.walk([&](vector::MultiDimReductionOp op) {
      auto type = llvm::dyn_cast<VectorType>(op.getType());
      if (type && type.getNumElements() > 1)
        laneReductions.push_back(op);
    });
    RewritePatternSet ordered(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        ordered, vector::VectorMultiReductionLowering::InnerParallel);
    GreedyRewriteConfig newOps;
    newOps.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (!laneReductions.empty() &&
        failed(
            applyOpPatternsAndFold(laneReductions, std::move(ordered), newOps)))
      return signalPassFailure();
    // What is left reduces along the vector: one horizontal
    // vector.reduction per step. The transposed reads of the row blocks
    // become row reads and 8x8 shuffle networks.
    RewritePatternSet reductions(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        reductions, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransferPermutationMapLoweringPatterns(reductions);
    reductions.add<Transpose8x8ToShuffles>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(func, std::move(reductions))))
      return signalPassFailure();
    if (polynomialMath && failed(approximateVectorMath(func)))
      return signalPassFailure();
  }

  /// Replaces the f32 vector math ops that LLVM would scalarize into libm
  /// calls (one per lane) by MLIR's polynomial approximations, which stay
  /// in vector registers. Only the functions whose approximation is within
  /// a few ulp of libm over their whole range (VectorMathTest) are
  /// replaced; scalar math keeps libm.
  LogicalResult approximateVectorMath(func::FuncOp func) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (!llvm::isa<math::ExpOp, math::TanhOp, math::ErfOp, math::LogOp>(op))
        return;
      auto type = llvm::dyn_cast<VectorType>(op->getResult(0).getType());
      if (type && type.getElementType().isF32())
        ops.push_back(op);
    });
    if (ops.empty())
      return success();
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops)
      if (auto log = llvm::dyn_cast<math::LogOp>(op))
        scaleSubnormalLogInput(rewriter, log);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    return applyOpPatternsAndFold(ops, std::move(patterns), config);
  }
};

} // namespace
