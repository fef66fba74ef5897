//===- CudaImage.cpp - A compiled model's GPU half, to and from bytes -----===//
//
// The one writer and the one reader of the format of nn/Runtime/CudaImage.h.
// The reader checks every offset, size and index against what it points
// into before anything is used.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/CudaImage.h"

#include "Json.h"

#include "absl/strings/str_cat.h"

#include <algorithm>

namespace nn::cuda {
namespace {

constexpr std::string_view kMagic = "NNCUDA01";

/// Appends `bytes` to the payload; its [offset, size] for the header.
json::Value appendBlob(std::string &payload, std::string_view bytes) {
  json::Array where = {static_cast<uint64_t>(payload.size()),
                       static_cast<uint64_t>(bytes.size())};
  payload.append(bytes);
  return where;
}

json::Value planJson(const LaunchPlan &plan, std::string &payload) {
  json::Array state(plan.state.begin(), plan.state.end());
  json::Array written(plan.writtenState.begin(), plan.writtenState.end());
  json::Array buffers;
  for (const PlanBuffer &buffer : plan.buffers) {
    switch (buffer.kind) {
    case PlanBuffer::Kind::Argument: {
      json::Object argument = {
          {"argument", static_cast<uint64_t>(buffer.argument)}};
      if (!buffer.data.empty())
        argument.emplace_back(
            "default",
            appendBlob(payload, std::string_view(buffer.data.data(),
                                                 buffer.data.size())));
      buffers.push_back(std::move(argument));
      break;
    }
    case PlanBuffer::Kind::Temporary:
      buffers.push_back(json::Object{{"temporary", buffer.bytes}});
      break;
    case PlanBuffer::Kind::Constant:
      buffers.push_back(json::Object{
          {"constant",
           appendBlob(payload, std::string_view(buffer.data.data(),
                                                buffer.data.size()))}});
      break;
    }
  }
  json::Array launches;
  for (const PlanLaunch &launch : plan.launches) {
    json::Array used;
    for (unsigned b : launch.buffers)
      used.push_back(static_cast<uint64_t>(b));
    json::Object entry{{"kernel", launch.kernel},
                       {"buffers", std::move(used)},
                       {"iterations", launch.iterations}};
    if (launch.blockPerIteration)
      entry.emplace_back("block_per_iteration", true);
    launches.push_back(std::move(entry));
  }
  return json::Object{{"function", plan.function},
                      {"state", std::move(state)},
                      {"written_state", std::move(written)},
                      {"buffers", std::move(buffers)},
                      {"launches", std::move(launches)}};
}

/// Reads a header while checking it; every error names the source.
class Reader {
public:
  Reader(std::string_view payload, const std::string &source)
      : payload_(payload), source_(source) {}

  absl::Status error(const std::string &what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ": invalid CUDA image: ", what));
  }

  /// A non-negative integer member `key` of `object`.
  absl::StatusOr<int64_t> count(const json::Value &object, const char *key,
                                const std::string &where) const {
    const json::Value *v = object.find(key);
    std::optional<int64_t> n = v ? v->getInteger() : std::nullopt;
    if (!n || *n < 0)
      return error(absl::StrCat(where, " has no valid '", key, "'"));
    return *n;
  }

  /// The payload bytes an [offset, size] pair names.
  absl::StatusOr<std::string_view> blob(const json::Value *where,
                                        const std::string &what) const {
    if (!where || !where->isArray() || where->getArray().size() != 2)
      return error(absl::StrCat(what, " is not an [offset, size] pair"));
    std::optional<int64_t> offset = where->getArray()[0].getInteger();
    std::optional<int64_t> size = where->getArray()[1].getInteger();
    if (!offset || !size || *offset < 0 || *size < 0 ||
        static_cast<uint64_t>(*offset) > payload_.size() ||
        static_cast<uint64_t>(*size) > payload_.size() - *offset)
      return error(absl::StrCat(what, " lies outside the image's ",
                                payload_.size(), " bytes of payload"));
    return payload_.substr(*offset, *size);
  }

  absl::StatusOr<LaunchPlan> plan(const json::Value &value) const {
    LaunchPlan plan;
    const json::Value *function = value.find("function");
    if (!value.isObject() || !function || !function->isString() ||
        function->getString().empty())
      return error("a plan has no function name");
    plan.function = function->getString();
    const std::string &name = plan.function;
    auto list = [&](const char *key) -> absl::StatusOr<const json::Array *> {
      const json::Value *v = value.find(key);
      if (!v || !v->isArray())
        return error(
            absl::StrCat("the plan of ", name, " has no '", key, "' list"));
      return &v->getArray();
    };
    absl::StatusOr<const json::Array *> state = list("state");
    if (!state.ok())
      return state.status();
    for (const json::Value &s : **state) {
      if (!s.isString())
        return error(absl::StrCat("the plan of ", name,
                                  " names its state with a non-string"));
      plan.state.push_back(s.getString());
    }
    absl::StatusOr<const json::Array *> written = list("written_state");
    if (!written.ok())
      return written.status();
    for (const json::Value &w : **written) {
      if (!w.isString() || std::find(plan.state.begin(), plan.state.end(),
                                     w.getString()) == plan.state.end())
        return error(absl::StrCat("the plan of ", name,
                                  " writes state it does not take"));
      plan.writtenState.push_back(w.getString());
    }
    absl::StatusOr<const json::Array *> buffers = list("buffers");
    if (!buffers.ok())
      return buffers.status();
    for (size_t i = 0; i < (*buffers)->size(); ++i) {
      const json::Value &b = (**buffers)[i];
      std::string where = absl::StrCat("buffer ", i, " of ", name);
      PlanBuffer buffer;
      if (b.find("argument")) {
        absl::StatusOr<int64_t> argument = count(b, "argument", where);
        if (!argument.ok())
          return argument.status();
        if (*argument > 65535)
          return error(absl::StrCat(where, " is argument ", *argument));
        buffer.kind = PlanBuffer::Kind::Argument;
        buffer.argument = static_cast<unsigned>(*argument);
        if (const json::Value *fallback = b.find("default")) {
          absl::StatusOr<std::string_view> data =
              blob(fallback, where + "'s default");
          if (!data.ok())
            return data.status();
          buffer.bytes = static_cast<int64_t>(data->size());
          buffer.data.assign(data->begin(), data->end());
        }
      } else if (b.find("temporary")) {
        absl::StatusOr<int64_t> bytes = count(b, "temporary", where);
        if (!bytes.ok())
          return bytes.status();
        buffer.kind = PlanBuffer::Kind::Temporary;
        buffer.bytes = *bytes;
      } else {
        absl::StatusOr<std::string_view> data = blob(b.find("constant"), where);
        if (!data.ok())
          return data.status();
        buffer.kind = PlanBuffer::Kind::Constant;
        buffer.bytes = static_cast<int64_t>(data->size());
        buffer.data.assign(data->begin(), data->end());
      }
      plan.buffers.push_back(std::move(buffer));
    }
    absl::StatusOr<const json::Array *> launches = list("launches");
    if (!launches.ok())
      return launches.status();
    for (size_t i = 0; i < (*launches)->size(); ++i) {
      const json::Value &l = (**launches)[i];
      std::string where = absl::StrCat("launch ", i, " of ", name);
      PlanLaunch launch;
      const json::Value *kernel = l.find("kernel");
      const json::Value *used = l.find("buffers");
      if (!kernel || !kernel->isString() || kernel->getString().empty() ||
          !used || !used->isArray())
        return error(absl::StrCat(where, " needs a kernel and its buffers"));
      launch.kernel = kernel->getString();
      for (const json::Value &u : used->getArray()) {
        std::optional<int64_t> index = u.getInteger();
        if (!index || *index < 0 ||
            static_cast<size_t>(*index) >= plan.buffers.size())
          return error(absl::StrCat(where, " (", launch.kernel,
                                    ") reads a buffer outside the plan's ",
                                    plan.buffers.size()));
        launch.buffers.push_back(static_cast<unsigned>(*index));
      }
      absl::StatusOr<int64_t> iterations = count(l, "iterations", where);
      if (!iterations.ok())
        return iterations.status();
      launch.iterations = *iterations;
      if (const json::Value *perBlock = l.find("block_per_iteration")) {
        if (!perBlock->isBool())
          return error(absl::StrCat(where, " (", launch.kernel,
                                    "): block_per_iteration is not a "
                                    "boolean"));
        launch.blockPerIteration = perBlock->getBool();
      }
      plan.launches.push_back(std::move(launch));
    }
    return plan;
  }

private:
  std::string_view payload_;
  const std::string &source_;
};

} // namespace

const LaunchPlan *CudaImage::plan(std::string_view function) const {
  for (const LaunchPlan &p : plans)
    if (p.function == function)
      return &p;
  return nullptr;
}

std::string serialize_cuda_image(const CudaImage &image) {
  std::string payload;
  json::Object header = {{"arch", image.arch},
                         {"ptx", appendBlob(payload, image.ptx)},
                         {"cubin", appendBlob(payload, image.cubin)}};
  json::Array plans;
  for (const LaunchPlan &plan : image.plans)
    plans.push_back(planJson(plan, payload));
  header.emplace_back("plans", std::move(plans));
  std::string text = json::write(header);
  std::string bytes(kMagic);
  uint64_t size = text.size();
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  return bytes + text + payload;
}

absl::StatusOr<CudaImage> parse_cuda_image(std::string_view bytes,
                                           const std::string &source) {
  Reader top({}, source);
  if (bytes.size() < kMagic.size() + 8 ||
      bytes.substr(0, kMagic.size()) != kMagic)
    return top.error("it does not start with " + std::string(kMagic));
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t{static_cast<unsigned char>(bytes[kMagic.size() + i])}
            << (8 * i);
  std::string_view rest = bytes.substr(kMagic.size() + 8);
  if (size > rest.size())
    return top.error(absl::StrCat("its header of ", size, " bytes ends past ",
                                  "its ", bytes.size(), " bytes"));
  absl::StatusOr<json::Value> header = json::parse(rest.substr(0, size));
  if (!header.ok())
    return top.error(std::string(header.status().message()));
  Reader reader(rest.substr(size), source);
  const json::Value *arch = header->find("arch");
  if (!header->isObject() || !arch || !arch->isString() ||
      !parse_cuda_arch(arch->getString()).valid())
    return reader.error("it names no architecture (\"sm_90\")");
  CudaImage image;
  image.arch = arch->getString();
  absl::StatusOr<std::string_view> ptx =
      reader.blob(header->find("ptx"), "ptx");
  if (!ptx.ok())
    return ptx.status();
  absl::StatusOr<std::string_view> cubin =
      reader.blob(header->find("cubin"), "cubin");
  if (!cubin.ok())
    return cubin.status();
  image.ptx = std::string(*ptx);
  image.cubin = std::string(*cubin);
  const json::Value *plans = header->find("plans");
  if (!plans || !plans->isArray())
    return reader.error("'plans' is not a list");
  for (const json::Value &p : plans->getArray()) {
    absl::StatusOr<LaunchPlan> plan = reader.plan(p);
    if (!plan.ok())
      return plan.status();
    image.plans.push_back(std::move(*plan));
  }
  return image;
}

ComputeCapability parse_cuda_arch(std::string_view arch) {
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (arch.substr(0, prefix.size()) != prefix)
      continue;
    std::string_view digits = arch.substr(prefix.size());
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f'))
      digits.remove_suffix(1);
    if (digits.size() < 2 || digits.size() > 3)
      return {};
    int value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9')
        return {};
      value = value * 10 + (c - '0');
    }
    return {value / 10, value % 10};
  }
  return {};
}

} // namespace nn::cuda
