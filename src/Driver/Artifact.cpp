//===- Artifact.cpp - writing compilation outputs -------------------------===//
#include "pallas/Driver/Artifact.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringExtras.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::pallas;

std::string mlir::pallas::sha256Hex(StringRef data) {
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  return llvm::toHex(hash, /*LowerCase=*/true);
}

std::vector<std::string> mlir::pallas::staleArtifacts(StringRef dir, StringRef manifest,
                                                      ArrayRef<Artifact> artifacts) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, manifest);
  auto old = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!old)
    return {};
  nlohmann::json doc = nlohmann::json::parse((*old)->getBuffer().begin(),
                                             (*old)->getBuffer().end(), nullptr,
                                             /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("artifacts") || !doc["artifacts"].is_object())
    return {};
  std::vector<std::string> stale;
  for (auto item : doc["artifacts"].items()) {
    const std::string &name = item.key();
    const nlohmann::json &entry = item.value();
    // Only plain names of files beside the manifest.
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." ||
        !entry.is_object() || !entry.contains("sha256") || !entry["sha256"].is_string())
      continue;
    if (llvm::any_of(artifacts, [&](const Artifact &a) { return a.filename == name; }))
      continue;
    SmallString<256> file(dir);
    llvm::sys::path::append(file, name);
    auto contents = llvm::MemoryBuffer::getFile(file, false, false);
    if (contents && sha256Hex((*contents)->getBuffer()) == entry["sha256"].get<std::string>())
      stale.push_back(file.str().str());
  }
  return stale;
}

std::string mlir::pallas::depfileText(StringRef target,
                                      ArrayRef<std::string> prerequisites) {
  auto escape = [](StringRef path) {
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#')
        out += '\\';
      else if (c == '$')
        out += '$';
      out += c;
    }
    return out;
  };
  std::string text = escape(target) + ":";
  for (const std::string &p : prerequisites)
    if (p != "-") // (stdin is no file make can watch)
      text += " \\\n  " + escape(p);
  return text + "\n";
}

LogicalResult mlir::pallas::writeArtifacts(StringRef dir,
                                           ArrayRef<Artifact> artifacts,
                                           llvm::raw_ostream &errs,
                                           ArrayRef<Artifact> besides) {
  // The directories this call creates (deepest first), removed again if
  // anything fails: an error leaves nothing behind.
  SmallVector<std::string> created;
  for (StringRef d = dir; !d.empty() && !llvm::sys::fs::exists(d);
       d = llvm::sys::path::parent_path(d))
    created.push_back(d.str());
  auto removeCreated = [&] {
    for (const std::string &d : created)
      llvm::sys::fs::remove(d);
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    errs << "pallasc: error: cannot create output directory '" << dir
         << "': " << ec.message() << "\n";
    removeCreated();
    return failure();
  }
  // Subdirectories artifacts are named in (DIR/FILE: a chain's kernels),
  // removed before `dir` if anything fails.
  for (const Artifact &a : artifacts) {
    StringRef sub = llvm::sys::path::parent_path(a.filename);
    if (sub.empty())
      continue;
    SmallString<256> path(dir);
    llvm::sys::path::append(path, sub);
    if (llvm::sys::fs::exists(path))
      continue;
    if (std::error_code ec = llvm::sys::fs::create_directories(path)) {
      errs << "pallasc: error: cannot create output directory '" << path
           << "': " << ec.message() << "\n";
      removeCreated();
      return failure();
    }
    created.insert(created.begin(), path.str().str());
  }
  // Each file's final path and how an error names it.
  struct File {
    const Artifact *artifact;
    std::string final, what;
  };
  SmallVector<File> files;
  for (const Artifact &a : artifacts) {
    SmallString<256> final(dir);
    llvm::sys::path::append(final, a.filename);
    files.push_back({&a, final.str().str(), "'" + final.str().str() + "'"});
  }
  for (const Artifact &a : besides)
    files.push_back({&a, a.filename, a.kind + " '" + a.filename + "'"});

  // Where a file's final path is a directory, renaming onto it fails:
  // refuse before anything is written.
  for (const File &f : files)
    if (llvm::sys::fs::is_directory(f.final)) {
      errs << "pallasc: error: cannot write " << f.what << ": it is a directory\n";
      removeCreated();
      return failure();
    }

  SmallVector<std::string> written; // the temporary files
  SmallVector<std::string> renamed; // the final files in place so far
  auto cleanup = [&] {
    for (const std::string &tmp : written)
      llvm::sys::fs::remove(tmp);
    for (const std::string &final : renamed)
      llvm::sys::fs::remove(final);
    removeCreated();
  };
  for (const File &f : files) {
    // A fresh name, created exclusively (never an existing file or a link
    // planted there), renamed into place once every file is written.
    SmallString<256> tmp;
    int fd = -1;
    std::error_code ec =
        llvm::sys::fs::createUniqueFile(f.final + ".%%%%%%%%.tmp", fd, tmp);
    if (!ec) {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << f.artifact->contents;
      os.close();
      ec = os.error();
      if (ec)
        llvm::sys::fs::remove(tmp);
      else
        written.push_back(tmp.str().str());
    }
    if (ec) {
      errs << "pallasc: error: cannot write " << f.what << ": " << ec.message() << "\n";
      cleanup();
      return failure();
    }
  }
  for (auto [f, tmp] : llvm::zip(files, written)) {
    if (std::error_code ec = llvm::sys::fs::rename(tmp, f.final)) {
      errs << "pallasc: error: cannot write " << f.what << ": " << ec.message() << "\n";
      cleanup();
      return failure();
    }
    renamed.push_back(f.final);
  }
  return success();
}
