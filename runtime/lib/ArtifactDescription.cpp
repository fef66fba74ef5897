//===- ArtifactDescription.cpp - The description, to and from JSON --------===//
//
// The one reader and the one writer of an artifact's description
// (ArtifactABI.h). The reader is strict: a field of the wrong type, a shape
// with a negative or overflowing size, an unknown dtype or an out-of-range
// count is refused by name; unknown fields are ignored (later versions may
// add some).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/ArtifactDescription.h"

#include "Json.h"

#include "nn/Runtime/ArtifactABI.h"

#include "absl/strings/str_cat.h"

#include <set>

namespace nn {
namespace {

absl::Status descriptionError(const std::string &source,
                              const std::string &what) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": invalid artifact description: ", what));
}

/// Parses {"name", "shape", "dtype"} into `info`.
absl::Status parseTensorInfo(const json::Value &value,
                             const std::string &source, TensorInfo &info) {
  if (!value.isObject())
    return descriptionError(source, "a tensor entry is not an object");
  const json::Value *name = value.find("name");
  const json::Value *shape = value.find("shape");
  const json::Value *dtype = value.find("dtype");
  if (!name || !name->isString() || !shape || !shape->isArray() || !dtype ||
      !dtype->isString())
    return descriptionError(source,
                            "a tensor entry needs name, shape and dtype");
  info.name = name->getString();
  for (const json::Value &dim : shape->getArray()) {
    std::optional<int64_t> d = dim.getInteger();
    if (!d || *d < 0)
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has a bad shape"));
    info.shape.push_back(*d);
  }
  std::optional<DType> parsed = dtype_from_safetensors_name(dtype->getString());
  if (!parsed)
    return descriptionError(source,
                            absl::StrCat("'", info.name, "' has unknown dtype ",
                                         dtype->getString()));
  info.dtype = *parsed;
  if (const json::Value *fallback = value.find("default")) {
    if (!fallback->isNumber())
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has a bad default"));
    info.default_value = fallback->getDouble();
  }
  if (const json::Value *checks = value.find("index_checks")) {
    auto bad = [&] {
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has bad index_checks"));
    };
    if (!checks->isArray() || info.dtype != DType::i64)
      return bad();
    for (const json::Value &entry : checks->getArray()) {
      const json::Value *op = entry.find("op");
      const json::Value *high = entry.find("high");
      if (!op || !op->isString() || !high || !high->getInteger())
        return bad();
      IndexCheck check{op->getString(), "", *high->getInteger(), std::nullopt};
      if (const json::Value *where = entry.find("where")) {
        if (!where->isString())
          return bad();
        check.where = where->getString();
      }
      if (const json::Value *ignore = entry.find("ignore")) {
        if (!ignore->getInteger())
          return bad();
        check.ignore = *ignore->getInteger();
      }
      info.index_checks.push_back(std::move(check));
    }
  }
  return absl::OkStatus();
}

} // namespace

namespace {

/// One tensor's sizes, default and index checks.
absl::Status checkTensorInfo(const TensorInfo &info,
                             const std::string &source) {
  int64_t bytes = static_cast<int64_t>(dtype_size(info.dtype));
  for (int64_t d : info.shape)
    if (d < 0)
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has a bad shape"));
  for (int64_t d : info.shape)
    if (__builtin_mul_overflow(bytes, d, &bytes))
      return descriptionError(source,
                              absl::StrCat("'", info.name, "' of shape ",
                                           shape_str(info.shape),
                                           " has more bytes than an "
                                           "int64 counts"));
  if (info.default_value && !info.shape.empty())
    return descriptionError(
        source, absl::StrCat("'", info.name, "' has a bad default"));
  if (!info.index_checks.empty() && info.dtype != DType::i64)
    return descriptionError(
        source, absl::StrCat("'", info.name, "' has bad index_checks"));
  for (const IndexCheck &check : info.index_checks)
    if (check.high < 0)
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has bad index_checks"));
  return absl::OkStatus();
}

} // namespace

absl::Status check_artifact_description(const ArtifactDescription &description,
                                        const std::string &source) {
  for (const StateInfo &state : description.state)
    if (absl::Status s = checkTensorInfo(state, source); !s.ok())
      return s;
  for (const auto *list : {&description.inputs, &description.outputs})
    for (const TensorInfo &tensor : *list)
      if (absl::Status s = checkTensorInfo(tensor, source); !s.ok())
        return s;

  // Tensors are bound and passed by name, so a name given twice would leave
  // one of them unreachable.
  std::set<std::string_view> seen;
  auto twice = [&](const char *what, const std::string &name) {
    return descriptionError(
        source, absl::StrCat("two ", what, " are named '", name, "'"));
  };
  for (const StateInfo &state : description.state) {
    if (!seen.insert(state.name).second)
      return twice("state tensors", state.name);
    for (const std::string &alias : state.aliases)
      if (!seen.insert(alias).second)
        return twice("state tensors", alias);
  }
  for (auto [what, list] : {std::pair{"inputs", &description.inputs},
                            std::pair{"outputs", &description.outputs}}) {
    seen.clear();
    for (const TensorInfo &tensor : *list)
      if (!seen.insert(tensor.name).second)
        return twice(what, tensor.name);
  }
  return absl::OkStatus();
}

absl::StatusOr<ArtifactDescription>
parse_artifact_description(std::string_view text, const std::string &source) {
  absl::StatusOr<json::Value> root = json::parse(text);
  if (!root.ok())
    return descriptionError(source, std::string(root.status().message()));
  if (!root->isObject())
    return descriptionError(source, "not a JSON object");
  const json::Value *version = root->find("abi_version");
  if (!version || !version->getInteger())
    return descriptionError(source, "abi_version is missing");
  if (*version->getInteger() != NN_ARTIFACT_ABI_VERSION)
    return descriptionError(
        source,
        absl::StrCat("abi_version is ", *version->getInteger(),
                     ", this runtime reads version ", NN_ARTIFACT_ABI_VERSION));

  ArtifactDescription description;
  auto list = [&](const char *key) -> absl::StatusOr<const json::Array *> {
    const json::Value *v = root->find(key);
    if (!v || !v->isArray())
      return descriptionError(source,
                              absl::StrCat("'", key, "' is not a list"));
    return &v->getArray();
  };
  absl::StatusOr<const json::Array *> state = list("state");
  if (!state.ok())
    return state.status();
  for (const json::Value &entry : **state) {
    StateInfo info;
    if (absl::Status s = parseTensorInfo(entry, source, info); !s.ok())
      return s;
    const json::Value *kind = entry.find("kind");
    if (!kind || !kind->isString() ||
        (kind->getString() != "parameter" && kind->getString() != "buffer"))
      return descriptionError(
          source, absl::StrCat("'", info.name, "' has no valid kind"));
    info.is_buffer = kind->getString() == "buffer";
    if (const json::Value *p = entry.find("persistent"); p && p->isBool())
      info.persistent = p->getBool();
    if (const json::Value *r = entry.find("requires_grad"); r && r->isBool())
      info.requires_grad = r->getBool();
    if (const json::Value *a = entry.find("argument"); a && a->isBool())
      info.argument = a->getBool();
    if (const json::Value *e = entry.find("embedded"); e && e->isBool())
      info.embedded = e->getBool();
    if (const json::Value *z = entry.find("starts_at_zero"); z && z->isBool())
      info.starts_at_zero = z->getBool();
    if (const json::Value *aliases = entry.find("aliases")) {
      if (!aliases->isArray())
        return descriptionError(
            source, absl::StrCat("'", info.name, "' has bad aliases"));
      for (const json::Value &alias : aliases->getArray()) {
        if (!alias.isString())
          return descriptionError(
              source, absl::StrCat("'", info.name, "' has bad aliases"));
        info.aliases.push_back(alias.getString());
      }
    }
    description.state.push_back(std::move(info));
  }
  for (auto [key, out] : {std::pair{"inputs", &description.inputs},
                          std::pair{"outputs", &description.outputs}}) {
    absl::StatusOr<const json::Array *> entries = list(key);
    if (!entries.ok())
      return entries.status();
    for (const json::Value &entry : **entries) {
      TensorInfo info;
      if (absl::Status s = parseTensorInfo(entry, source, info); !s.ok())
        return s;
      out->push_back(std::move(info));
    }
  }
  if (const json::Value *rng = root->find("rng")) {
    TensorInfo info;
    if (absl::Status s = parseTensorInfo(*rng, source, info); !s.ok())
      return s;
    const json::Value *draws = rng->find("draws");
    std::optional<int64_t> count = draws ? draws->getInteger() : std::nullopt;
    if (info.shape != Shape{2} || info.dtype != DType::i64 || !count ||
        *count < 0)
      return descriptionError(source, "'rng' must be a [2] I64 tensor with "
                                      "draws >= 0");
    description.has_rng = true;
    description.rng_draws = static_cast<uint64_t>(*count);
  }
  if (const json::Value *workspace = root->find("workspace_bytes")) {
    std::optional<int64_t> bytes = workspace->getInteger();
    if (!bytes || *bytes < 0)
      return descriptionError(source, "'workspace_bytes' must be an integer "
                                      ">= 0");
    description.workspace_bytes = *bytes;
  }
  if (const json::Value *target = root->find("target")) {
    const json::Value *cpu = target->find("cpu");
    const json::Value *features = target->find("features");
    auto bad = [&] {
      return descriptionError(source, "'target' must hold a cpu name and a "
                                      "list of feature names");
    };
    if (!cpu || !cpu->isString() || !features || !features->isArray())
      return bad();
    description.target_cpu = cpu->getString();
    for (const json::Value &feature : features->getArray()) {
      if (!feature.isString())
        return bad();
      description.target_features.push_back(feature.getString());
    }
  }
  if (absl::Status s = check_artifact_description(description, source); !s.ok())
    return s;
  return description;
}

namespace {

json::Value tensorJson(const TensorInfo &info) {
  json::Array shape;
  for (int64_t d : info.shape)
    shape.emplace_back(d);
  json::Object object = {
      {"name", info.name},
      {"shape", std::move(shape)},
      {"dtype", std::string(dtype_safetensors_name(info.dtype))}};
  if (!info.index_checks.empty()) {
    json::Array checks;
    for (const IndexCheck &check : info.index_checks) {
      json::Object entry = {{"op", check.op}, {"high", check.high}};
      if (check.ignore)
        entry.emplace_back("ignore", *check.ignore);
      if (!check.where.empty())
        entry.emplace_back("where", check.where);
      checks.emplace_back(std::move(entry));
    }
    object.emplace_back("index_checks", std::move(checks));
  }
  if (info.default_value)
    object.emplace_back("default", *info.default_value);
  return object;
}

} // namespace

std::string to_json(const ArtifactDescription &description) {
  json::Array state;
  for (const StateInfo &info : description.state) {
    json::Value entry = tensorJson(info);
    json::Object &object = entry.getObject();
    object.emplace_back("kind", info.is_buffer ? "buffer" : "parameter");
    object.emplace_back("persistent", info.persistent);
    object.emplace_back("requires_grad", info.requires_grad);
    json::Array aliases(info.aliases.begin(), info.aliases.end());
    object.emplace_back("aliases", std::move(aliases));
    object.emplace_back("argument", info.argument);
    if (info.embedded)
      object.emplace_back("embedded", true);
    if (info.starts_at_zero)
      object.emplace_back("starts_at_zero", true);
    state.push_back(std::move(entry));
  }
  json::Array inputs, outputs;
  for (const TensorInfo &info : description.inputs)
    inputs.push_back(tensorJson(info));
  for (const TensorInfo &info : description.outputs)
    outputs.push_back(tensorJson(info));
  json::Object root = {{"abi_version", NN_ARTIFACT_ABI_VERSION},
                       {"state", std::move(state)},
                       {"inputs", std::move(inputs)},
                       {"outputs", std::move(outputs)}};
  if (description.has_rng) {
    json::Value rng = tensorJson({"rng", {2}, DType::i64, {}, std::nullopt});
    rng.getObject().emplace_back("draws", description.rng_draws);
    root.emplace_back("rng", std::move(rng));
  }
  if (description.workspace_bytes)
    root.emplace_back("workspace_bytes", description.workspace_bytes);
  if (!description.target_cpu.empty() || !description.target_features.empty()) {
    json::Array features(description.target_features.begin(),
                         description.target_features.end());
    root.emplace_back("target",
                      json::Object{{"cpu", description.target_cpu},
                                   {"features", std::move(features)}});
  }
  return json::write(root);
}

} // namespace nn
