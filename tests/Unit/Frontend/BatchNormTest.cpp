//===- BatchNormTest.cpp - BatchNorm1d/2d/3d parameters, buffers, repr ----===//
//
// Expected strings are PyTorch 1.13's, from
//   python3 -c "import torch; m = torch.nn.BatchNorm2d(32); print(m);
//               print([(k, tuple(v.shape), v.dtype) for k, v in
//               m.state_dict().items()])"
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "gtest/gtest.h"

namespace nn::testing {
namespace {

TEST(BatchNormTest, DefaultsMatchPyTorch) {
  BatchNorm2d bn(32);
  EXPECT_EQ(repr(bn), "BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=True, "
                      "track_running_stats=True)");
  EXPECT_EQ(stateSummary(*bn),
            "weight:32:float32;bias:32:float32;running_mean:32:float32;"
            "running_var:32:float32;num_batches_tracked:scalar:int64;");
}

TEST(BatchNormTest, InitializesLikePyTorch) {
  BatchNorm1d bn(3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(bn->weight.data_ptr<float>()[i], 1.0f);
    EXPECT_EQ(bn->bias.data_ptr<float>()[i], 0.0f);
    EXPECT_EQ(bn->running_mean.data_ptr<float>()[i], 0.0f);
    EXPECT_EQ(bn->running_var.data_ptr<float>()[i], 1.0f);
  }
  EXPECT_EQ(bn->num_batches_tracked.data_ptr<int64_t>()[0], 0);
}

TEST(BatchNormTest, NoAffineMomentumNone) {
  BatchNorm1d bn(
      BatchNormOptions(4).eps(1e-3).momentum(std::nullopt).affine(false));
  EXPECT_EQ(repr(bn), "BatchNorm1d(4, eps=0.001, momentum=None, "
                      "affine=False, track_running_stats=True)");
  EXPECT_EQ(stateSummary(*bn), "running_mean:4:float32;running_var:4:float32;"
                               "num_batches_tracked:scalar:int64;");
  EXPECT_TRUE(bn->has_parameter("weight")); // an empty slot, as None
}

TEST(BatchNormTest, NoTracking) {
  BatchNorm2d bn(BatchNormOptions(3).track_running_stats(false));
  EXPECT_EQ(repr(bn), "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, "
                      "track_running_stats=False)");
  EXPECT_EQ(stateSummary(*bn), "weight:3:float32;bias:3:float32;");
}

TEST(BatchNormTest, FloatsPrintAsPython) {
  BatchNorm2d bn(BatchNormOptions(5).eps(0.5).momentum(1e-20));
  EXPECT_EQ(repr(bn), "BatchNorm2d(5, eps=0.5, momentum=1e-20, affine=True, "
                      "track_running_stats=True)");
}

TEST(BatchNormTest, RejectsWrongRankWithModulePath) {
  Sequential model(BatchNorm2d(3));
  try {
    trace(model, {TensorSpec({2, 3, 4})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "0: BatchNorm2d: expected 4D input (got 3D input)");
  }
}

TEST(BatchNormTest, BatchNorm3dMatchesPyTorch) {
  BatchNorm3d bn(16);
  EXPECT_EQ(repr(bn), "BatchNorm3d(16, eps=1e-05, momentum=0.1, affine=True, "
                      "track_running_stats=True)");
  EXPECT_EQ(stateSummary(*bn),
            "weight:16:float32;bias:16:float32;running_mean:16:float32;"
            "running_var:16:float32;num_batches_tracked:scalar:int64;");
  Sequential model(BatchNorm3d(3));
  try {
    trace(model, {TensorSpec({2, 3, 4, 5})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "0: BatchNorm3d: expected 5D input (got 4D input)");
  }
}

TEST(BatchNormTest, TrainingTraceStoresEveryBuffer) {
  BatchNorm1d bn(3);
  std::string ir = trace(bn, {TensorSpec({4, 3})}).to_string();
  EXPECT_NE(ir.find("nn.batch_norm_training"), std::string::npos) << ir;
  EXPECT_NE(ir.find("nn.store @running_mean"), std::string::npos) << ir;
  EXPECT_NE(ir.find("nn.store @running_var"), std::string::npos) << ir;
  EXPECT_NE(ir.find("nn.store @num_batches_tracked"), std::string::npos) << ir;
  bn->eval();
  ir = trace(bn, {TensorSpec({4, 3})}).to_string();
  EXPECT_EQ(ir.find("nn.store"), std::string::npos) << ir;
  EXPECT_NE(ir.find("nn.batch_norm "), std::string::npos) << ir;
}

TEST(BatchNormTest, OnePerChannelValueIsAnError) {
  BatchNorm1d bn(3);
  try {
    trace(bn, {TensorSpec({1, 3})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "<root>: batch_norm_training: expected more than 1 value per "
              "channel when training, got input 1x3");
  }
}

TEST(BatchNormTest, AssignBufferRejectsParameters) {
  BatchNorm1d bn(3);
  try {
    trace(*bn, {TensorSpec({3})}, [&](const std::vector<Tensor> &x) {
      F::assign_buffer(bn->weight, x[0]);
      return std::vector<Tensor>{x[0]};
    });
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "<root>: assign_buffer: 'weight' is a parameter; only buffers "
              "are written by a forward");
  }
}

} // namespace
} // namespace nn::testing
