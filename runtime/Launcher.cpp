//===- Launcher.cpp - running compiled artifacts without the compiler -----===//
#include "Launcher.h"
#include "LauncherDetail.h"

#include "pallas/Spec/SizeExpr.h"

#include <dirent.h>
#include <dlfcn.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace pallas_rt {

double LaunchTiming::median() const {
  if (micros.empty())
    return 0;
  std::vector<double> sorted = micros;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double LaunchTiming::min() const {
  return micros.empty() ? 0 : *std::min_element(micros.begin(), micros.end());
}

namespace detail {

/// "null", "a boolean", "a number", "a string", "an array", "an object".
static const char *kindName(const Json &v) {
  switch (v.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::boolean:
    return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float:
    return "a number";
  case Json::value_t::string:
    return "a string";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  default:
    return "not a JSON value";
  }
}

const Json &member(const Json &object, const std::string &key,
                   const std::string &where) {
  if (!object.is_object())
    throw ManifestError{where + " is " + kindName(object) +
                        ", expected an object"};
  auto it = object.find(key);
  if (it == object.end())
    throw ManifestError{where + " lacks \"" + key + "\""};
  return *it;
}

std::string getString(const Json &object, const std::string &key,
                      const std::string &where) {
  const Json &v = member(object, key, where);
  if (!v.is_string())
    throw ManifestError{where + "." + key + " is " + kindName(v) +
                        ", expected a string"};
  return v.get<std::string>();
}

/// An integer written without fraction or exponent that fits in int64
/// (nlohmann reads non-negative ones as uint64, up to 2^64 - 1).
static bool isInt64(const Json &v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() ||
          v.get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max()));
}

static int64_t asInt(const Json &v, const std::string &where) {
  if (!isInt64(v))
    throw ManifestError{where + " is " +
                        (v.is_number() ? std::string("not an integer")
                                       : std::string(kindName(v))) +
                        ", expected an integer"};
  return v.get<int64_t>();
}

int64_t getInt(const Json &object, const std::string &key,
               const std::string &where) {
  return asInt(member(object, key, where), where + "." + key);
}

std::vector<int64_t> getInts(const Json &object, const std::string &key,
                             const std::string &where) {
  const Json &v = member(object, key, where);
  if (!v.is_array())
    throw ManifestError{where + "." + key + " is " + kindName(v) +
                        ", expected an array of integers"};
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(asInt(v[i], where + "." + key + "[" + std::to_string(i) + "]"));
  return out;
}

} // namespace detail

using namespace detail;

static bool findManifest(const LaunchRequest &r, std::string &path,
                         std::string &error) {
  if (!r.name.empty()) {
    path = r.artifactDir + "/" + r.name + ".manifest.json";
    return true;
  }
  DIR *dir = opendir(r.artifactDir.c_str());
  if (!dir) {
    error = "cannot open artifact directory '" + r.artifactDir +
            "': " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> found;
  while (dirent *e = readdir(dir)) {
    std::string n = e->d_name;
    const std::string suffix = ".manifest.json";
    if (n.size() > suffix.size() &&
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(n);
  }
  closedir(dir);
  if (found.size() != 1) {
    error = "'" + r.artifactDir + "' holds " + std::to_string(found.size()) +
            " manifests; name one with --name";
    return false;
  }
  path = r.artifactDir + "/" + found[0];
  return true;
}

/// A poison pattern per dtype: NaN for floats, 0xCD bytes otherwise, so
/// that elements a kernel never writes stand out.
static void poison(std::vector<uint8_t> &data, const std::string &dtype) {
  auto fill = [&](const void *pattern, size_t size) {
    for (size_t i = 0; i + size <= data.size(); i += size)
      std::memcpy(&data[i], pattern, size);
  };
  if (dtype == "f32") {
    uint32_t nan = 0x7fc00000;
    fill(&nan, 4);
  } else if (dtype == "f64") {
    uint64_t nan = 0x7ff8000000000000ull;
    fill(&nan, 8);
  } else if (dtype == "bf16") {
    uint16_t nan = 0x7fc0;
    fill(&nan, 2);
  } else if (dtype == "f16") {
    uint16_t nan = 0x7e00;
    fill(&nan, 2);
  } else {
    std::memset(data.data(), 0xCD, data.size());
  }
}

/// Reads the inputs and makes the outputs, checked against the manifest.
static bool prepareBuffers(const Json &m, const LaunchRequest &r,
                           KernelBuffers &b, std::string &error) {
  std::string name = getString(m, "name", "manifest");
  const Json &params = member(m, "parameters", "manifest");
  if (!params.is_array())
    throw ManifestError{"manifest.parameters is not an array"};
  size_t count = params.size();
  std::vector<size_t> inputs;
  for (size_t i = 0; i < count; ++i) {
    std::string where = "manifest.parameters[" + std::to_string(i) + "]";
    std::string role = getString(params[i], "role", where);
    if (role == "output")
      b.outputs.push_back(i);
    else if (role == "input" || role == "prefetch")
      inputs.push_back(i);
    else
      throw ManifestError{where + ".role is '" + role +
                          "', expected input, prefetch or output"};
  }
  if (r.inputs.size() != inputs.size() || r.outputs.size() != b.outputs.size()) {
    error = "kernel '" + name + "' takes " + std::to_string(inputs.size()) +
            " input(s) and " + std::to_string(b.outputs.size()) +
            " output(s); got " + std::to_string(r.inputs.size()) + " and " +
            std::to_string(r.outputs.size());
    return false;
  }
  b.arrays.assign(count, NpyArray());
  b.backing.resize(count);
  for (size_t i = 0; i < count; ++i)
    b.backing[i] = i;
  // Symbolic sizes: declared by the manifest, bound by the input shapes.
  std::map<std::string, int64_t> bound;
  std::map<std::string, std::pair<int64_t, int64_t>> facts; // multiple_of, max
  auto sizesIt = m.find("sizes");
  if (sizesIt != m.end()) {
    if (!sizesIt->is_array())
      throw ManifestError{"manifest.sizes is not an array"};
    for (size_t k = 0; k < sizesIt->size(); ++k) {
      std::string where = "manifest.sizes[" + std::to_string(k) + "]";
      const Json &s = (*sizesIt)[k];
      std::string n = getString(s, "name", where);
      b.sizeNames.push_back(n);
      facts[n] = {getInt(s, "multiple_of", where), getInt(s, "max", where)};
      if (facts[n].first < 1 || facts[n].second < 1)
        throw ManifestError{where + " needs multiple_of and max of at least 1"};
    }
  }
  std::vector<std::vector<std::string>> dimNames(count);
  auto describe = [&](size_t i, std::string &dtype,
                      std::vector<int64_t> &shape) {
    std::string where = "manifest.parameters[" + std::to_string(i) + "]";
    const Json &p = params[i];
    dtype = getString(p, "dtype", where);
    const Json &dims = member(p, "shape", where);
    if (!dims.is_array())
      throw ManifestError{where + ".shape is not an array"};
    shape.clear();
    dimNames[i].assign(dims.size(), "");
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_string()) {
        dimNames[i][d] = dims[d].get<std::string>();
        if (!facts.count(dimNames[i][d]))
          throw ManifestError{where + ".shape[" + std::to_string(d) + "] names size '" +
                              dimNames[i][d] + "', which manifest.sizes does not list"};
        auto known = bound.find(dimNames[i][d]);
        shape.push_back(known == bound.end() ? -1 : known->second);
        continue;
      }
      if (!isInt64(dims[d]) || dims[d].get<int64_t>() < 0)
        throw ManifestError{where + ".shape[" + std::to_string(d) +
                            "] is neither a size name nor a dimension"};
      shape.push_back(dims[d].get<int64_t>());
    }
    if (npyDescrFor(dtype).empty())
      throw ManifestError{where + ".dtype '" + dtype + "' is not known"};
    return getString(p, "name", where);
  };
  for (size_t k = 0; k < inputs.size(); ++k) {
    size_t i = inputs[k];
    std::string dtype;
    std::vector<int64_t> shape;
    std::string pname = describe(i, dtype, shape);
    NpyArray &a = b.arrays[i];
    if (!readNpy(r.inputs[k], a, error))
      return false;
    std::string want = npyDescrFor(dtype);
    if (a.descr != want) {
      error = "input '" + pname + "' (" + r.inputs[k] + "): dtype " + dtype +
              " needs .npy descr '" + want + "', the file has '" + a.descr +
              "'";
      return false;
    }
    bool fits = a.shape.size() == shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) {
      const std::string &n = dimNames[i][d];
      // (A size bound by an earlier dim of this same array.)
      if (!n.empty() && bound.count(n))
        shape[d] = bound[n];
      if (n.empty() || shape[d] >= 0) {
        fits = a.shape[d] == shape[d];
        continue;
      }
      // The first array with size n binds it.
      auto [multipleOf, max] = facts[n];
      if (a.shape[d] < 1 || a.shape[d] > max || a.shape[d] % multipleOf != 0) {
        error = "input '" + pname + "' (" + r.inputs[k] + "): dimension " +
                std::to_string(d) + " gives size " + n + " = " +
                std::to_string(a.shape[d]) + ", which must be in [1, " +
                std::to_string(max) + "]" +
                (multipleOf > 1 ? " and a multiple of " + std::to_string(multipleOf)
                                : std::string());
        return false;
      }
      bound[n] = shape[d] = a.shape[d];
    }
    if (!fits) {
      std::string want = "[";
      for (size_t d = 0; d < shape.size(); ++d)
        want += (d ? ", " : "") + (dimNames[i][d].empty()
                                       ? std::to_string(shape[d])
                                       : dimNames[i][d] + (shape[d] >= 0 ? "=" + std::to_string(shape[d]) : ""));
      want += "]";
      error = "input '" + pname + "' (" + r.inputs[k] + "): expected shape " +
              want + ", the file has " + shapeString(a.shape);
      return false;
    }
  }
  for (const std::string &n : b.sizeNames) {
    auto known = bound.find(n);
    if (known == bound.end()) {
      error = "size " + n + " is in no input's shape: it cannot be bound";
      return false;
    }
    b.sizes.push_back(known->second);
  }
  // Outputs: poisoned, or a copy of the input they alias.
  for (size_t i : b.outputs) {
    std::string where = "manifest.parameters[" + std::to_string(i) + "]";
    std::string dtype;
    std::vector<int64_t> shape;
    describe(i, dtype, shape);
    NpyArray &a = b.arrays[i];
    a.descr = npyDescrFor(dtype);
    a.shape = shape;
    const Json &p = params[i];
    auto alias = p.find("aliases");
    if (alias != p.end()) {
      if (!isInt64(*alias) || alias->get<int64_t>() < 0 ||
          uint64_t(alias->get<int64_t>()) >= inputs.size())
        throw ManifestError{where + ".aliases must be an input index below " +
                            std::to_string(inputs.size())};
      size_t in = inputs[size_t(alias->get<int64_t>())];
      if (b.backing[in] != in)
        throw ManifestError{where + ".aliases names an input that another "
                            "output aliases already"};
      if (b.arrays[in].descr != a.descr || b.arrays[in].shape != a.shape)
        throw ManifestError{where + " aliases an input of another dtype or "
                            "shape"};
      a.data = b.arrays[in].data;
      // An aliased output shares the buffer: kernel reads and writes it.
      b.backing[in] = i;
    } else {
      int64_t n = dtypeSize(dtype);
      for (int64_t d : a.shape)
        n *= d;
      a.data.resize(size_t(n));
      poison(a.data, dtype);
    }
  }
  return true;
}

bool pallas_rt::detail::evaluateExtents(const Json &list, const std::string &where,
                                        const KernelBuffers &b,
                                        const std::vector<int64_t> &limits,
                                        std::vector<int64_t> &out, std::string &error) {
  if (!list.is_array())
    throw ManifestError{where + " is not an array"};
  for (size_t a = 0; a < list.size(); ++a) {
    std::string at = where + "[" + std::to_string(a) + "]";
    std::optional<int64_t> n;
    if (isInt64(list[a])) {
      n = list[a].get<int64_t>();
    } else if (list[a].is_string()) {
      std::string message;
      size_t column = 0;
      std::optional<pallas_size::SizeExpr> e =
          pallas_size::SizeExpr::parse(list[a].get<std::string>(), message, column);
      if (!e)
        throw ManifestError{at + " does not parse: " + message};
      n = e->evaluate([&](const std::string &name) -> std::optional<int64_t> {
        for (size_t k = 0; k < b.sizeNames.size(); ++k)
          if (b.sizeNames[k] == name)
            return b.sizes[k];
        return std::nullopt;
      });
    } else {
      throw ManifestError{at + " is neither a number nor a size expression"};
    }
    int64_t limit = limits[std::min(a, limits.size() - 1)];
    if (!n || *n < 1 || *n > limit) {
      error = "the sizes give grid axis " + std::to_string(a) + " " +
              (n ? std::to_string(*n) : std::string("no number of")) +
              " programs, outside [1, " + std::to_string(limit) + "]";
      return false;
    }
    out.push_back(*n);
  }
  return true;
}

static bool launchHost(const Json &m, const LaunchRequest &r,
                       KernelBuffers &b, LaunchTiming *timing,
                       std::string &error) {
  std::string name = getString(m, "name", "manifest");
  const Json &launchInfo = member(m, "launch", "manifest");
  std::string entry = getString(launchInfo, "packed_entry", "manifest.launch");
  // A number, or the extents of the leading parallel axes (numbers and
  // size expressions) when the grid is symbolic.
  int64_t items = 1;
  const Json &workItems = member(launchInfo, "work_items", "manifest.launch");
  if (!workItems.is_array()) {
    items = getInt(launchInfo, "work_items", "manifest.launch");
  } else {
    std::vector<int64_t> extents;
    if (!evaluateExtents(workItems, "manifest.launch.work_items", b,
                         {std::numeric_limits<int32_t>::max()}, extents, error))
      return false;
    for (int64_t n : extents) {
      if (items > (int64_t(1) << 40) / n) {
        error = "the sizes give a grid of more than 2^40 programs";
        return false;
      }
      items *= n;
    }
  }
  std::vector<void *> params;
  for (size_t i = 0; i < b.arrays.size(); ++i)
    params.push_back(b.arrays[b.backing[i]].data.data());
  // Sizes follow the arrays, each as a pointer to its int64_t.
  for (int64_t &size : b.sizes)
    params.push_back(&size);

  std::string lib = r.artifactDir + "/" + name + ".so";
  void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = "cannot load '" + lib + "': " + dlerror();
    return false;
  }
  using Packed = void (*)(int64_t, int64_t, void **);
  auto fn = reinterpret_cast<Packed>(dlsym(handle, entry.c_str()));
  if (!fn) {
    error = "'" + lib + "' has no symbol '" + entry + "'";
    return false;
  }
  int64_t threads = r.threads;
  if (threads <= 0) {
    const char *env = std::getenv("PALLAS_HOST_THREADS");
    threads = std::thread::hardware_concurrency();
    if (env && *env) {
      char *end = nullptr;
      long n = std::strtol(env, &end, 10);
      if (*end != '\0' || n <= 0) {
        error = std::string("PALLAS_HOST_THREADS='") + env + "' is not a whole number above 0";
        return false;
      }
      threads = n;
    }
  }
  threads = std::max<int64_t>(1, std::min<int64_t>(threads, items));
  auto run = [&] {
    std::vector<std::thread> pool;
    for (int64_t t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        fn(items * t / threads, items * (t + 1) / threads, params.data());
      });
    fn(0, items / threads, params.data());
    for (std::thread &t : pool)
      t.join();
  };
  run();
  if (timing && r.timeRuns > 0) {
    // The results of the first launch are what gets written: keep them from
    // kernels that update their outputs in place.
    std::vector<std::vector<uint8_t>> first;
    for (size_t i : b.outputs)
      first.push_back(b.arrays[i].data);
    for (int w = 0; w < 3; ++w)
      run();
    for (int k = 0; k < r.timeRuns; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      auto t1 = std::chrono::steady_clock::now();
      timing->micros.push_back(
          std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    for (size_t k = 0; k < b.outputs.size(); ++k)
      b.arrays[b.outputs[k]].data = std::move(first[k]);
  }
  return true;
}

/// nlohmann's message without its "[json.exception.parse_error.101] " and,
/// for syntax errors, "parse error at line L, column C: ".
static std::string withoutExceptionId(const std::string &what) {
  size_t cut = what.find("] ");
  std::string message = cut == std::string::npos ? what : what.substr(cut + 2);
  if (message.compare(0, 11, "parse error") == 0) {
    size_t colon = message.find(": ");
    if (colon != std::string::npos)
      message = message.substr(colon + 2);
  }
  return message;
}

namespace {

/// Follows nlohmann's parse events to know where in the manifest the parser
/// is (`manifest.parameters[1].shape`), for the errors that nlohmann does
/// not locate, and refuses repeated keys, of which nlohmann would keep the
/// last.
class ManifestPosition {
public:
  struct RepeatedKey {
    std::string message;
  };

  void onEvent(Json::parse_event_t event, const Json &parsed) {
    using Event = Json::parse_event_t;
    switch (event) {
    case Event::object_start:
    case Event::array_start:
      open_.push_back({event == Event::object_start, "", 0, {}});
      break;
    case Event::key: {
      Container &object = open_.back();
      object.key = parsed.get<std::string>();
      if (!object.keys.insert(object.key).second)
        throw RepeatedKey{path(open_.size() - 1) + " has the key \"" +
                          object.key + "\" twice"};
      break;
    }
    case Event::object_end:
    case Event::array_end:
      open_.pop_back();
      elementDone();
      break;
    case Event::value:
      elementDone();
      break;
    }
  }

  /// The value being read.
  std::string valuePath() const { return path(open_.size()); }

private:
  struct Container {
    bool isObject;
    std::string key;  ///< objects: the member being read
    size_t index;     ///< arrays: the element being read
    std::set<std::string> keys;
  };
  std::vector<Container> open_;

  void elementDone() {
    if (!open_.empty() && !open_.back().isObject)
      ++open_.back().index;
  }
  /// "manifest" and the member being read of each of the outermost `depth`
  /// open containers.
  std::string path(size_t depth) const {
    std::string p = "manifest";
    for (size_t i = 0; i < depth; ++i)
      p += open_[i].isObject ? "." + open_[i].key
                             : "[" + std::to_string(open_[i].index) + "]";
    return p;
  }
};

} // namespace

/// Parses a whole manifest; on failure says what and where in `error`.
/// nlohmann reports problems by throwing; none of that leaves here.
static bool parseManifest(const std::string &text, Json &out,
                          std::string &error) {
  ManifestPosition position;
  try {
    out = Json::parse(text, [&](int, Json::parse_event_t event, Json &parsed) {
      position.onEvent(event, parsed);
      return true;
    });
    return true;
  } catch (const Json::parse_error &e) {
    // e.byte counts from 1; past the end for a truncated manifest.
    size_t offset = std::min(e.byte ? e.byte - 1 : 0, text.size());
    size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
    size_t lineEnd = offset ? text.rfind('\n', offset - 1) : std::string::npos;
    size_t column = lineEnd == std::string::npos ? offset + 1 : offset - lineEnd;
    error = withoutExceptionId(e.what()) + " at byte " + std::to_string(e.byte) +
            " (line " + std::to_string(line) + ", column " +
            std::to_string(column) + ")";
  } catch (const Json::exception &e) { // out_of_range.406: a number like 1e400
    error = position.valuePath() + ": " + withoutExceptionId(e.what());
  } catch (const ManifestPosition::RepeatedKey &e) {
    error = e.message;
  }
  return false;
}

bool launch(const LaunchRequest &r, std::string &error) {
  return launch(r, error, nullptr);
}

bool launch(const LaunchRequest &r, std::string &error, LaunchTiming *timing) {
  if (timing)
    timing->micros.clear();
  if (r.timeRuns < 0) {
    error = "the number of timed launches must not be negative";
    return false;
  }
  std::string manifestPath;
  if (!findManifest(r, manifestPath, error))
    return false;
  std::ifstream in(manifestPath, std::ios::binary);
  if (!in) {
    error = "cannot open manifest '" + manifestPath + "': " +
            std::strerror(errno);
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  Json m;
  std::string parseError;
  if (!parseManifest(text.str(), m, parseError)) {
    error = "manifest '" + manifestPath + "' is not valid JSON: " + parseError;
    return false;
  }
  try {
    std::string kind = getString(m, "target_kind", "manifest");
    if (kind != "host" && kind != "cuda") {
      error = "launching '" + kind + "' artifacts is not supported by this "
              "launcher (only host and cuda)";
      return false;
    }
    KernelBuffers buffers;
    if (!prepareBuffers(m, r, buffers, error))
      return false;
    bool ok = kind == "host"
                  ? launchHost(m, r, buffers, timing, error)
                  : launchCuda(m, manifestPath, r, buffers, timing, error);
    if (!ok)
      return false;
    for (size_t k = 0; k < buffers.outputs.size(); ++k)
      if (!writeNpy(r.outputs[k], buffers.arrays[buffers.outputs[k]], error))
        return false;
    return true;
  } catch (const ManifestError &e) {
    error = "manifest '" + manifestPath + "' is malformed: " + e.message;
    return false;
  } catch (const Json::exception &e) {
    // Not expected: the accessors check each type before reading a value.
    error = "manifest '" + manifestPath + "' is malformed: " +
            withoutExceptionId(e.what());
    return false;
  }
}

} // namespace pallas_rt
