//===- ArtifactTestTable.h - Hand-written artifact tables for tests -------===//
//
// The Artifact tests drive nn::Artifact with tables written by hand (no
// compiler involved), so they check the runtime's side of ArtifactABI.h on
// its own: these are the context and prepare entries such a table needs
// when the test is not about them.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_UNIT_RUNTIME_ARTIFACTTESTTABLE_H
#define NN_TESTS_UNIT_RUNTIME_ARTIFACTTESTTABLE_H

#include "nn/Runtime/ArtifactABI.h"

namespace nn::testing {

inline void *createTagContext() {
  static char tag;
  return &tag;
}
inline void destroyNothing(void *) {}
inline int32_t prepareNothing(void *, void *const *) { return 0; }

/// A version-2 table around `forward` with nothing to prepare.
inline nn_artifact_v2 tableWith(const char *json,
                                int32_t (*forward)(void *, void *const *)) {
  return nn_artifact_v2{NN_ARTIFACT_ABI_VERSION, json,    createTagContext,
                        destroyNothing,          forward, prepareNothing};
}

} // namespace nn::testing

#endif // NN_TESTS_UNIT_RUNTIME_ARTIFACTTESTTABLE_H
