//===- FakeCudaDriver.h - What the CUDA tests ask the fake driver -*- C++
//-*-===//
//
// The fake driver (Inputs/fake_libcuda.c) counts the kernels it is asked
// to launch; the tests of launching read the count through it.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_UNIT_RUNTIME_FAKECUDADRIVER_H
#define NN_TESTS_UNIT_RUNTIME_FAKECUDADRIVER_H

#include <dlfcn.h>

namespace nn::test {

/// The launches the fake driver has taken so far; -1 where it is not
/// loaded.
inline int fakeCudaLaunches() {
  void *fake = dlopen(NN_TEST_FAKE_CUDA_DRIVER_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (!fake)
    return -1;
  auto count =
      reinterpret_cast<int (*)()>(dlsym(fake, "nn_fake_cuda_launches"));
  int n = count ? count() : -1;
  dlclose(fake);
  return n;
}

} // namespace nn::test

#endif // NN_TESTS_UNIT_RUNTIME_FAKECUDADRIVER_H
