//===- Names.cpp - which names may reach artifacts ------------------------===//
#include "pallas/Spec/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using llvm::StringRef;
using namespace mlir::pallas;

namespace {

/// Keywords of C (C23), C++ (C++23) and Python 3, and the Python builtins
/// the generated modules call.
constexpr llvm::StringLiteral kKeywords[] = {
    // C and C++.
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await",
    "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
    "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
    "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "typeof", "typeof_unqual", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // Python.
    "False", "None", "True", "as", "assert", "async", "await", "def", "del", "elif",
    "except", "finally", "from", "global", "import", "in", "is", "lambda", "nonlocal",
    "pass", "raise", "with", "yield",
    // Builtins the generated Python calls.
    "len", "zip", "tuple", "list", "isinstance", "type", "print", "object", "range",
    "super", "getattr", "open", "max", "min", "next", "iter", "dict",
};

/// Names an array may not take: the parameter every launch function has
/// beside the arrays, and the namespaces and modules the generated C++ and
/// Python name while the arrays are in scope. (The generated code's own
/// locals start with pallas_ or pallasc_, which arrays may not.)
constexpr llvm::StringLiteral kTakenByGeneratedCode[] = {
    "stream", "at", "c10", "std", "xla", "ffi", "torch", "jax", "jnp", "ctypes", "json", "os",
    "threading", "concurrent", "INPUTS", "OUTPUTS", "NAME", "KERNEL", "ALIASES", "TARGET",
    "PLATFORM",
};

/// C library names: a kernel name becomes a function of the header, which
/// its user includes beside <stdlib.h>, <math.h> and the rest.
constexpr llvm::StringLiteral kCLibrary[] = {
    "main", "abs", "labs", "div", "exit", "abort", "free", "malloc", "calloc", "realloc",
    "errno", "assert", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt",
    "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "erf", "erfc", "tgamma", "lgamma", "gamma", "ceil", "floor",
    "round", "trunc", "fabs", "fmod", "fmin", "fmax", "fma", "hypot", "remainder", "rint",
    "nan", "y0", "y1", "yn", "j0", "j1", "jn", "time", "clock", "signal", "raise", "printf",
    "puts", "stdin", "stdout", "stderr", "memcpy", "memset", "memmove", "strlen", "select",
    "index", "random", "rand", "sleep", "read", "write", "open", "close", "qsort", "bsearch",
    "atoi", "getenv", "system", "pthread_create", "sysconf",
};

/// What both kinds of name must be: an identifier of C, C++ and Python,
/// no keyword, nothing C reserves, nothing of the generated code's own.
std::optional<std::string> whyNotUserName(StringRef name) {
  if (name.empty())
    return std::string("is empty");
  if (name.size() > kMaxNameLength)
    return "is longer than " + std::to_string(kMaxNameLength) + " characters";
  if (!llvm::isAlpha(name[0]) && name[0] != '_')
    return std::string("does not start with a letter or '_'");
  if (!llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return std::string("is not an identifier (letters, digits and '_' only)");
  // Reserved to C and C++ implementations.
  if (name.contains("__") || (name.size() > 1 && name[0] == '_' && llvm::isUpper(name[1])))
    return std::string("is reserved in C and C++ (a leading '_' and capital, or '__')");
  if (llvm::is_contained(kKeywords, name))
    return std::string("is a keyword or builtin of C, C++ or Python");
  // Artifact names prefix the generated code's names, array names sit
  // beside them: neither may look like one.
  if (name.starts_with("pallasc_") || name.starts_with("pallas_"))
    return std::string("starts with pallasc_/pallas_, which the generated code keeps for itself");
  return std::nullopt;
}

} // namespace

std::optional<std::string> mlir::pallas::whyNotArtifactName(StringRef name) {
  if (std::optional<std::string> why = whyNotUserName(name))
    return why;
  if (llvm::is_contained(kCLibrary, name))
    return std::string("is a C library name (the header's function would clash with it)");
  return std::nullopt;
}

std::optional<std::string> mlir::pallas::whyNotArrayName(StringRef name) {
  if (std::optional<std::string> why = whyNotUserName(name))
    return why;
  if (llvm::is_contained(kTakenByGeneratedCode, name))
    return std::string("is a name the generated code uses beside the arrays");
  return std::nullopt;
}
