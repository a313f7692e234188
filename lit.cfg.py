# lit configuration for pallasc: `lit test/` from the source tree, after a
# build into build/ (or PALLAS_BUILD_DIR).
import os
import lit.formats

config.name = "pallasc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "build", "examples", "schemas", "targets", "bench", "tools", "src", "include", "passes", ".ci", "fuzz"]

src_root = os.path.dirname(os.path.abspath(__file__))
build_dir = os.environ.get("PALLAS_BUILD_DIR", os.path.join(src_root, "build"))
config.test_source_root = src_root
config.test_exec_root = os.path.join(build_dir, "lit")

llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build_dir, "bin"), llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
for var in ["HOME", "PYTHONPATH", "TMPDIR", "PALLAS_SHARED_DIR", "ASAN_OPTIONS", "UBSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# A sanitizer build (-DPALLAS_SANITIZE): LLVM's allocators poison memory
# from inlined header code that the prebuilt LLVM/MLIR libraries then hand
# out unpoisoned; AddressSanitizer must ignore such manual poisoning.
config.environment.setdefault("ASAN_OPTIONS", "allow_user_poisoning=0")

# The shared conformance kernels sit beside the checkout (../shared), or
# where PALLAS_SHARED_DIR says.
shared_dir = os.environ.get("PALLAS_SHARED_DIR",
                            os.path.join(os.path.dirname(src_root), "shared"))
if not os.path.isdir(os.path.join(shared_dir, "conformance")):
    lit_config.fatal("conformance kernels not found in %s (set PALLAS_SHARED_DIR)" % shared_dir)
config.substitutions.append(("%conformance", os.path.join(shared_dir, "conformance")))
config.substitutions.append(("%examples", os.path.join(src_root, "examples")))
config.substitutions.append(("%srcroot", src_root))
config.substitutions.append(("%python", "python3"))
config.substitutions.append(("%bindir", os.path.join(build_dir, "bin")))
config.substitutions.append(("%builddir", build_dir))
# libFuzzer targets, where the build has them (-DPALLAS_ENABLE_FUZZERS=ON).
if os.path.exists(os.path.join(build_dir, "bin", "pallas-fuzz-driver")):
    config.available_features.add("fuzzers")
config.substitutions.append(("%exit1", os.path.join(src_root, "tools", "expect-exit.sh") + " 1"))
