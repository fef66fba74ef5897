//===- ArtifactUnloadTest.cpp - Unloading a shared object after parallel runs
//-===//
//
// A compiled shared object carries its own copy of the kernels and of their
// thread pool. Letting the last nn::Artifact of it go dlcloses it; its pool's
// workers must be stopped and joined first, or a worker still spinning for
// the next loop runs on in unmapped code (SIGSEGV, some of the time). These
// tests load, run on two threads and unload, over and over.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include "E2ETestUtil.h"

#include "gtest/gtest.h"

#include <filesystem>

namespace nn::testing {
namespace {

class ArtifactUnloadTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Large enough (67M multiply-adds) that the GEMM splits over both
    // threads.
    Linear layer(LinearOptions(512, 512));
    dir_ = new std::string(::testing::TempDir() + "/nn_artifact_unload");
    std::filesystem::create_directories(*dir_);
    compile_to_file(trace(layer, {TensorSpec({256, 512})}), path());
    weights_ = new StateDict(layer->state_dict());
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete weights_;
  }
  void SetUp() override { nn_rt_set_num_threads(2); }
  void TearDown() override { nn_rt_set_num_threads(1); }

  static std::string path() { return *dir_ + "/linear.so"; }

  /// Loads, binds and runs the model once on two threads, then lets it go.
  static void loadRunUnload(const Tensor &input) {
    auto artifact = Artifact::load(path());
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    ASSERT_TRUE((*artifact)->bind(*weights_).ok());
    auto outputs = (*artifact)->run({input});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
  }

  static std::string *dir_;
  static StateDict *weights_;
};

std::string *ArtifactUnloadTest::dir_ = nullptr;
StateDict *ArtifactUnloadTest::weights_ = nullptr;

TEST_F(ArtifactUnloadTest, UnloadJoinsTheSharedObjectsPoolWorkers) {
  Tensor input = randomTensor({256, 512}, 1);
  // Workers of this process's own pool, if an earlier test in the process
  // started them.
  size_t own = threadsNamed("nn-worker").size();
  {
    auto artifact = Artifact::load(path());
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    ASSERT_TRUE((*artifact)->bind(*weights_).ok());
    ASSERT_TRUE((*artifact)->run({input}).ok());
    // The shared object's pool started its worker.
    EXPECT_EQ(threadsNamed("nn-worker").size(), own + 1);
  }
  EXPECT_EQ(threadsNamed("nn-worker").size(), own)
      << "a pool worker outlived the shared object it runs";
}

TEST_F(ArtifactUnloadTest, LoadRunUnloadOnTwoThreadsAThousandTimes) {
  Tensor input = randomTensor({256, 512}, 2);
  size_t own = threadsNamed("nn-worker").size();
  for (int i = 0; i < 1000; ++i) {
    SCOPED_TRACE("cycle " + std::to_string(i));
    loadRunUnload(input);
    if (HasFatalFailure())
      return;
  }
  EXPECT_EQ(threadsNamed("nn-worker").size(), own);
}

} // namespace
} // namespace nn::testing
