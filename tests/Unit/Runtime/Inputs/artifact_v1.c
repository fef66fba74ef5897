/* A compiled model as artifact ABI version 1 exported it (no prepare entry):
 * what ArtifactPrepareTest checks the runtime refuses by name. */
#include <stdint.h>

typedef struct nn_artifact_v1 {
  uint32_t abi_version;
  const char *description_json;
  void *(*create_context)(void);
  void (*destroy_context)(void *context);
  int32_t (*forward)(void *context, void *const *args);
} nn_artifact_v1;

static char tag;
static void *create_context(void) { return &tag; }
static void destroy_context(void *context) { (void)context; }
static int32_t forward(void *context, void *const *args) {
  (void)context, (void)args;
  return 0;
}

static const nn_artifact_v1 table = {
    1, "{\"abi_version\": 1, \"state\": [], \"inputs\": [], \"outputs\": []}",
    create_context, destroy_context, forward};

__attribute__((visibility("default"))) const nn_artifact_v1 *
nn_get_artifact_v1(void) {
  return &table;
}
