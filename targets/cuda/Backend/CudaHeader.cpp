//===- CudaHeader.cpp - the C launch header of CUDA artifacts -------------===//
//
// The header embeds one cubin per architecture, loads the right one lazily
// in each CUDA context, and launches the kernel with one CUdeviceptr per
// array. It is C99 and C++, prints nothing, never exits, and returns the
// CUresult of the first failing call.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/CHeader.h"
#include "Backend/CudaHeader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::pallas;

static void bytesArray(llvm::raw_ostream &os, llvm::StringRef name,
                       llvm::StringRef bytes) {
  os << "static const unsigned char " << name << "[" << bytes.size() << "] = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0)
      os << "\n ";
    os << " " << static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << ",";
  }
  os << "\n};\n\n";
}

/// `NAME_encode_function()` (cuTensorMapEncodeTiled as the driver's
/// entry-point table gives it, so the header needs no newer driver library
/// than the kernel's code does) and `NAME_tensor_map(...)`: a TMA view of
/// an array as 2-D rows, read in boxes swizzled (128 or 64 bytes) or not.
static void tensorMapHelpers(llvm::raw_ostream &os, llvm::StringRef n, bool fragmentRows) {
  os << "typedef CUresult (*" << n << "_encode_tiled_fn)(\n"
     << "    CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,\n"
     << "    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,\n"
     << "    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);\n\n"
     << "static inline CUresult " << n << "_encode_function(" << n << "_encode_tiled_fn *fn) {\n"
     << "  CUdriverProcAddressQueryResult found;\n"
     << "  CUresult r = cuGetProcAddress(\"cuTensorMapEncodeTiled\", (void **)fn, 12000,\n"
     << "                                CU_GET_PROC_ADDRESS_DEFAULT, &found);\n"
     << "  if (r != CUDA_SUCCESS) return r;\n"
     << "  return *fn && found == CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_SUCCESS\n"
     << "                                                     : CUDA_ERROR_NOT_SUPPORTED;\n}\n\n"
     << "/* The TMA's view of the array at `base`: `rows` rows of `row_elements`\n"
     << " * elements of `type`, boxes of box_rows x box_cols, swizzled as `swizzle`\n"
     << " * says. */\n"
     << "static inline CUresult " << n << "_tensor_map(" << n
     << "_encode_tiled_fn fn, CUtensorMap *map,\n"
     << "    CUdeviceptr base, cuuint32_t element_bytes, cuuint64_t row_elements, cuuint64_t rows,\n"
     << "    cuuint32_t box_cols, cuuint32_t box_rows, CUtensorMapSwizzle swizzle,\n"
     << "    CUtensorMapDataType type" << (fragmentRows ? ", int fragment_rows" : "") << ") {\n";
  if (!fragmentRows) {
    os << "  cuuint64_t dims[2], strides[1];\n"
       << "  cuuint32_t box[2], unit[2] = {1, 1};\n"
       << "  dims[0] = row_elements;\n  dims[1] = rows;\n"
       << "  strides[0] = row_elements * element_bytes;\n"
       << "  box[0] = box_cols;\n  box[1] = box_rows;\n"
       << "  return fn(map, type, 2, (void *)(size_t)base, dims,\n"
       << "      strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,\n"
       << "      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n}\n\n";
    return;
  }
  // With fragment_rows, each box's rows are permuted within 16 (box row
  // 16g + 8h + 2b + j is row 16g + 4b + 2h + j): the rows as four dims.
  os << "  cuuint64_t row = row_elements * element_bytes;\n"
     << "  cuuint64_t dims[5] = {row_elements, 2, 4, 2, rows / 16};\n"
     << "  cuuint64_t strides[4] = {row, 4 * row, 2 * row, 16 * row};\n"
     << "  cuuint32_t box[5] = {box_cols, 2, 4, 2, box_rows / 16};\n"
     << "  cuuint32_t unit[5] = {1, 1, 1, 1, 1};\n"
     << "  if (!fragment_rows) {\n"
     << "    dims[1] = rows;\n    box[1] = box_rows;\n"
     << "  }\n"
     << "  return fn(map, type, fragment_rows ? 5 : 2, (void *)(size_t)base, dims,\n"
     << "      strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,\n"
     << "      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n}\n\n";
}

TensorMapView mlir::pallas::fragmentRowsView(const CudaTensorMap &m) {
  int64_t row = m.rowElements * m.elemBytes;
  return {{m.rowElements, 2, 4, 2, m.rows / 16},
          {m.boxCols, 2, 4, 2, m.boxRows / 16},
          {row, 4 * row, 2 * row, 16 * row}};
}

/// The CUtensorMapDataType enumerator of value `type` (cuda.h's order).
static std::string dataTypeName(int64_t type) {
  static const char *const names[] = {"UINT8",   "UINT16",      "UINT32",   "INT32",
                                      "UINT64",  "INT64",       "FLOAT16",  "FLOAT32",
                                      "FLOAT64", "BFLOAT16",    "FLOAT32_FTZ", "TFLOAT32",
                                      "TFLOAT32_FTZ"};
  if (type < 0 || type >= static_cast<int64_t>(std::size(names)))
    return "(CUtensorMapDataType)" + std::to_string(type);
  return std::string("CU_TENSOR_MAP_DATA_TYPE_") + names[type];
}

/// `NAME_cluster_config(...)` (a launch in clusters) and, for persistent
/// kernels, `NAME_grid_x(...)`: how many CTAs a launch starts on a device.
static void gridHelpers(llvm::raw_ostream &os, llvm::StringRef n, const CudaLaunch &launch) {
  if (launch.cluster > 1)
    os << "/* A launch of the grid in clusters of " << n << "_CLUSTER_X CTAs along x. */\n"
       << "static inline void " << n << "_cluster_config(CUlaunchConfig *config,\n"
       << "    CUlaunchAttribute *cluster, unsigned grid_x, unsigned grid_y, unsigned grid_z,\n"
       << "    CUstream stream) {\n"
       << "  cluster->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
       << "  cluster->value.clusterDim.x = " << n << "_CLUSTER_X;\n"
       << "  cluster->value.clusterDim.y = 1;\n  cluster->value.clusterDim.z = 1;\n"
       << "  config->gridDimX = grid_x;\n  config->gridDimY = grid_y;\n"
       << "  config->gridDimZ = grid_z;\n"
       << "  config->blockDimX = " << n << "_BLOCK_X;\n  config->blockDimY = 1;\n"
       << "  config->blockDimZ = 1;\n"
       << "  config->sharedMemBytes = " << n << "_SHARED_BYTES;\n"
       << "  config->hStream = stream;\n"
       << "  config->attrs = cluster;\n  config->numAttrs = 1;\n}\n\n";
  if (!launch.persistent)
    return;
  if (launch.cluster > 1) {
    os << "/* The CTAs loop over the programs: as many clusters as `device` runs at\n"
       << " * once, at most " << n << "_GRID_X CTAs (any multiple of the cluster computes\n"
       << " * the same). Asked once per context. */\n"
       << "static inline CUresult " << n
       << "_grid_x(CUfunction function, CUdevice device, unsigned *grid_x) {\n"
       << "  CUlaunchConfig config;\n  CUlaunchAttribute cluster;\n  int clusters = 0;\n"
       << "  unsigned ctas;\n  (void)device;\n"
       << "  " << n << "_cluster_config(&config, &cluster, " << n << "_GRID_X, 1, 1, 0);\n"
       << "  *grid_x = " << n << "_GRID_X;\n"
       << "  if (cuOccupancyMaxActiveClusters(&clusters, function, &config) != CUDA_SUCCESS ||\n"
       << "      clusters <= 0)\n"
       << "    return CUDA_SUCCESS;\n"
       << "  ctas = (unsigned)clusters * " << n << "_CLUSTER_X;\n"
       << "  if (ctas < " << n << "_GRID_X) *grid_x = ctas;\n  return CUDA_SUCCESS;\n}\n\n";
    return;
  }
  os << "/* The CTAs loop over the programs: one per SM of `device`, at most\n"
     << " * " << n << "_GRID_X (any count computes the same). Asked once per context. */\n"
     << "static inline CUresult " << n
     << "_grid_x(CUfunction function, CUdevice device, unsigned *grid_x) {\n"
     << "  int sms = 0;\n  (void)function;\n"
     << "  *grid_x = " << n << "_GRID_X;\n"
     << "  if (cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) =="
     << " CUDA_SUCCESS &&\n"
     << "      sms > 0 && (unsigned)sms < " << n << "_GRID_X)\n"
     << "    *grid_x = (unsigned)sms;\n"
     << "  return CUDA_SUCCESS;\n}\n\n";
}

std::string mlir::pallas::cudaHeaderText(const LaunchSpec &spec,
                                         const CudaLaunch &launch) {
  const std::string &n = spec.name;
  std::string guard = "PALLAS_CUDA_" + llvm::StringRef(n).upper() + "_H";
  std::string s;
  llvm::raw_string_ostream os(s);
  std::vector<std::string> params;
  os << "/* " << n << ".h: CUDA launch API of Pallas kernel '" << spec.kernel
     << "'.\n * Generated by pallasc " << PALLAS_VERSION << "; do not edit.\n *\n"
     << " * Architectures:";
  for (const CudaImage &img : launch.images)
    os << " " << img.chip;
  os << " (picked per device at load).\n *\n"
     << " * Include it in one source file; link with -lcuda -lpthread.\n"
     << " *\n * Parameters, in spec order (device pointers to row-major arrays):\n";
  auto describe = [&](const SpecOperand &op, llvm::StringRef role) {
    cheader::describeArray(os, op, role);
    params.push_back(op.name);
  };
  cheader::forEachDeviceArray(spec, describe);
  cheader::describeSizes(os, spec);
  bool symbolic = spec.hasSymbolicSizes();
  cheader::open(os, guard,
                symbolic ? ArrayRef<StringRef>{"cuda.h", "pthread.h", "stdint.h", "stdlib.h"}
                         : ArrayRef<StringRef>{"cuda.h", "pthread.h", "stdlib.h"});
  if (symbolic)
    os << "/* The grid depends on the sizes: " << n << "() computes it. */\n";
  else
    os << "#define " << n << "_GRID_X " << launch.grid[0] << "u\n"
       << "#define " << n << "_GRID_Y " << launch.grid[1] << "u\n"
       << "#define " << n << "_GRID_Z " << launch.grid[2] << "u\n";
  if (launch.cluster > 1)
    os << "/* The code runs in thread-block clusters of " << n << "_CLUSTER_X CTAs along x. */\n"
       << "#define " << n << "_CLUSTER_X " << launch.cluster << "u\n";
  os << "#define " << n << "_BLOCK_X " << launch.threads << "u\n"
     << "#define " << n << "_SHARED_BYTES " << launch.sharedBytes << "u\n";
  if (launch.persistent)
    os << "/* The CTAs loop over the programs: a launch starts as many as the device\n"
       << " * runs at once, at most " << n << "_GRID_X. */\n"
       << "#define " << n << "_PERSISTENT 1\n";
  size_t mapCount = 0;
  for (const CudaImage &img : launch.images)
    mapCount = std::max(mapCount, img.tensorMaps.size());
  if (mapCount)
    os << "/* CUtensorMap parameters after the arrays (at most, over the images), and\n"
       << " * how many of each a context keeps encoded. */\n"
       << "#define " << n << "_TENSOR_MAPS " << mapCount << "\n"
       << "#define " << n << "_MAP_CACHE 4\n";
  os << "\n";
  for (const CudaImage &img : launch.images)
    bytesArray(os, n + "_cubin_" + img.chip, img.cubin);
  os << "/* The cubin for a device of compute capability major.minor: the same\n"
     << " * major and the highest minor not above it; arch-specific (sm_XXa)\n"
     << " * cubins only for exactly their architecture. */\n"
     << "static inline const void *" << n << "_image(int major, int minor) {\n"
     << "  const void *best = 0;\n  int best_minor = -1;\n";
  for (const CudaImage &img : launch.images) {
    int cc = img.computeCapability;
    os << "  if (major == " << cc / 10 << " && "
       << (img.archSpecific ? "minor == " : "minor >= ") << cc % 10 << " && "
       << cc % 10 << " > best_minor) {\n    best = " << n << "_cubin_" << img.chip
       << ";\n    best_minor = " << cc % 10 << ";\n  }\n";
  }
  os << "  return best;\n}\n\n";
  size_t maxMaps = mapCount;
  bool symbolicMaps = false, fragmentRows = false;
  for (const CudaImage &img : launch.images)
    for (const CudaTensorMap &m : img.tensorMaps) {
      symbolicMaps = symbolicMaps || m.rows < 0 || m.rowElements < 0;
      fragmentRows = fragmentRows || m.fragmentRows;
    }
  if (maxMaps)
    tensorMapHelpers(os, n, fragmentRows);
  gridHelpers(os, n, launch);
  os << "/* Per CUDA context: the loaded module and kernel, and what every launch\n"
     << " * there reuses. Contexts are told apart by their ids (a handle can be\n"
     << " * reused by a later context). */\n"
     << "typedef struct " << n << "_loaded_s {\n  CUcontext context;\n"
     << "  unsigned long long context_id;\n  CUmodule module;\n  CUfunction function;\n"
     << "  const void *image; /* the cubin its device runs */\n";
  if (launch.persistent)
    os << "  unsigned grid_x; /* the CTAs a launch starts on its device */\n";
  if (maxMaps)
    os << "  " << n << "_encode_tiled_fn encode;\n"
       << "  /* Per tensor map, the last ones encoded (a caller's outputs often\n"
       << "   * alternate between a few buffers), and which to replace next. */\n"
       << "  struct {\n    CUtensorMap map;\n    CUdeviceptr base;\n"
       << (symbolicMaps ? "    cuuint64_t sizes[2];\n" : "")
       << "    int valid;\n  } maps[" << n << "_TENSOR_MAPS][" << n << "_MAP_CACHE];\n"
       << "  int map_next[" << n << "_TENSOR_MAPS];\n";
  os << "  struct " << n << "_loaded_s *next;\n} " << n << "_loaded_t;\n\n"
     << "static struct {\n  pthread_mutex_t lock;\n  " << n << "_loaded_t *first;\n"
     << "} " << n << "_state = {PTHREAD_MUTEX_INITIALIZER, 0};\n\n"
     << "/* Whether the record's context still exists (its handle still names a\n"
     << " * context, and the same one). */\n"
     << "static inline int " << n << "_context_alive(const " << n << "_loaded_t *record) {\n"
     << "  unsigned long long id = 0;\n"
     << "  return cuCtxGetId(record->context, &id) == CUDA_SUCCESS && id == record->context_id;\n"
     << "}\n\n";
  os << "/* The current context's record, loading the kernel there first if needed\n"
     << " * (and forgetting contexts destroyed since: their modules went with them).\n"
     << " * Records stay where they are until " << n << "_unload(). */\n"
     << "static inline CUresult " << n << "_loaded(" << n << "_loaded_t **loaded) {\n"
     << "  CUcontext context;\n  CUdevice device;\n  CUmodule module = 0;\n"
     << "  CUfunction function = 0;\n  " << n << "_loaded_t *record, **link;\n"
     << "  unsigned long long id = 0;\n"
     << "  int major = 0, minor = 0;\n  const void *image;\n"
     << "  CUresult r = cuCtxGetCurrent(&context);\n"
     << "  if (r != CUDA_SUCCESS) return r;\n"
     << "  if (!context) return CUDA_ERROR_INVALID_CONTEXT;\n"
     << "  r = cuCtxGetId(context, &id);\n"
     << "  if (r != CUDA_SUCCESS) return r;\n"
     << "  pthread_mutex_lock(&" << n << "_state.lock);\n"
     << "  for (record = " << n << "_state.first; record; record = record->next)\n"
     << "    if (record->context_id == id) {\n"
     << "      *loaded = record;\n"
     << "      pthread_mutex_unlock(&" << n << "_state.lock);\n"
     << "      return CUDA_SUCCESS;\n    }\n"
     << "  for (link = &" << n << "_state.first; *link;) {\n"
     << "    record = *link;\n"
     << "    if (" << n << "_context_alive(record)) {\n      link = &record->next;\n"
     << "    } else {\n      *link = record->next;\n      free(record);\n    }\n  }\n"
     << "  r = cuCtxGetDevice(&device);\n"
     << "  if (r == CUDA_SUCCESS)\n"
     << "    r = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);\n"
     << "  if (r == CUDA_SUCCESS)\n"
     << "    r = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);\n"
     << "  image = " << n << "_image(major, minor);\n"
     << "  if (r == CUDA_SUCCESS && !image) r = CUDA_ERROR_NO_BINARY_FOR_GPU;\n"
     << "  record = r == CUDA_SUCCESS ? (" << n << "_loaded_t *)calloc(1, sizeof(*record)) : 0;\n"
     << "  if (r == CUDA_SUCCESS && !record) r = CUDA_ERROR_OUT_OF_MEMORY;\n"
     << "  if (r != CUDA_SUCCESS) {\n"
     << "    pthread_mutex_unlock(&" << n << "_state.lock);\n    return r;\n  }\n"
     << "  r = cuModuleLoadData(&module, image);\n"
     << "  if (r == CUDA_SUCCESS)\n"
     << "    r = cuModuleGetFunction(&function, module, \"" << launch.function << "\");\n"
     << "  if (r == CUDA_SUCCESS && " << n << "_SHARED_BYTES > 49152u)\n"
     << "    r = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
     << "                           (int)" << n << "_SHARED_BYTES);\n"
     << "  record->context = context;\n  record->context_id = id;\n"
     << "  record->module = module;\n"
     << "  record->function = function;\n  record->image = image;\n";
  if (launch.persistent)
    os << "  if (r == CUDA_SUCCESS) r = " << n << "_grid_x(function, device, &record->grid_x);\n";
  if (maxMaps)
    os << "  if (r == CUDA_SUCCESS) r = " << n << "_encode_function(&record->encode);\n";
  os << "  if (r == CUDA_SUCCESS) {\n"
     << "    record->next = " << n << "_state.first;\n"
     << "    " << n << "_state.first = record;\n    *loaded = record;\n"
     << "  } else {\n    if (module) cuModuleUnload(module);\n    free(record);\n  }\n"
     << "  pthread_mutex_unlock(&" << n << "_state.lock);\n  return r;\n}\n\n"
     << "/* The kernel in the current context, loading it there first if needed. */\n"
     << "static inline CUresult " << n << "_function(CUfunction *function) {\n"
     << "  " << n << "_loaded_t *loaded;\n"
     << "  CUresult r = " << n << "_loaded(&loaded);\n"
     << "  if (r == CUDA_SUCCESS) *function = loaded->function;\n  return r;\n}\n\n"
     << "/* Unloads the module from every context that loaded it and still exists;\n"
     << " * the next launch in a context loads it again. */\n"
     << "static inline CUresult " << n << "_unload(void) {\n"
     << "  CUresult result = CUDA_SUCCESS, r;\n  " << n << "_loaded_t *record, *next;\n"
     << "  pthread_mutex_lock(&" << n << "_state.lock);\n"
     << "  for (record = " << n << "_state.first; record; record = next) {\n"
     << "    next = record->next;\n"
     << "    if (" << n << "_context_alive(record)) {\n"
     << "      CUcontext previous;\n"
     << "      r = cuCtxPushCurrent(record->context);\n"
     << "      if (r == CUDA_SUCCESS) {\n"
     << "        r = cuModuleUnload(record->module);\n"
     << "        cuCtxPopCurrent(&previous);\n      }\n"
     << "      if (r != CUDA_SUCCESS) result = r;\n    }\n"
     << "    free(record);\n  }\n"
     << "  " << n << "_state.first = 0;\n"
     << "  pthread_mutex_unlock(&" << n << "_state.lock);\n  return result;\n}\n\n";
  if (maxMaps) {
    // The cache compares what a map depends on per launch: the array, and
    // its sizes where they are symbolic.
    os << "/* Map k of the current image for the array at `base`: one encoded\n"
       << " * before for this array when there is one, else encoded anew in place\n"
       << " * of the oldest. Called with " << n << "_state.lock held. */\n"
       << "static inline CUresult " << n << "_cached_map(" << n
       << "_loaded_t *loaded, int k, CUtensorMap *map,\n"
       << "    CUdeviceptr base, cuuint32_t element_bytes, cuuint64_t row_elements,\n"
       << "    cuuint64_t rows, cuuint32_t box_cols, cuuint32_t box_rows,\n"
       << "    CUtensorMapSwizzle swizzle, CUtensorMapDataType type"
       << (fragmentRows ? ", int fragment_rows" : "") << ") {\n"
       << "  int i;\n  CUresult r;\n"
       << "  for (i = 0; i < " << n << "_MAP_CACHE; ++i) {\n"
       << "    if (loaded->maps[k][i].valid && loaded->maps[k][i].base == base" 
       << (symbolicMaps ? " &&\n        loaded->maps[k][i].sizes[0] == row_elements &&\n"
                          "        loaded->maps[k][i].sizes[1] == rows"
                        : "")
       << ") {\n"
       << "      *map = loaded->maps[k][i].map;\n      return CUDA_SUCCESS;\n    }\n  }\n"
       << "  i = loaded->map_next[k];\n"
       << "  loaded->map_next[k] = (i + 1) % " << n << "_MAP_CACHE;\n"
       << "  r = " << n << "_tensor_map(loaded->encode, &loaded->maps[k][i].map, base,\n"
       << "      element_bytes, row_elements, rows, box_cols, box_rows, swizzle, type"
       << (fragmentRows ? ", fragment_rows" : "") << ");\n"
       << "  loaded->maps[k][i].valid = r == CUDA_SUCCESS;\n"
       << "  if (r != CUDA_SUCCESS) return r;\n"
       << "  loaded->maps[k][i].base = base;\n";
    if (symbolicMaps)
      os << "  loaded->maps[k][i].sizes[0] = row_elements;\n"
         << "  loaded->maps[k][i].sizes[1] = rows;\n";
    os << "  *map = loaded->maps[k][i].map;\n  return CUDA_SUCCESS;\n}\n\n";
  }
  std::string gridX = n + "_GRID_X", gridY = n + "_GRID_Y", gridZ = n + "_GRID_Z";
  if (launch.persistent)
    gridX = "pallas_loaded->grid_x";
  // The launch: in clusters, through cuLaunchKernelEx.
  auto launchCall = [&](llvm::StringRef indent, llvm::StringRef args) {
    if (launch.cluster > 1) {
      os << indent << "{\n"
         << indent << "  CUlaunchConfig pallas_config;\n" << indent << "  CUlaunchAttribute pallas_cluster;\n"
         << indent << "  " << n << "_cluster_config(&pallas_config, &pallas_cluster, " << gridX << ", " << gridY
         << ", " << gridZ << ", stream);\n"
         << indent << "  return cuLaunchKernelEx(&pallas_config, pallas_loaded->function, " << args
         << ", 0);\n"
         << indent << "}\n";
      return;
    }
    os << indent << "return cuLaunchKernel(pallas_loaded->function, " << gridX << ", " << gridY << ", "
       << gridZ << ",\n" << indent << "                      " << n << "_BLOCK_X, 1, 1, " << n
       << "_SHARED_BYTES, stream, " << args << ", 0);\n";
  };
  os << "/* Launches the whole grid on `stream` in the current context"
     << (symbolic ? ";\n * CUDA_ERROR_INVALID_VALUE for sizes the kernel does not take" : "")
     << ". */\n"
     << "static inline CUresult " << n << "(CUstream stream";
  for (const std::string &p : params)
    os << ", CUdeviceptr " << p;
  for (const SpecSize &size : spec.sizes)
    os << ", int64_t " << cheader::sizeParam(size.name);
  os << ") {\n  " << n << "_loaded_t *pallas_loaded;\n  CUresult pallas_r;\n";
  // The kernel's parameters: the arrays, then the sizes as int32_t.
  std::vector<std::string> args;
  for (const std::string &p : params)
    args.push_back("&" + p);
  if (symbolic) {
    cheader::cudaSizedGrid(os, spec);
    for (const SpecSize &size : spec.sizes)
      args.push_back("&pallas_arg_" + size.name);
    gridX = "(unsigned)pallas_grid0", gridY = "(unsigned)pallas_grid1", gridZ = "(unsigned)pallas_grid2";
  }
  os << "  pallas_r = " << n << "_loaded(&pallas_loaded);\n"
     << "  void *pallas_args[] = {";
  for (size_t i = 0; i < args.size(); ++i)
    os << (i ? ", " : "") << args[i];
  if (args.empty())
    os << "0";
  os << "};\n  if (pallas_r != CUDA_SUCCESS) return pallas_r;\n";
  for (const CudaImage &img : launch.images) {
    if (img.tensorMaps.empty())
      continue;
    // This chip's code also takes CUtensorMaps of the arrays, by value.
    size_t count = img.tensorMaps.size();
    os << "  if (pallas_loaded->image == " << n << "_cubin_" << img.chip << ") {\n"
       << "    CUtensorMap pallas_maps[" << count << "];\n"
       << "    void *pallas_all[" << args.size() + count << "] = {";
    for (const std::string &a : args)
      os << a << ", ";
    for (size_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << "&pallas_maps[" << i << "]";
    os << "};\n";
    // A symbolic dim (-1 - p) is the size the kernel's parameter p holds.
    size_t numArrays = spec.inputs.size() + spec.outputs.size();
    auto dim = [&](int64_t v) {
      return v >= 0 ? std::to_string(v) + "u"
                    : "(cuuint64_t)" +
                          cheader::sizeParam(spec.sizes[static_cast<size_t>(-1 - v) - numArrays].name);
    };
    os << "    pthread_mutex_lock(&" << n << "_state.lock);\n";
    for (auto [i, m] : llvm::enumerate(img.tensorMaps))
      os << "    if (pallas_r == CUDA_SUCCESS)\n      pallas_r = " << n << "_cached_map(pallas_loaded, " << i
         << ", &pallas_maps[" << i << "], " << params[m.param] << ", " << m.elemBytes << "u, "
         << dim(m.rowElements) << ", " << dim(m.rows) << ", " << m.boxCols << "u, " << m.boxRows << "u, "
         << (m.swizzleBytes == 128  ? "CU_TENSOR_MAP_SWIZZLE_128B"
             : m.swizzleBytes == 64 ? "CU_TENSOR_MAP_SWIZZLE_64B"
                                    : "CU_TENSOR_MAP_SWIZZLE_NONE")
         << ", " << dataTypeName(m.encodedDataType())
         << (fragmentRows ? (m.fragmentRows ? ", 1" : ", 0") : "") << ");\n";
    os << "    pthread_mutex_unlock(&" << n << "_state.lock);\n"
       << "    if (pallas_r != CUDA_SUCCESS) return pallas_r;\n";
    launchCall("    ", "pallas_all");
    os << "  }\n";
  }
  launchCall("  ", "pallas_args");
  os << "}\n\n";
  cheader::close(os, guard);
  return s;
}
