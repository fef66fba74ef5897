//===- SafetensorsTestUtil.h - Helpers for the safetensors tests -*- C++
//-*-===//
//
// Building safetensors file images by hand (length prefix + header + data),
// reading files, and a temporary folder per test.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_UNIT_RUNTIME_SAFETENSORSTESTUTIL_H
#define NN_TESTS_UNIT_RUNTIME_SAFETENSORSTESTUTIL_H

#include "nn/Runtime/Safetensors.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nn::testing {

/// `value` as 8 little-endian bytes.
inline std::string le64(uint64_t value) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &value, 8);
  return out;
}

/// A file image: length prefix, `header` as given (no padding), `data`.
inline std::string fileImage(std::string_view header,
                             std::string_view data = {}) {
  return le64(header.size()) + std::string(header) + std::string(data);
}

inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void writeFile(const std::filesystem::path &path,
                      std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

/// A fixture with a fresh temporary folder, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "nn-runtime-test-XXXXXX")
            .string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(dir, ignored);
  }
  /// The names in the temporary folder, sorted.
  std::vector<std::string> listDir() const {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::filesystem::path dir;
};

} // namespace nn::testing

#endif // NN_TESTS_UNIT_RUNTIME_SAFETENSORSTESTUTIL_H
