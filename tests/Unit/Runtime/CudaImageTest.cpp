//===- CudaImageTest.cpp - A compiled model's GPU half, as bytes ----------===//
//
// serialize_cuda_image and parse_cuda_image: a round trip keeps everything,
// and damaged bytes are refused by name, never read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/CudaImage.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace nn::cuda;
using ::testing::HasSubstr;

namespace {

CudaImage sampleImage() {
  CudaImage image;
  image.arch = "sm_90";
  image.ptx = ".version 9.0\n.target sm_90\n";
  image.cubin = std::string("\x7f"
                            "ELF\0\1\2",
                            7);
  LaunchPlan plan;
  plan.function = "forward";
  plan.state = {"fc.weight", "bn.running_mean"};
  plan.writtenState = {"bn.running_mean"};
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 0});
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 3});
  plan.buffers.push_back({PlanBuffer::Kind::Temporary, 0, 4096});
  PlanBuffer constant{PlanBuffer::Kind::Constant, 0, 5};
  constant.data = {1, 0, 3, 4, 5};
  plan.buffers.push_back(constant);
  plan.launches.push_back({"forward_0_fc", {0, 2}, 640});
  plan.launches.push_back({"forward_1_bn", {2, 3, 1}, 0});
  plan.launches.push_back({"forward_2_norm", {2}, 64, true});
  image.plans.push_back(plan);
  return image;
}

/// The bytes of `image` with the header's JSON text replaced by `header`.
std::string withHeader(const std::string &header) {
  std::string bytes = "NNCUDA01";
  uint64_t size = header.size();
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  return bytes + header + "0123456789";
}

std::string errorOf(const std::string &bytes) {
  absl::StatusOr<CudaImage> image = parse_cuda_image(bytes, "model.so");
  EXPECT_FALSE(image.ok());
  return std::string(image.status().message());
}

TEST(CudaImageTest, RoundTripKeepsEverything) {
  CudaImage image = sampleImage();
  absl::StatusOr<CudaImage> read =
      parse_cuda_image(serialize_cuda_image(image), "model.so");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->arch, "sm_90");
  EXPECT_EQ(read->ptx, image.ptx);
  EXPECT_EQ(read->cubin, image.cubin);
  ASSERT_EQ(read->plans.size(), 1u);
  const LaunchPlan &plan = *read->plan("forward");
  EXPECT_EQ(plan.state, image.plans[0].state);
  EXPECT_EQ(plan.writtenState, image.plans[0].writtenState);
  ASSERT_EQ(plan.buffers.size(), 4u);
  EXPECT_EQ(plan.buffers[1].kind, PlanBuffer::Kind::Argument);
  EXPECT_EQ(plan.buffers[1].argument, 3u);
  EXPECT_EQ(plan.buffers[2].kind, PlanBuffer::Kind::Temporary);
  EXPECT_EQ(plan.buffers[2].bytes, 4096);
  EXPECT_EQ(plan.buffers[3].kind, PlanBuffer::Kind::Constant);
  EXPECT_EQ(plan.buffers[3].bytes, 5);
  EXPECT_EQ(plan.buffers[3].data, image.plans[0].buffers[3].data);
  ASSERT_EQ(plan.launches.size(), 3u);
  EXPECT_EQ(plan.launches[1].kernel, "forward_1_bn");
  EXPECT_EQ(plan.launches[1].buffers, (std::vector<unsigned>{2, 3, 1}));
  EXPECT_EQ(plan.launches[0].iterations, 640);
  // A thread per iteration, 256 to a block, or a block per iteration.
  EXPECT_FALSE(plan.launches[0].blockPerIteration);
  EXPECT_EQ(plan.launches[0].gridSize(), 3u);
  EXPECT_TRUE(plan.launches[2].blockPerIteration);
  EXPECT_EQ(plan.launches[2].gridSize(), 64u);
  EXPECT_EQ(read->plan("backward"), nullptr);
}

TEST(CudaImageTest, RefusesDamagedBytesByName) {
  std::string bytes = serialize_cuda_image(sampleImage());
  EXPECT_THAT(errorOf("ELF"), HasSubstr("model.so: invalid CUDA image: it "
                                        "does not start with NNCUDA01"));
  // Cut anywhere: refused, whatever is left.
  for (size_t size :
       {size_t{8}, size_t{16}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THAT(errorOf(bytes.substr(0, size)),
                HasSubstr("model.so: invalid CUDA image"));
  EXPECT_THAT(errorOf(withHeader(R"({"arch":"gfx90a"})")),
              HasSubstr("names no architecture"));
  EXPECT_THAT(errorOf(withHeader(R"({"arch":"sm_90","ptx":[4,100]})")),
              HasSubstr("ptx lies outside the image's 10 bytes of payload"));
  EXPECT_THAT(
      errorOf(withHeader(R"({"arch":"sm_90","ptx":[0,1],"cubin":[1,1],)"
                         R"("plans":[{"function":"forward","state":[],)"
                         R"("written_state":[],"buffers":[{"temporary":8}],)"
                         R"("launches":[{"kernel":"k","buffers":[0,1],)"
                         R"("iterations":1}]}]})")),
      HasSubstr("launch 0 of forward (k) reads a buffer outside the plan's 1"));
  EXPECT_THAT(
      errorOf(withHeader(R"({"arch":"sm_90","ptx":[0,1],"cubin":[1,1],)"
                         R"("plans":[{"function":"forward","state":[],)"
                         R"("written_state":[],"buffers":[{"temporary":8}],)"
                         R"("launches":[{"kernel":"k","buffers":[0],)"
                         R"("iterations":1,"block_per_iteration":1}]}]})")),
      HasSubstr("launch 0 of forward (k): block_per_iteration is not a "
                "boolean"));
  EXPECT_THAT(
      errorOf(withHeader(R"({"arch":"sm_90","ptx":[0,1],"cubin":[1,1],)"
                         R"("plans":[{"function":"forward","state":["a"],)"
                         R"("written_state":["b"],"buffers":[],)"
                         R"("launches":[]}]})")),
      HasSubstr("the plan of forward writes state it does not take"));
  EXPECT_THAT(
      errorOf(withHeader(R"({"arch":"sm_90","ptx":[0,1],"cubin":[1,1],)"
                         R"("plans":[{"function":"forward","state":[],)"
                         R"("written_state":[],"buffers":[{"temporary":-8}],)"
                         R"("launches":[]}]})")),
      HasSubstr("buffer 0 of forward has no valid 'temporary'"));
}

TEST(CudaImageTest, ParsesArchitectures) {
  EXPECT_EQ(parse_cuda_arch("sm_90").major, 9);
  EXPECT_EQ(parse_cuda_arch("sm_90").minor, 0);
  EXPECT_EQ(parse_cuda_arch("sm_86").minor, 6);
  EXPECT_EQ(parse_cuda_arch("sm_90a").major, 9);
  EXPECT_EQ(parse_cuda_arch("compute_120").major, 12);
  EXPECT_EQ(parse_cuda_arch("sm_100f").major, 10);
  for (const char *bad : {"sm90", "sm_9", "sm_", "gfx90a", "sm_9x", ""})
    EXPECT_FALSE(parse_cuda_arch(bad).valid()) << bad;
}

} // namespace
