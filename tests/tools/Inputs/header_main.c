/* A C program against the header nn-compile --emit=header writes for the
 * demo model (mlp.h): header_main MODEL.so WEIGHTS INPUT.bin OUTPUT.bin reads
 * input.0 as raw float32, runs the model and writes output.0 raw. */
#include "mlp.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr,
            "usage: header_main model.so weights input.bin output.bin\n");
    return 2;
  }
  nn_artifact *model = nn_artifact_load(argv[1]);
  if (!model || nn_artifact_bind_safetensors(model, argv[2])) {
    fprintf(stderr, "header_main: %s\n", nn_last_error());
    return 1;
  }
  mlp_inputs *in = malloc(sizeof *in);
  mlp_outputs *out = malloc(sizeof *out);
  FILE *f = fopen(argv[3], "rb");
  if (!in || !out || !f || fread(in->input_0, sizeof in->input_0, 1, f) != 1) {
    fprintf(stderr, "header_main: cannot read %s\n", argv[3]);
    return 1;
  }
  fclose(f);
  if (mlp_run(model, in, out)) {
    fprintf(stderr, "header_main: %s\n", nn_last_error());
    return 1;
  }
  f = fopen(argv[4], "wb");
  if (!f || fwrite(out->output_0, sizeof out->output_0, 1, f) != 1) {
    fprintf(stderr, "header_main: cannot write %s\n", argv[4]);
    return 1;
  }
  fclose(f);
  /* The C interface checks what the header cannot: a model of other shapes
   * is refused by name. */
  nn_tensor wrong = {in->input_0, (const int64_t[]){2, 784}, 2, NN_F32};
  nn_tensor result = {out->output_0, (const int64_t[]){64, 10}, 2, NN_F32};
  if (nn_artifact_run(model, &wrong, 1, &result, 1) == 0) {
    fprintf(stderr, "header_main: a 2x784 input was accepted\n");
    return 1;
  }
  printf("refused: %s\n", nn_last_error());
  nn_artifact_free(model);
  free(in);
  free(out);
  return 0;
}
