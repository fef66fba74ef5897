//===- CHeader.cpp - A typed C header for a compiled model ----------------===//

#include "nn/Conversion/CPU/CHeader.h"
#include "nn/Runtime/ArtifactDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::nn;

namespace {

/// A tensor of the description, as C declares it.
struct CTensor {
  std::string name;       // the description's ("input.0")
  std::string identifier; // the struct member's ("input_0")
  std::string cType;      // "float"
  std::string dtypeEnum;  // "NN_F32"
  std::string dtype;      // "F32"
  std::vector<int64_t> shape;
};

/// The C element type and nn_dtype of a safetensors dtype name.
bool cTypeOf(llvm::StringRef dtype, std::string &cType,
             std::string &dtypeEnum) {
  static const struct {
    const char *dtype, *cType;
  } kTypes[] = {{"F32", "float"},     {"F64", "double"},  {"F16", "uint16_t"},
                {"BF16", "uint16_t"}, {"I64", "int64_t"}, {"I32", "int32_t"},
                {"I8", "int8_t"},     {"U8", "uint8_t"},  {"BOOL", "uint8_t"}};
  for (const auto &t : kTypes)
    if (dtype == t.dtype) {
      cType = t.cType;
      dtypeEnum = "NN_" + dtype.str();
      return true;
    }
  return false;
}

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `list` (the description's inputs or outputs) as C declares them, with
/// identifiers unique within the list.
llvm::Expected<std::vector<CTensor>>
tensorsOf(const std::vector<::nn::TensorInfo> &list) {
  std::vector<CTensor> tensors;
  llvm::StringSet<> taken;
  for (const ::nn::TensorInfo &info : list) {
    CTensor tensor;
    tensor.name = info.name;
    tensor.dtype = std::string(::nn::dtype_safetensors_name(info.dtype));
    if (!cTypeOf(tensor.dtype, tensor.cType, tensor.dtypeEnum))
      return error("'" + info.name + "' has dtype " + tensor.dtype +
                   ", which C cannot hold");
    for (int64_t size : info.shape) {
      if (size <= 0)
        return error(
            "'" + info.name +
            "' has a dimension of size 0, which a C array cannot have");
      tensor.shape.push_back(size);
    }
    tensor.identifier = cIdentifier(info.name);
    for (int suffix = 2; !taken.insert(tensor.identifier).second; ++suffix)
      tensor.identifier = cIdentifier(info.name) + "_" + std::to_string(suffix);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  return shape.empty() ? "scalar"
                       : llvm::join(llvm::map_range(shape,
                                                    [](int64_t d) {
                                                      return std::to_string(d);
                                                    }),
                                    "x");
}

/// The struct `type` holding `tensors` as arrays.
void writeStruct(llvm::raw_ostream &os, llvm::StringRef type,
                 llvm::ArrayRef<CTensor> tensors) {
  os << "typedef struct " << type << " {\n";
  if (tensors.empty())
    os << "  char nothing; /* the model has none */\n";
  for (const CTensor &t : tensors) {
    os << "  " << t.cType << " " << t.identifier;
    for (int64_t d : t.shape)
      os << "[" << d << "]";
    os << "; /* \"" << t.name << "\": " << t.dtype << " " << shapeText(t.shape)
       << " */\n";
  }
  os << "} " << type << ";\n\n";
}

/// The nn_tensor array `array` over the members of `object`.
void writeTensorArray(llvm::raw_ostream &os, llvm::StringRef array,
                      llvm::StringRef object, llvm::ArrayRef<CTensor> tensors,
                      bool constant) {
  if (tensors.empty()) {
    os << "  const nn_tensor *" << array << " = 0;\n";
    return;
  }
  for (const CTensor &t : tensors)
    if (!t.shape.empty())
      os << "  static const int64_t " << array << "_" << t.identifier
         << "_shape[] = {"
         << llvm::join(
                llvm::map_range(t.shape,
                                [](int64_t d) { return std::to_string(d); }),
                ", ")
         << "};\n";
  os << "  const nn_tensor " << array << "[] = {\n";
  for (const CTensor &t : tensors) {
    os << "      {" << (constant ? "(void *)" : "") << "&" << object << "->"
       << t.identifier << ", ";
    if (t.shape.empty())
      os << "0";
    else
      os << array << "_" << t.identifier << "_shape";
    os << ", " << t.shape.size() << ", " << t.dtypeEnum << "},\n";
  }
  os << "  };\n";
}

} // namespace

std::string mlir::nn::cIdentifier(llvm::StringRef text) {
  std::string id;
  for (char c : text)
    id.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  if (id.empty() || llvm::isDigit(id.front()))
    id.insert(id.begin(), '_');
  return id;
}

llvm::Expected<std::string>
mlir::nn::writeCHeader(const ::nn::ArtifactDescription &description,
                       llvm::StringRef name, llvm::StringRef source) {
  llvm::Expected<std::vector<CTensor>> inputs = tensorsOf(description.inputs);
  if (!inputs)
    return inputs.takeError();
  llvm::Expected<std::vector<CTensor>> outputs = tensorsOf(description.outputs);
  if (!outputs)
    return outputs.takeError();

  std::string prefix = cIdentifier(name);
  std::string guard = "NN_MODEL_" + llvm::StringRef(prefix).upper() + "_H";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv(
      R"(/* {0}: the C interface of the compiled model {0}, written by
 * nn-compile --emit=header from {1}.
 * The model's .so is loaded and run through libnn_c.so (nn/Runtime/CApi.h),
 * which checks every tensor:
 *
 *   nn_artifact *model = nn_artifact_load("{0}.so");
 *   if (!model || nn_artifact_bind_safetensors(model, "weights.safetensors"))
 *     fprintf(stderr, "%s\n", nn_last_error());
 *   {0}_inputs *in = malloc(sizeof *in);
 *   {0}_outputs *out = malloc(sizeof *out);
 *   ... fill in ...
 *   if ({0}_run(model, in, out))
 *     fprintf(stderr, "%s\n", nn_last_error());
 *
 * Arrays are row-major; BOOL elements are uint8_t 0 or 1, F16 and BF16 ones
 * their uint16_t bit patterns.
 */
#ifndef {2}
#define {2}

#include "nn/Runtime/CApi.h"

#include <stdint.h>

)",
      prefix, source, guard);
  writeStruct(os, prefix + "_inputs", *inputs);
  writeStruct(os, prefix + "_outputs", *outputs);
  os << "/* Runs the model on `in` and writes `out`; 0 on success, otherwise\n"
        " * nn_last_error() says why. */\n"
     << "static inline int " << prefix << "_run(nn_artifact *model, const "
     << prefix << "_inputs *in, " << prefix << "_outputs *out) {\n";
  writeTensorArray(os, "inputs", "in", *inputs, /*constant=*/true);
  writeTensorArray(os, "outputs", "out", *outputs, /*constant=*/false);
  os << "  (void)in;\n  (void)out;\n";
  os << "  return nn_artifact_run(model, inputs, " << inputs->size()
     << ", outputs, " << outputs->size() << ");\n}\n\n#endif /* " << guard
     << " */\n";
  return os.str();
}
