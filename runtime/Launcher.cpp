//===- Launcher.cpp - running compiled artifacts without the compiler -----===//
#include "Launcher.h"
#include "Npy.h"

#include <nlohmann/json.hpp>

#include <dirent.h>
#include <dlfcn.h>
#include <cstring>
#include <fstream>
#include <thread>

using json = nlohmann::json;

namespace pallas_rt {

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

bool launch(const LaunchRequest &r, std::string &error) {
  std::string manifestPath;
  if (!findManifest(r, manifestPath, error))
    return false;
  std::ifstream in(manifestPath);
  if (!in) {
    error = "cannot open manifest '" + manifestPath + "'";
    return false;
  }
  json m;
  try {
    m = json::parse(in);
  } catch (const json::exception &e) {
    error = "manifest '" + manifestPath + "' is not valid JSON: " + e.what();
    return false;
  }
  try {
    std::string kind = m.at("target_kind");
    if (kind != "host") {
      error = "launching '" + kind + "' artifacts is not supported by this "
              "launcher yet (only host)";
      return false;
    }
    std::string name = m.at("name");
    std::vector<json> inputs, outputs;
    for (const json &p : m.at("parameters"))
      (p.at("role") == "output" ? outputs : inputs).push_back(p);
    if (r.inputs.size() != inputs.size() || r.outputs.size() != outputs.size()) {
      error = "kernel '" + name + "' takes " + std::to_string(inputs.size()) +
              " input(s) and " + std::to_string(outputs.size()) +
              " output(s); got " + std::to_string(r.inputs.size()) + " and " +
              std::to_string(r.outputs.size());
      return false;
    }
    // Inputs, checked against the manifest.
    std::vector<NpyArray> arrays;
    for (size_t i = 0; i < inputs.size(); ++i) {
      NpyArray a;
      if (!readNpy(r.inputs[i], a, error))
        return false;
      std::string dtype = inputs[i].at("dtype");
      std::vector<int64_t> shape = inputs[i].at("shape");
      std::string want = npyDescrFor(dtype);
      if (a.descr != want) {
        error = "input '" + std::string(inputs[i].at("name")) + "' (" +
                r.inputs[i] + "): dtype " + dtype + " needs .npy descr '" +
                want + "', the file has '" + a.descr + "'";
        return false;
      }
      if (a.shape != shape) {
        error = "input '" + std::string(inputs[i].at("name")) + "' (" +
                r.inputs[i] + "): expected shape " + shapeString(shape) +
                ", the file has " + shapeString(a.shape);
        return false;
      }
      arrays.push_back(std::move(a));
    }
    // Outputs: poisoned, or a copy of the input they alias.
    for (const json &p : outputs) {
      NpyArray a;
      std::string dtype = p.at("dtype");
      a.descr = npyDescrFor(dtype);
      a.shape = p.at("shape").get<std::vector<int64_t>>();
      if (p.contains("aliases")) {
        a.data = arrays[p.at("aliases").get<size_t>()].data;
      } else {
        int64_t n = dtypeSize(dtype);
        for (int64_t d : a.shape)
          n *= d;
        a.data.resize(n);
        poison(a.data, dtype);
      }
      arrays.push_back(std::move(a));
    }
    std::vector<void *> params;
    for (size_t i = 0; i < inputs.size(); ++i)
      params.push_back(arrays[i].data.data());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const json &p = outputs[i];
      // An aliased output shares the buffer: kernel reads and writes it.
      if (p.contains("aliases"))
        params[p.at("aliases").get<size_t>()] = arrays[inputs.size() + i].data.data();
      params.push_back(arrays[inputs.size() + i].data.data());
    }

    std::string lib = r.artifactDir + "/" + name + ".so";
    void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = "cannot load '" + lib + "': " + dlerror();
      return false;
    }
    std::string entry = m.at("launch").at("packed_entry");
    using Packed = void (*)(int64_t, int64_t, void **);
    auto fn = reinterpret_cast<Packed>(dlsym(handle, entry.c_str()));
    if (!fn) {
      error = "'" + lib + "' has no symbol '" + entry + "'";
      return false;
    }
    int64_t items = m.at("launch").at("work_items");
    int64_t threads = r.threads;
    if (threads <= 0) {
      const char *env = std::getenv("PALLAS_HOST_THREADS");
      threads = env && std::atoi(env) > 0 ? std::atoi(env)
                                          : std::thread::hardware_concurrency();
    }
    threads = std::max<int64_t>(1, std::min<int64_t>(threads, items));
    std::vector<std::thread> pool;
    for (int64_t t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        fn(items * t / threads, items * (t + 1) / threads, params.data());
      });
    fn(0, items / threads, params.data());
    for (std::thread &t : pool)
      t.join();

    for (size_t i = 0; i < outputs.size(); ++i)
      if (!writeNpy(r.outputs[i], arrays[inputs.size() + i], error))
        return false;
    return true;
  } catch (const json::exception &e) {
    error = "manifest '" + manifestPath + "' is malformed: " + e.what();
    return false;
  }
}

} // namespace pallas_rt
