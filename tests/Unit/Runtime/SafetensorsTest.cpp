//===- SafetensorsTest.cpp - Tests for safetensors reading and writing ----===//
//
// The bytes nn writes (checked against byte images from safetensors' own
// test suite), round trips through memory and files, alignment of loaded
// data, atomic saving, refusal of PyTorch pickles. Corrupt files are covered
// one case per test in SafetensorsCorruptionTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "SafetensorsTestUtil.h"

#include "nn/Runtime/Error.h"
#include "nn/Runtime/Safetensors.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace nn {
namespace {

using ::testing::ElementsAre;
using testing::fileImage;
using ::testing::HasSubstr;
using testing::le64;
using testing::readFile;
using ::testing::StartsWith;
using testing::writeFile;

/// A state_dict with one tensor of every dtype, deterministic contents.
StateDict everyDtype() {
  StateDict sd;
  sd.insert("f32", Tensor::from_vector<float>({1.5f, -2.0f, 3.0f}, {3}));
  sd.insert("f64", Tensor::from_vector<double>({0.1, 1e-300}, {2, 1}));
  Tensor f16 = Tensor::zeros({2}, DType::f16);
  uint16_t halfBits[] = {0x3C00, 0xC000};
  std::memcpy(f16.raw_data(), halfBits, 4);
  sd.insert("f16", f16);
  Tensor bf16 = Tensor::zeros({2}, DType::bf16);
  uint16_t bfBits[] = {0x3F80, 0x4040};
  std::memcpy(bf16.raw_data(), bfBits, 4);
  sd.insert("bf16", bf16);
  sd.insert("i64", Tensor::from_vector<int64_t>({INT64_MIN, INT64_MAX}, {2}));
  sd.insert("i32", Tensor::from_vector<int32_t>({-5, 5}, {1, 2}));
  sd.insert("i8", Tensor::from_vector<int8_t>({-1}, {1}));
  sd.insert("u8", Tensor::from_vector<uint8_t>({200, 7}, {2}));
  sd.insert("bool", Tensor::from_vector<bool>({true, false, true}, {3}));
  sd.insert("scalar", Tensor::from_vector<float>({9.0f}, {}));
  sd.insert("empty", Tensor::zeros({0, 4}, DType::i32));
  return sd;
}

/// Expects two state_dicts to hold the same names, dtypes, shapes and bytes
/// (order aside).
void expectSameTensors(const StateDict &actual, const StateDict &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto &[name, tensor] : expected) {
    const Tensor *got = actual.find(name);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(got->dtype(), tensor.dtype()) << name;
    EXPECT_EQ(got->shape(), tensor.shape()) << name;
    ASSERT_EQ(got->nbytes(), tensor.nbytes()) << name;
    EXPECT_EQ(std::memcmp(got->raw_data(), tensor.raw_data(), tensor.nbytes()),
              0)
        << name;
  }
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

//===----------------------------------------------------------------------===//
// The bytes written
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsTest, SerializesEmptyStateDictAsSafetensorsDoes) {
  EXPECT_EQ(serialize_safetensors(StateDict()), le64(8) + "{}      ");
}

TEST(RuntimeSafetensorsTest, SerializesMetadataOnlyAsSafetensorsDoes) {
  EXPECT_EQ(serialize_safetensors(StateDict(), {{"framework", "pt"}}),
            le64(40) + R"({"__metadata__":{"framework":"pt"}})" + "     ");
}

TEST(RuntimeSafetensorsTest, SerializesOneTensorAsSafetensorsDoes) {
  StateDict sd;
  sd.insert("attn.0",
            Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {1, 2, 3}));
  std::string header =
      R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u); // Already a multiple of 8: no padding.
  EXPECT_EQ(serialize_safetensors(sd),
            le64(64) + header + floatBytes({0, 1, 2, 3, 4, 5}));
}

TEST(RuntimeSafetensorsTest, PadsHeaderWithSpacesToAMultipleOfEight) {
  StateDict sd;
  sd.insert("attn0",
            Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {1, 1, 2, 3}));
  std::string header =
      R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  EXPECT_EQ(serialize_safetensors(sd),
            le64(72) + header + "       " + floatBytes({0, 1, 2, 3, 4, 5}));
}

TEST(RuntimeSafetensorsTest, HeaderLengthIsAMultipleOfEightForAnyNameLength) {
  for (int length = 1; length <= 16; ++length) {
    StateDict sd;
    sd.insert(std::string(length, 'n'), Tensor::zeros({1}));
    std::string bytes = serialize_safetensors(sd);
    uint64_t headerLength;
    std::memcpy(&headerLength, bytes.data(), 8);
    EXPECT_EQ(headerLength % 8, 0u) << length;
    EXPECT_EQ(bytes.size(), 8 + headerLength + 4);
  }
}

TEST(RuntimeSafetensorsTest, LaysOutByDtypeDescendingThenByName) {
  StateDict sd;
  sd.insert("a", Tensor::zeros({1}, DType::boolean));
  sd.insert("b", Tensor::zeros({1}, DType::f32));
  sd.insert("c", Tensor::zeros({1}, DType::i64));
  sd.insert("d", Tensor::zeros({1}, DType::bf16));
  sd.insert("e", Tensor::zeros({1}, DType::f16));
  sd.insert("B", Tensor::zeros({1}, DType::f32));
  sd.insert("f", Tensor::zeros({1}, DType::f64));
  sd.insert("g", Tensor::zeros({1}, DType::u8));
  sd.insert("h", Tensor::zeros({1}, DType::i8));
  sd.insert("i", Tensor::zeros({1}, DType::i32));
  auto parsed = parse_safetensors(serialize_safetensors(sd));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  // I64, F64, F32 (by name, bytewise: "B" < "b"), I32, BF16, F16, I8, U8, BOOL.
  EXPECT_THAT(parsed->tensors.keys(),
              ElementsAre("c", "f", "B", "b", "i", "d", "e", "h", "g", "a"));
}

TEST(RuntimeSafetensorsTest, MetadataComesFirstWithKeysSorted) {
  StateDict sd;
  sd.insert("w", Tensor::zeros({1}, DType::u8));
  std::string bytes =
      serialize_safetensors(sd, {{"zz", "last"}, {"format", "pt"}});
  EXPECT_THAT(bytes.substr(8),
              StartsWith(R"({"__metadata__":{"format":"pt","zz":"last"},)"
                         R"("w":{"dtype":"U8","shape":[1],)"
                         R"("data_offsets":[0,1]}})"));
}

TEST(RuntimeSafetensorsTest, EscapesNamesAsSerdeJsonDoes) {
  StateDict sd;
  sd.insert("q\"\\\n\x01\xC3\xBC", Tensor::zeros({0}));
  std::string bytes = serialize_safetensors(sd);
  EXPECT_THAT(bytes, HasSubstr(R"({"q\"\\\n\u0001)"
                               "\xC3\xBC"
                               R"(":{"dtype")"));
  auto parsed = parse_safetensors(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->tensors.keys(), ElementsAre("q\"\\\n\x01\xC3\xBC"));
}

TEST(RuntimeSafetensorsTest, WritesTiedTensorsOncePerName) {
  Tensor shared = Tensor::from_vector<float>({1, 2}, {2});
  StateDict sd;
  sd.insert("embed.weight", shared);
  sd.insert("head.weight", shared);
  std::string bytes = serialize_safetensors(sd);
  EXPECT_THAT(bytes, HasSubstr(R"("embed.weight":{"dtype":"F32","shape":[2],)"
                               R"("data_offsets":[0,8]})"));
  EXPECT_THAT(bytes, HasSubstr(R"("head.weight":{"dtype":"F32","shape":[2],)"
                               R"("data_offsets":[8,16]})"));
  auto parsed = parse_safetensors(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->tensors.at("embed.weight")
                   .shares_storage(parsed->tensors.at("head.weight")));
  EXPECT_EQ(parsed->tensors.at("head.weight").data_ptr<float>()[1], 2.0f);
}

TEST(RuntimeSafetensorsTest, SerializeRejectsSymbolicTensor) {
  struct Node : TraceNode {};
  StateDict sd;
  sd.insert("x", Tensor::symbolic({2}, DType::f32, std::make_shared<Node>()));
  try {
    serialize_safetensors(sd);
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "serialize_safetensors: cannot save tensor \"x\": "
                           "Tensor[float32, 2, symbolic] has no data");
  }
}

TEST(RuntimeSafetensorsTest, SerializeRejectsEmptyName) {
  StateDict sd;
  sd.insert("", Tensor::zeros({1}));
  EXPECT_THROW(serialize_safetensors(sd), Error);
}

TEST(RuntimeSafetensorsTest, SerializeRejectsReservedMetadataName) {
  StateDict sd;
  sd.insert("__metadata__", Tensor::zeros({1}));
  try {
    serialize_safetensors(sd);
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(), HasSubstr("safetensors reserves that key"));
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsTest, RoundTripsEveryDtypeInMemory) {
  StateDict sd = everyDtype();
  auto parsed = parse_safetensors(serialize_safetensors(sd, {{"k", "v"}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  expectSameTensors(parsed->tensors, sd);
  EXPECT_EQ(parsed->metadata, (Metadata{{"k", "v"}}));
}

TEST(RuntimeSafetensorsTest, MetadataIsEmptyWhenAbsent) {
  auto parsed = parse_safetensors(serialize_safetensors(everyDtype()));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->metadata.empty());
}

TEST(RuntimeSafetensorsTest, KeepsHeaderOrderNotOffsetOrder) {
  std::string header =
      R"({"second":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
      R"("first":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  auto parsed = parse_safetensors(fileImage(header, floatBytes({1, 2})));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->tensors.keys(), ElementsAre("second", "first"));
  EXPECT_EQ(parsed->tensors.at("second").data_ptr<float>()[0], 2.0f);
}

TEST(RuntimeSafetensorsTest, AcceptsUnpaddedHeader) {
  std::string header =
      R"({"w":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})";
  auto parsed = parse_safetensors(fileImage(header, "abc"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->tensors.at("w").item_as_double(2), 'c');
}

TEST(RuntimeSafetensorsTest, AcceptsZeroSizedTensorsSharingAnOffset) {
  std::string header =
      R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
      R"("b":{"dtype":"I64","shape":[2,0],"data_offsets":[4,4]},)"
      R"("c":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  auto parsed = parse_safetensors(fileImage(header, floatBytes({5})));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->tensors.at("b").shape(), (Shape{2, 0}));
}

TEST(RuntimeSafetensorsTest, AcceptsFileWithoutTensors) {
  auto parsed = parse_safetensors(fileImage("{}"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->tensors.empty());
}

TEST(RuntimeSafetensorsTest, LoadedDataIsSixtyFourByteAligned) {
  // The source image starts at an odd address, so a reader that casts
  // pointers into it would be misaligned; nn copies into aligned storage.
  std::string bytes = serialize_safetensors(everyDtype());
  std::string shifted = "x" + bytes;
  auto parsed =
      parse_safetensors(std::string_view(shifted).substr(1), "shifted");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  for (const auto &[name, tensor] : parsed->tensors)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.raw_data()) % 64, 0u) << name;
  expectSameTensors(parsed->tensors, everyDtype());
}

TEST(RuntimeSafetensorsTest, FileWhoseFirstByteIs0x80IsNotTakenForAPickle) {
  // A header of 384 bytes makes the length prefix 80 01 00 ..., which starts
  // like a pickle stream; the '{' after it shows it is safetensors.
  std::string header =
      R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  header.resize(384, ' ');
  std::string bytes = fileImage(header, "z");
  ASSERT_EQ(static_cast<unsigned char>(bytes[0]), 0x80);
  auto parsed = parse_safetensors(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->tensors.at("w").item_as_double(0), 'z');
}

TEST(RuntimeSafetensorsTest, RefusesZipArchiveAsPickle) {
  std::string bytes = std::string("PK\x03\x04", 4) + std::string(60, '\0');
  auto parsed = parse_safetensors(bytes, "model.bin");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()),
            "model.bin: this is a zip archive as torch.save writes (a "
            "PyTorch pickle), not a safetensors file; nn never reads pickle. "
            "Export the weights with safetensors instead: "
            "safetensors.torch.save_file(model.state_dict(), "
            "\"model.safetensors\")");
}

TEST(RuntimeSafetensorsTest, RefusesPickleStream) {
  std::string bytes = std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46", 8) +
                      std::string(40, '\0');
  auto parsed = parse_safetensors(bytes, "old.bin");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()),
              StartsWith("old.bin: this is a Python pickle stream (protocol "
                         "2), as legacy torch.save writes, not a safetensors "
                         "file; nn never reads pickle."));
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("safetensors.torch.save_file(model.state_dict(), "));
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

class RuntimeSafetensorsFileTest : public testing::TempDirTest {};

TEST_F(RuntimeSafetensorsFileTest, SaveThenLoadRoundTripsEveryDtype) {
  std::string path = (dir / "all.safetensors").string();
  ASSERT_TRUE(save_safetensors(path, everyDtype(), {{"format", "pt"}}).ok());
  auto loaded = load_safetensors(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  expectSameTensors(loaded->tensors, everyDtype());
  EXPECT_EQ(loaded->metadata, (Metadata{{"format", "pt"}}));
}

TEST_F(RuntimeSafetensorsFileTest, SaveWritesExactlyTheSerializedBytes) {
  std::string path = (dir / "w.safetensors").string();
  ASSERT_TRUE(save_safetensors(path, everyDtype()).ok());
  EXPECT_EQ(readFile(path), serialize_safetensors(everyDtype()));
}

TEST_F(RuntimeSafetensorsFileTest, LoadedTensorsAreSixtyFourByteAligned) {
  std::string path = (dir / "w.safetensors").string();
  ASSERT_TRUE(save_safetensors(path, everyDtype()).ok());
  auto loaded = load_safetensors(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (const auto &[name, tensor] : loaded->tensors)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.raw_data()) % 64, 0u) << name;
}

TEST_F(RuntimeSafetensorsFileTest, SaveReplacesAnExistingFile) {
  std::string path = (dir / "w.safetensors").string();
  writeFile(path, "old contents");
  ASSERT_TRUE(save_safetensors(path, everyDtype()).ok());
  EXPECT_EQ(readFile(path), serialize_safetensors(everyDtype()));
  EXPECT_THAT(listDir(), ElementsAre("w.safetensors"));
}

// A save killed before its rename leaves its temporary file; the next save
// of the same file removes it, but not the one a save still writes (locked)
// nor another file's.
TEST_F(RuntimeSafetensorsFileTest, SaveRemovesTheTempFilesOfKilledSaves) {
  std::string path = (dir / "w.safetensors").string();
  writeFile((dir / ".w.safetensors.tmp.k1lled").string(), "half");
  writeFile((dir / ".w.safetensors.tmp.wr1t3s").string(), "in progress");
  writeFile((dir / ".v.safetensors.tmp.k1lled").string(), "another file's");
  writeFile((dir / ".w.safetensors.tmp.k1lled.mine").string(), "not a temp");
  int writing = ::open((dir / ".w.safetensors.tmp.wr1t3s").c_str(), O_RDONLY);
  ASSERT_GE(writing, 0);
  ASSERT_EQ(::flock(writing, LOCK_EX), 0);
  ASSERT_TRUE(save_safetensors(path, everyDtype()).ok());
  ::close(writing);
  EXPECT_THAT(listDir(),
              ElementsAre(".v.safetensors.tmp.k1lled",
                          ".w.safetensors.tmp.k1lled.mine",
                          ".w.safetensors.tmp.wr1t3s", "w.safetensors"));
}

// A child process saves two states in turn and is killed at random points:
// the file is always one of them whole, and after the next save no
// temporary file is left. The kills are drawn over a window that doubles
// every 10 rounds until some land mid-save: how long a child takes to
// reach its first save (fork, parse) depends on the machine and on the
// build (under ASan on Zen 5 none did within 30 ms).
TEST_F(RuntimeSafetensorsFileTest, SaveKilledAtRandomPointsNeverLeavesAMix) {
  std::string path = (dir / "w.safetensors").string();
  std::string states[2];
  for (int i = 0; i < 2; ++i) {
    StateDict sd;
    std::vector<float> values(1 << 20, static_cast<float>(i + 1));
    sd.insert("w", Tensor::from_vector<float>(values, {1 << 20}));
    states[i] = serialize_safetensors(sd);
    if (i == 0) {
      ASSERT_TRUE(save_safetensors(path, sd).ok());
    }
  }
  std::mt19937 random(7);
  int killedMidSave = 0, windowUs = 30'000;
  for (int round = 0; round < 40 || (killedMidSave == 0 && round < 200);
       ++round) {
    if (round % 10 == 9 && killedMidSave == 0)
      windowUs = std::min(2 * windowUs, 2'000'000);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0;; ++i) {
        auto image = parse_safetensors(states[i % 2]);
        if (!image.ok() || !save_safetensors(path, image->tensors).ok())
          ::_exit(1);
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::uniform_int_distribution<int>(0, windowUs)(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the saving child failed";
    std::string now = readFile(path);
    ASSERT_TRUE(now == states[0] || now == states[1])
        << "round " << round << ": the file is neither state whole ("
        << now.size() << " bytes)";
    killedMidSave += listDir().size() > 1;
  }
  // Some kills landed between a temporary file's creation and its rename.
  EXPECT_GT(killedMidSave, 0);
  ASSERT_TRUE(
      save_safetensors(path, parse_safetensors(states[1])->tensors).ok());
  EXPECT_THAT(listDir(), ElementsAre("w.safetensors"));
}

TEST_F(RuntimeSafetensorsFileTest, SaveIntoMissingFolderFails) {
  std::string path = (dir / "missing" / "w.safetensors").string();
  absl::Status status = save_safetensors(path, everyDtype());
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(status.message()),
            path + ": cannot create a temporary file in " +
                (dir / "missing").string() + ": No such file or directory");
  EXPECT_THAT(listDir(), ElementsAre());
}

TEST_F(RuntimeSafetensorsFileTest,
       FailedWriteLeavesExistingFileUnchangedAndNoTempFile) {
  // Make the write itself fail (as a full disk would) with a file size
  // limit; this works for every user, root included.
  std::string path = (dir / "w.safetensors").string();
  writeFile(path, "precious");
  StateDict big;
  big.insert("big", Tensor::zeros({1 << 20}));
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = saved;
  limited.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  absl::Status status = save_safetensors(path, big);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previousHandler);

  EXPECT_FALSE(status.ok());
  EXPECT_THAT(
      std::string(status.message()),
      StartsWith(path + ": writing " + (dir / ".w.safetensors.tmp.").string()));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(" failed: File too large"));
  EXPECT_EQ(readFile(path), "precious");
  EXPECT_THAT(listDir(), ElementsAre("w.safetensors"));
}

TEST_F(RuntimeSafetensorsFileTest, SaveIntoReadOnlyFolderLeavesFileUnchanged) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root writes into read-only folders; the failed-write "
                    "test covers this for root";
  std::string path = (dir / "w.safetensors").string();
  writeFile(path, "precious");
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  absl::Status status = save_safetensors(path, everyDtype());
  ::chmod(dir.c_str(), 0755);
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(std::string(status.message()),
            path + ": cannot create a temporary file in " + dir.string() +
                ": Permission denied");
  EXPECT_EQ(readFile(path), "precious");
  EXPECT_THAT(listDir(), ElementsAre("w.safetensors"));
}

TEST_F(RuntimeSafetensorsFileTest, SaveOverAFolderFailsAndRemovesTempFile) {
  std::string path = (dir / "taken").string();
  std::filesystem::create_directory(path);
  absl::Status status = save_safetensors(path, everyDtype());
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              StartsWith(path + ": cannot rename "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("Is a directory"));
  EXPECT_THAT(listDir(), ElementsAre("taken"));
}

TEST_F(RuntimeSafetensorsFileTest, SaveRejectsSymbolicTensorWithThePath) {
  struct Node : TraceNode {};
  StateDict sd;
  sd.insert("x", Tensor::symbolic({2}, DType::f32, std::make_shared<Node>()));
  std::string path = (dir / "w.safetensors").string();
  absl::Status status = save_safetensors(path, sd);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            path + ": cannot save tensor \"x\": "
                   "Tensor[float32, 2, symbolic] has no "
                   "data");
  EXPECT_THAT(listDir(), ElementsAre());
}

TEST_F(RuntimeSafetensorsFileTest, NewFileGetsPermissionsFromTheUmask) {
  std::string path = (dir / "w.safetensors").string();
  mode_t previous = ::umask(027);
  absl::Status status = save_safetensors(path, everyDtype());
  ::umask(previous);
  ASSERT_TRUE(status.ok()) << status;
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
}

TEST_F(RuntimeSafetensorsFileTest, SaveKeepsAnExistingFilesPermissions) {
  std::string path = (dir / "w.safetensors").string();
  writeFile(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(save_safetensors(path, everyDtype()).ok());
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(RuntimeSafetensorsFileTest, LoadMissingFileNamesThePath) {
  std::string path = (dir / "nope.safetensors").string();
  auto loaded = load_safetensors(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(loaded.status().message()),
            path + ": cannot open: No such file or directory");
}

TEST_F(RuntimeSafetensorsFileTest, LoadRefusesAFolder) {
  auto loaded = load_safetensors(dir.string());
  EXPECT_EQ(std::string(loaded.status().message()),
            dir.string() + ": not a regular file");
}

TEST_F(RuntimeSafetensorsFileTest, LoadReportsCorruptionWithThePath) {
  std::string path = (dir / "short.safetensors").string();
  writeFile(path, "abc");
  auto loaded = load_safetensors(path);
  EXPECT_EQ(std::string(loaded.status().message()),
            path + ": file is 3 bytes, too short for the 8-byte header length");
}

TEST_F(RuntimeSafetensorsFileTest, LoadValidatesOffsetsAgainstTheFileSize) {
  std::string header =
      R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string path = (dir / "cut.safetensors").string();
  writeFile(path, fileImage(header, "1234"));
  auto loaded = load_safetensors(path);
  EXPECT_EQ(std::string(loaded.status().message()),
            path + ": tensor \"w\" data_offsets [0,8] run past the end of the "
                   "data region (4 bytes)");
}

TEST_F(RuntimeSafetensorsFileTest, LoadRefusesPtFileAsPickle) {
  std::string path = (dir / "model.pt").string();
  writeFile(path, serialize_safetensors(everyDtype()));
  auto loaded = load_safetensors(path);
  EXPECT_EQ(std::string(loaded.status().message()),
            path + ": a .pt/.pth file is a PyTorch pickle, not a safetensors "
                   "file; nn never reads pickle. Export the weights with "
                   "safetensors instead: "
                   "safetensors.torch.save_file(model.state_dict(), "
                   "\"model.safetensors\")");
}

TEST_F(RuntimeSafetensorsFileTest, LoadRefusesPthFileAsPickle) {
  std::string path = (dir / "CHECKPOINT.PTH").string();
  writeFile(path, std::string("PK\x03\x04", 4));
  auto loaded = load_safetensors(path);
  EXPECT_THAT(std::string(loaded.status().message()),
              StartsWith(path + ": a .pt/.pth file is a PyTorch pickle"));
}

TEST_F(RuntimeSafetensorsFileTest, LoadRefusesZipContentWhateverTheName) {
  std::string path = (dir / "weights.bin").string();
  writeFile(path, std::string("PK\x03\x04", 4) + std::string(100, 'x'));
  auto loaded = load_safetensors(path);
  EXPECT_THAT(std::string(loaded.status().message()),
              StartsWith(path + ": this is a zip archive as torch.save "
                                "writes"));
}

} // namespace
} // namespace nn
