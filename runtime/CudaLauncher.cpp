//===- CudaLauncher.cpp - running CUDA artifacts through the driver API ---===//
//
// The driver (libcuda.so.1) is opened with dlopen at run time, so the
// launcher builds and runs host artifacts on machines without one. cuda.h
// supplies the types; without it at configure time this path is compiled out
// and CUDA artifacts are refused with a clear error.
//
//===----------------------------------------------------------------------===//
#include "LauncherDetail.h"

#ifdef PALLAS_HAVE_CUDA_H
#include <cuda.h>

#include <dlfcn.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <type_traits>
#endif

namespace pallas_rt {
namespace detail {

#ifndef PALLAS_HAVE_CUDA_H

bool launchCuda(const Json &, const std::string &manifestPath,
                const LaunchRequest &, KernelBuffers &, LaunchTiming *,
                std::string &error) {
  error = "'" + manifestPath + "' is a CUDA artifact, but this pallas-launch "
          "was built without CUDA support (cuda.h was not found when it was "
          "configured); rebuild it where the CUDA toolkit is installed";
  return false;
}

#else

namespace {

/// The driver entry points we use, looked up in libcuda.so.1. Member names
/// differ from the cuda.h names, which are macros for versioned symbols.
struct Driver {
  void *handle = nullptr;
  CUresult (*init)(unsigned);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*primaryCtxRelease)(CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxSynchronize)();
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  /// Only kernels that take tensor maps need it (null when the driver lacks it).
  CUresult (*tensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                   const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                   const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill) = nullptr;
  /// Only kernels launched in clusters use them (null when the driver lacks them).
  CUresult (*launchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **) = nullptr;
  CUresult (*occupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *) = nullptr;

  bool load(std::string &error) {
    const char *names[] = {"libcuda.so.1", "libcuda.so"};
    std::string why;
    for (const char *n : names) {
      handle = dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      if (why.empty())
        why = dlerror();
    }
    if (!handle) {
      error = "cannot load the CUDA driver (libcuda.so.1): " + why +
              "; CUDA artifacts need an NVIDIA GPU and its driver";
      return false;
    }
    bool ok = true;
    auto sym = [&](auto &fn, std::initializer_list<const char *> candidates) {
      for (const char *c : candidates)
        if (void *p = dlsym(handle, c)) {
          fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
          return;
        }
      if (ok)
        error = std::string("the CUDA driver lacks ") + *candidates.begin();
      ok = false;
    };
    tensorMapEncodeTiled = reinterpret_cast<decltype(tensorMapEncodeTiled)>(
        dlsym(handle, "cuTensorMapEncodeTiled"));
    launchKernelEx = reinterpret_cast<decltype(launchKernelEx)>(dlsym(handle, "cuLaunchKernelEx"));
    occupancyMaxActiveClusters = reinterpret_cast<decltype(occupancyMaxActiveClusters)>(
        dlsym(handle, "cuOccupancyMaxActiveClusters"));
    sym(init, {"cuInit"});
    sym(getErrorName, {"cuGetErrorName"});
    sym(getErrorString, {"cuGetErrorString"});
    sym(deviceGetCount, {"cuDeviceGetCount"});
    sym(deviceGet, {"cuDeviceGet"});
    sym(deviceGetAttribute, {"cuDeviceGetAttribute"});
    sym(deviceGetName, {"cuDeviceGetName"});
    sym(primaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
    sym(primaryCtxRelease,
        {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
    sym(ctxSetCurrent, {"cuCtxSetCurrent"});
    sym(ctxSynchronize, {"cuCtxSynchronize"});
    sym(moduleLoadData, {"cuModuleLoadData"});
    sym(moduleUnload, {"cuModuleUnload"});
    sym(moduleGetFunction, {"cuModuleGetFunction"});
    sym(funcSetAttribute, {"cuFuncSetAttribute"});
    sym(memAlloc, {"cuMemAlloc_v2"});
    sym(memFree, {"cuMemFree_v2"});
    sym(memcpyHtoD, {"cuMemcpyHtoD_v2"});
    sym(memcpyDtoH, {"cuMemcpyDtoH_v2"});
    sym(launchKernel, {"cuLaunchKernel"});
    sym(eventCreate, {"cuEventCreate"});
    sym(eventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
    sym(eventRecord, {"cuEventRecord"});
    sym(eventSynchronize, {"cuEventSynchronize"});
    sym(eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
    return ok;
  }

  /// "what failed: CUDA_ERROR_NAME (description)".
  std::string describe(CUresult r, const std::string &what) const {
    const char *name = nullptr, *text = nullptr;
    if (getErrorName(r, &name) != CUDA_SUCCESS || !name)
      name = "unknown CUresult";
    if (getErrorString(r, &text) != CUDA_SUCCESS || !text)
      text = "";
    std::string s = what + " failed: " + name + " (" + std::to_string(int(r));
    if (*text)
      s += ": " + std::string(text);
    return s + ")";
  }
};

/// An architecture key of the manifest's `cubins`: sm_XY with an optional
/// suffix ('a': this exact chip only; 'f': the family).
struct Arch {
  int major = 0, minor = 0;
  char suffix = 0;
};

bool parseArch(const std::string &s, Arch &arch) {
  if (s.size() < 5 || s.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  int number = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && number < 10000)
    number = number * 10 + (s[i++] - '0');
  if (i == 3 || number < 10)
    return false;
  if (i < s.size()) {
    if (i + 1 != s.size() || (s[i] != 'a' && s[i] != 'f'))
      return false;
    arch.suffix = s[i];
  }
  arch.major = number / 10;
  arch.minor = number % 10;
  return true;
}

/// What a launch holds; released in reverse order whatever happens.
struct Session {
  Driver &d;
  CUdevice device = 0;
  bool contextRetained = false;
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> memory;
  std::vector<CUevent> events;

  explicit Session(Driver &driver) : d(driver) {}
  ~Session() {
    for (CUevent e : events)
      d.eventDestroy(e);
    for (CUdeviceptr p : memory)
      d.memFree(p);
    if (module)
      d.moduleUnload(module);
    if (contextRetained)
      d.primaryCtxRelease(device);
  }
};

} // namespace

bool launchCuda(const Json &m, const std::string &manifestPath,
                const LaunchRequest &r, KernelBuffers &b, LaunchTiming *timing,
                std::string &error) {
  const Json &launchInfo = member(m, "launch", "manifest");
  const std::string where = "manifest.launch";
  std::string function = getString(launchInfo, "function", where);
  // Numbers, or size expressions for kernels with symbolic sizes (whose
  // program ids are the grid's leading parallel axes).
  std::vector<int64_t> grid;
  if (b.sizeNames.empty()) {
    grid = getInts(launchInfo, "grid", where);
  } else {
    if (!evaluateExtents(member(launchInfo, "grid", where), where + ".grid", b,
                         {0x7fffffff, 65535}, grid, error))
      return false;
    // Sequential axes are loops of i32 trip counts; element offsets are i32.
    std::vector<int64_t> all;
    if (!evaluateExtents(member(m, "grid", "manifest"), "manifest.grid", b, {0x7fffffff},
                         all, error))
      return false;
    for (size_t i = 0; i < b.arrays.size(); ++i) {
      int64_t elements = 1;
      for (int64_t d : b.arrays[i].shape)
        elements *= d;
      if (elements >= (int64_t(1) << 31)) {
        error = "array " + std::to_string(i) + " has 2^31 elements or more, which kernels "
                "with symbolic sizes do not take on CUDA";
        return false;
      }
    }
  }
  std::vector<int64_t> block = getInts(launchInfo, "block", where);
  int64_t shared = getInt(launchInfo, "shared_bytes", where);
  if (grid.size() != 3 || block.size() != 3)
    throw ManifestError{where + ".grid and .block must have three entries"};
  for (int64_t v : grid)
    if (v < 1 || v > 0x7fffffff)
      throw ManifestError{where + ".grid " + shapeString(grid) +
                          " is out of range"};
  for (int64_t v : block)
    if (v < 1 || v > 1024)
      throw ManifestError{where + ".block " + shapeString(block) +
                          " is out of range"};
  if (shared < 0 || shared > (int64_t(1) << 30))
    throw ManifestError{where + ".shared_bytes " + std::to_string(shared) +
                        " is out of range"};
  // CTAs per thread-block cluster along x (the code requires them).
  int64_t cluster = 1;
  if (launchInfo.contains("cluster")) {
    std::vector<int64_t> dims = getInts(launchInfo, "cluster", where);
    if (dims.size() != 3 || dims[0] < 1 || dims[0] > 16 || dims[1] != 1 || dims[2] != 1 ||
        grid[0] % dims[0] != 0)
      throw ManifestError{where + ".cluster " + shapeString(dims) +
                          " is not a cluster of CTAs along x dividing the grid"};
    cluster = dims[0];
  }
  const Json &cubins = member(launchInfo, "cubins", where);
  if (!cubins.is_object() || cubins.empty())
    throw ManifestError{where + ".cubins must be a non-empty object"};
  std::string held;
  for (const auto &c : cubins.items()) {
    Arch a;
    if (!parseArch(c.key(), a))
      throw ManifestError{where + ".cubins has a key '" + c.key() +
                          "' that is not an architecture like sm_90a"};
    if (!c.value().is_string())
      throw ManifestError{where + ".cubins." + c.key() +
                          " is not a file name"};
    held += (held.empty() ? "" : ", ") + c.key();
  }

  static Driver driver;
  static std::string loadError;
  static bool tried = false;
  if (!tried) {
    tried = true;
    if (!driver.load(loadError))
      driver.handle = nullptr;
  }
  if (!driver.handle) {
    error = loadError;
    return false;
  }
  Driver &d = driver;
  auto check = [&](CUresult res, const std::string &what) {
    if (res == CUDA_SUCCESS)
      return true;
    error = d.describe(res, what);
    return false;
  };

  if (!check(d.init(0), "cuInit"))
    return false;
  int count = 0;
  if (!check(d.deviceGetCount(&count), "cuDeviceGetCount"))
    return false;
  if (r.device < 0 || r.device >= count) {
    error = "CUDA device " + std::to_string(r.device) + " does not exist (" +
            std::to_string(count) + " device(s) found)";
    return false;
  }
  Session s(d);
  if (!check(d.deviceGet(&s.device, r.device), "cuDeviceGet"))
    return false;
  int ccMajor = 0, ccMinor = 0;
  if (!check(d.deviceGetAttribute(&ccMajor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  s.device),
             "cuDeviceGetAttribute") ||
      !check(d.deviceGetAttribute(&ccMinor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  s.device),
             "cuDeviceGetAttribute"))
    return false;
  char deviceName[256] = {0};
  d.deviceGetName(deviceName, sizeof deviceName - 1, s.device);
  // A persistent kernel's CTAs loop over its programs: one per SM of this
  // device, at most the manifest's grid (any count computes the same).
  if (launchInfo.contains("persistent") && launchInfo["persistent"].is_boolean() &&
      launchInfo["persistent"].get<bool>()) {
    int sms = 0;
    if (d.deviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s.device) ==
            CUDA_SUCCESS &&
        sms > 0 && sms < grid[0])
      grid[0] = std::max<int64_t>(sms / cluster * cluster, cluster);
  }

  // The cubin: same major, the highest minor not above the device's; an
  // arch-specific one ('a') only for exactly its chip; at equal versions the
  // more specific one.
  std::string chosen, chosenFile;
  Arch best;
  auto rank = [](char suffix) { return suffix == 'a' ? 2 : suffix == 'f' ? 1 : 0; };
  for (const auto &c : cubins.items()) {
    Arch a;
    parseArch(c.key(), a);
    if (a.major != ccMajor || a.minor > ccMinor)
      continue;
    if (a.suffix == 'a' && a.minor != ccMinor)
      continue;
    if (chosen.empty() || a.minor > best.minor ||
        (a.minor == best.minor && rank(a.suffix) > rank(best.suffix))) {
      chosen = c.key();
      chosenFile = c.value().get<std::string>();
      best = a;
    }
  }
  if (chosen.empty()) {
    error = "no cubin in '" + manifestPath + "' runs on CUDA device " +
            std::to_string(r.device) + " (" + deviceName + ", sm_" +
            std::to_string(ccMajor) + std::to_string(ccMinor) +
            "); the artifact holds " + held;
    return false;
  }
  std::string dir = manifestPath.substr(0, manifestPath.rfind('/'));
  std::string cubinPath = dir + "/" + chosenFile;
  std::ifstream in(cubinPath, std::ios::binary);
  if (!in) {
    error = "cannot open cubin '" + cubinPath + "' (" + chosen +
            "): " + std::strerror(errno);
    return false;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string image = bytes.str();

  CUcontext ctx = nullptr;
  if (!check(d.primaryCtxRetain(&ctx, s.device), "cuDevicePrimaryCtxRetain"))
    return false;
  s.contextRetained = true;
  if (!check(d.ctxSetCurrent(ctx), "cuCtxSetCurrent"))
    return false;
  if (!check(d.moduleLoadData(&s.module, image.data()),
             "cuModuleLoadData('" + cubinPath + "')")) {
    s.module = nullptr;
    return false;
  }
  CUfunction fn = nullptr;
  if (!check(d.moduleGetFunction(&fn, s.module, function.c_str()),
             "cuModuleGetFunction('" + function + "' in '" + cubinPath + "')"))
    return false;
  if (shared > 48 * 1024 &&
      !check(d.funcSetAttribute(
                 fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 int(shared)),
             "setting " + std::to_string(shared) +
                 " bytes of dynamic shared memory (cuFuncSetAttribute)"))
    return false;

  // One device buffer per backing array; inputs copied in, outputs poisoned.
  std::vector<CUdeviceptr> pointer(b.arrays.size(), 0);
  for (size_t i = 0; i < b.arrays.size(); ++i) {
    if (b.backing[i] != i)
      continue;
    const NpyArray &a = b.arrays[i];
    CUdeviceptr p = 0;
    if (!check(d.memAlloc(&p, std::max<size_t>(a.data.size(), 1)),
               "cuMemAlloc(" + std::to_string(a.data.size()) + " bytes)"))
      return false;
    s.memory.push_back(p);
    pointer[i] = p;
    if (!a.data.empty() &&
        !check(d.memcpyHtoD(p, a.data.data(), a.data.size()),
               "cuMemcpyHtoD"))
      return false;
  }
  std::vector<CUdeviceptr> args(b.arrays.size());
  std::vector<void *> argPointers(b.arrays.size());
  for (size_t i = 0; i < b.arrays.size(); ++i) {
    args[i] = pointer[b.backing[i]];
    argPointers[i] = &args[i];
  }
  // Symbolic sizes follow the arrays, as int32_t.
  std::vector<int32_t> sizeArgs(b.sizes.begin(), b.sizes.end());
  for (int32_t &s : sizeArgs)
    argPointers.push_back(&s);
  // The chosen code's CUtensorMap parameters, after the arrays.
  std::vector<CUtensorMap> maps;
  if (launchInfo.contains("tensor_maps") && launchInfo["tensor_maps"].contains(chosen)) {
    const Json &list = launchInfo["tensor_maps"][chosen];
    std::string at = where + ".tensor_maps." + chosen;
    if (!list.is_array())
      throw ManifestError{at + " is not a list"};
    maps.resize(list.size());
    for (size_t k = 0; k < list.size(); ++k) {
      std::string here = at + "[" + std::to_string(k) + "]";
      int64_t param = getInt(list[k], "param", here);
      int64_t bytes = getInt(list[k], "element_bytes", here);
      // Numbers, or size names (bound from the arrays' shapes).
      std::vector<int64_t> dims;
      const Json &dimList = member(list[k], "dims", here);
      if (!dimList.is_array())
        throw ManifestError{here + ".dims is not an array"};
      for (const Json &d : dimList) {
        if (d.is_string()) {
          auto it = std::find(b.sizeNames.begin(), b.sizeNames.end(), d.get<std::string>());
          if (it == b.sizeNames.end())
            throw ManifestError{here + ".dims names '" + d.get<std::string>() +
                                "', which manifest.sizes does not list"};
          dims.push_back(b.sizes[size_t(it - b.sizeNames.begin())]);
        } else if (d.is_number_integer() && (!d.is_number_unsigned() || d.get<uint64_t>() <= uint64_t(INT64_MAX))) {
          dims.push_back(d.get<int64_t>());
        } else {
          throw ManifestError{here + ".dims holds neither a number nor a size name"};
        }
      }
      std::vector<int64_t> box = getInts(list[k], "box", here);
      // 128- or 64-byte swizzled boxes, or dense ones (0); absent: 128.
      int64_t swizzle = 128;
      if (list[k].contains("swizzle_bytes")) {
        const Json &sw = list[k]["swizzle_bytes"];
        if (!sw.is_number_integer() ||
            (sw.get<int64_t>() != 0 && sw.get<int64_t>() != 64 && sw.get<int64_t>() != 128))
          throw ManifestError{here + ".swizzle_bytes is none of 0, 64 and 128"};
        swizzle = sw.get<int64_t>();
      }
      // The elements as the TMA computes on them (CUtensorMapDataType;
      // absent: unsigned integers of element_bytes, for copies).
      int64_t dataType = -1;
      if (list[k].contains("data_type")) {
        const Json &dt = list[k]["data_type"];
        if (!dt.is_number_integer() || dt.get<int64_t>() < 0 || dt.get<int64_t>() > 12)
          throw ManifestError{here + ".data_type is not a CUtensorMapDataType (0 to 12)"};
        dataType = dt.get<int64_t>();
      }
      if (param < 0 || size_t(param) >= args.size())
        throw ManifestError{here + ".param " + std::to_string(param) + " is not an array's"};
      // The byte strides of dims 1 on (absent: each dim packed after the
      // ones inside it).
      size_t rank = dims.size();
      std::vector<int64_t> strides;
      if (list[k].contains("strides")) {
        strides = getInts(list[k], "strides", here);
      } else {
        int64_t step = bytes;
        for (size_t i = 1; i < rank; ++i)
          strides.push_back(step *= dims[i - 1]);
      }
      // The view's last byte must lie inside the array.
      bool fits = (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && rank >= 2 &&
                  rank <= 5 && box.size() == rank && strides.size() == rank - 1;
      uint64_t extent = fits ? uint64_t(dims[0]) * uint64_t(bytes) : 0;
      for (size_t i = 0; fits && i < rank; ++i) {
        fits = dims[i] >= 1 && box[i] >= 1 && box[i] <= 256 &&
               (i == 0 || (strides[i - 1] > 0 && strides[i - 1] % 16 == 0));
        if (fits && i > 0)
          extent += uint64_t(dims[i] - 1) * uint64_t(strides[i - 1]);
      }
      if (!fits || extent > b.arrays[size_t(param)].data.size())
        throw ManifestError{here + " does not describe a view of array " +
                            std::to_string(param)};
      if (!d.tensorMapEncodeTiled) {
        error = "the CUDA driver lacks cuTensorMapEncodeTiled, which '" + function +
                "' needs (its code copies with the TMA)";
        return false;
      }
      cuuint64_t globalDims[5], globalStrides[4];
      cuuint32_t boxDims[5], unit[5] = {1, 1, 1, 1, 1};
      for (size_t i = 0; i < rank; ++i) {
        globalDims[i] = cuuint64_t(dims[i]);
        boxDims[i] = cuuint32_t(box[i]);
        if (i > 0)
          globalStrides[i - 1] = cuuint64_t(strides[i - 1]);
      }
      CUtensorMapDataType type = dataType >= 0 ? CUtensorMapDataType(dataType)
                                 : bytes == 1  ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                 : bytes == 2  ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                 : bytes == 4  ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                               : CU_TENSOR_MAP_DATA_TYPE_UINT64;
      if (!check(d.tensorMapEncodeTiled(
                     &maps[k], type, cuuint32_t(rank), reinterpret_cast<void *>(args[size_t(param)]),
                     globalDims, globalStrides, boxDims, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                     swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                     : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "building " + here + " (cuTensorMapEncodeTiled)"))
        return false;
    }
    for (CUtensorMap &map : maps)
      argPointers.push_back(&map);
  }
  // In clusters: the launch configuration that says so, and (persistent
  // CTAs) as many clusters as the device runs at once.
  CUlaunchAttribute clusterDim{};
  clusterDim.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  clusterDim.value.clusterDim.x = unsigned(cluster);
  clusterDim.value.clusterDim.y = clusterDim.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = unsigned(grid[0]);
  config.gridDimY = unsigned(grid[1]);
  config.gridDimZ = unsigned(grid[2]);
  config.blockDimX = unsigned(block[0]);
  config.blockDimY = unsigned(block[1]);
  config.blockDimZ = unsigned(block[2]);
  config.sharedMemBytes = unsigned(shared);
  config.attrs = &clusterDim;
  config.numAttrs = 1;
  if (cluster > 1 && d.occupancyMaxActiveClusters && launchInfo.contains("persistent") &&
      launchInfo["persistent"].is_boolean() && launchInfo["persistent"].get<bool>()) {
    int clusters = 0;
    if (d.occupancyMaxActiveClusters(&clusters, fn, &config) == CUDA_SUCCESS && clusters > 0)
      config.gridDimX = unsigned(std::min<int64_t>(grid[0], int64_t(clusters) * cluster));
  }
  // Everything a launch takes is built once above (module, maps, cluster
  // occupancy); a timed launch is the driver call alone, its error message
  // written only on failure.
  auto launchOnce = [&] {
    if (cluster > 1 && d.launchKernelEx) {
      CUresult rc = d.launchKernelEx(&config, fn, argPointers.data(), nullptr);
      return rc == CUDA_SUCCESS ||
             check(rc, "launching '" + function + "' in clusters of " +
                           std::to_string(cluster) + " (cuLaunchKernelEx)");
    }
    CUresult rc = d.launchKernel(fn, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                                 unsigned(block[0]), unsigned(block[1]), unsigned(block[2]),
                                 unsigned(shared), nullptr, argPointers.data(), nullptr);
    return rc == CUDA_SUCCESS || check(rc, "launching '" + function + "' (cuLaunchKernel)");
  };
  if (!launchOnce() ||
      !check(d.ctxSynchronize(), "running '" + function + "' (" + chosen +
                                     " cubin on " + deviceName + ")"))
    return false;
  for (size_t i : b.outputs) {
    NpyArray &a = b.arrays[i];
    if (!a.data.empty() &&
        !check(d.memcpyDtoH(a.data.data(), pointer[i], a.data.size()),
               "cuMemcpyDtoH"))
      return false;
  }

  if (timing && r.timeRuns > 0) {
    for (int k = 0; k < 3; ++k)
      if (!launchOnce())
        return false;
    if (!check(d.ctxSynchronize(), "running '" + function + "'"))
      return false;
    CUevent start, stop;
    if (!check(d.eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"))
      return false;
    s.events.push_back(start);
    if (!check(d.eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"))
      return false;
    s.events.push_back(stop);
    for (int k = 0; k < r.timeRuns; ++k) {
      float ms = 0;
      if (!check(d.eventRecord(start, nullptr), "cuEventRecord") ||
          !launchOnce() ||
          !check(d.eventRecord(stop, nullptr), "cuEventRecord") ||
          !check(d.eventSynchronize(stop),
                 "running '" + function + "' (timed launch)") ||
          !check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime"))
        return false;
      timing->micros.push_back(double(ms) * 1000.0);
    }
  }
  return true;
}

#endif // PALLAS_HAVE_CUDA_H

} // namespace detail
} // namespace pallas_rt
