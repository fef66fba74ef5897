//===- OpGoldenTest.cpp - The per-op golden test
//---------------------------===//
//
// The one TEST_P the Ops*Test.cpp files instantiate. It lives apart from
// OpGolden.cpp so that a binary reusing the comparison helpers
// (CudaCompileTests) does not define a parameterized suite it never
// instantiates, which GoogleTest reports as a failure.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {

TEST_P(OpGoldenTest, MatchesPyTorch) { expectMatchesGolden(GetParam(), {}); }

} // namespace nn::testing
