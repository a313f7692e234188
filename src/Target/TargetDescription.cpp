//===- TargetDescription.cpp - loading chip descriptions ------------------===//
#include "pallas/Target/TargetDescription.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <yaml-cpp/yaml.h>

using namespace mlir::pallas;

// Generated at build time from targets/*.yaml: {file name, contents} pairs.
namespace mlir::pallas::embedded {
extern const char *const targetFiles[][2];
extern const unsigned numTargetFiles;
} // namespace mlir::pallas::embedded

llvm::StringRef mlir::pallas::targetKindName(TargetKind kind) {
  switch (kind) {
  case TargetKind::Cuda: return "cuda";
  case TargetKind::Triton: return "triton";
  case TargetKind::Tpu: return "tpu";
  case TargetKind::Host: return "host";
  }
  return "?";
}

int64_t TargetDescription::getInt(const std::string &key,
                                  int64_t fallback) const {
  auto it = fields.find(key);
  int64_t value;
  if (it == fields.end() || llvm::StringRef(it->second).getAsInteger(0, value))
    return fallback;
  return value;
}

bool TargetDescription::getBool(const std::string &key) const {
  auto it = fields.find(key);
  return it != fields.end() && it->second == "true";
}

bool TargetDescription::has(const std::string &key,
                            const std::string &item) const {
  auto it = lists.find(key);
  return it != lists.end() &&
         std::find(it->second.begin(), it->second.end(), item) !=
             it->second.end();
}

llvm::Expected<TargetDescription>
mlir::pallas::parseTargetDescription(llvm::StringRef yaml,
                                     llvm::StringRef source) {
  auto fail = [&](const std::string &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: %s", source.str().c_str(), msg.c_str());
  };
  YAML::Node root;
  try {
    root = YAML::Load(yaml.str());
  } catch (const YAML::Exception &e) {
    return fail("invalid YAML at line " + std::to_string(e.mark.line + 1) +
                ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.IsMap())
    return fail("expected a mapping of target fields");
  TargetDescription t;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::string key = it->first.as<std::string>();
    YAML::Node v = it->second; // a copy: the iterator yields a temporary
    if (v.IsScalar()) {
      t.fields[key] = v.as<std::string>();
    } else if (v.IsSequence()) {
      for (const YAML::Node &item : v) {
        if (!item.IsScalar())
          return fail("field '" + key + "' must list plain values");
        t.lists[key].push_back(item.as<std::string>());
      }
    } else {
      return fail("field '" + key + "' must be a value or a list");
    }
  }
  for (const char *required : {"name", "kind", "description"})
    if (!t.fields.count(required))
      return fail(std::string("missing field '") + required + "'");
  t.name = t.fields["name"];
  t.description = t.fields["description"];
  std::string kind = t.fields["kind"];
  if (kind == "cuda") t.kind = TargetKind::Cuda;
  else if (kind == "triton") t.kind = TargetKind::Triton;
  else if (kind == "tpu") t.kind = TargetKind::Tpu;
  else if (kind == "host") t.kind = TargetKind::Host;
  else return fail("unknown kind '" + kind + "' (expected cuda, triton, tpu or host)");
  auto requireInts = [&](std::initializer_list<const char *> keys) -> llvm::Error {
    for (const char *k : keys) {
      int64_t v;
      auto f = t.fields.find(k);
      if (f == t.fields.end())
        return fail(std::string("missing field '") + k + "' for a " + kind + " target");
      if (llvm::StringRef(f->second).getAsInteger(0, v) || v <= 0)
        return fail(std::string("field '") + k + "' must be a positive integer");
    }
    return llvm::Error::success();
  };
  if (t.kind == TargetKind::Cuda)
    if (llvm::Error e = requireInts({"compute_capability", "sm_count", "warp_size",
                                     "max_threads_per_block",
                                     "shared_memory_per_block",
                                     "registers_per_sm"}))
      return std::move(e);
  if (t.kind == TargetKind::Tpu)
    if (llvm::Error e = requireInts({"vmem_bytes", "smem_bytes", "lanes",
                                     "sublanes", "mxu_size"}))
      return std::move(e);
  return t;
}

const std::vector<TargetDescription> &mlir::pallas::builtinTargets() {
  static const std::vector<TargetDescription> targets = [] {
    std::vector<TargetDescription> list;
    for (unsigned i = 0; i < embedded::numTargetFiles; ++i) {
      auto t = parseTargetDescription(embedded::targetFiles[i][1],
                                      embedded::targetFiles[i][0]);
      // The embedded files are checked by the unit tests; a broken one is
      // skipped rather than taking the tool down.
      if (t)
        list.push_back(std::move(*t));
      else
        llvm::consumeError(t.takeError());
    }
    std::sort(list.begin(), list.end(),
              [](auto &a, auto &b) { return a.name < b.name; });
    return list;
  }();
  return targets;
}

llvm::Expected<TargetDescription> mlir::pallas::lookupTarget(llvm::StringRef name) {
  std::string known, nearest;
  unsigned best = 2; // suggest only names one edit away
  for (const TargetDescription &t : builtinTargets()) {
    if (t.name == name)
      return t;
    known += (known.empty() ? "" : ", ") + t.name;
    // (A name the user's is the start of comes first: sm_90 -> sm_90a.)
    unsigned d = llvm::StringRef(t.name).edit_distance(name, /*AllowReplacements=*/true, best);
    if (d < best || (d == best && !nearest.empty() && llvm::StringRef(t.name).starts_with(name) &&
                     !llvm::StringRef(nearest).starts_with(name))) {
      best = d;
      nearest = t.name;
    }
  }
  std::string hint = nearest.empty() ? "" : "; did you mean '" + nearest + "'?";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '%s'%s (known: %s)", name.str().c_str(),
                                 hint.c_str(), known.c_str());
}
