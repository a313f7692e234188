//===- LaunchSpec.cpp - loading launch specs ------------------------------===//
#include "pallas/Spec/LaunchSpec.h"

#include "SpecReader.h"

#include "mlir/IR/Diagnostics.h"

#include <nlohmann/json.hpp>
#include <set>

using namespace mlir;
using namespace mlir::pallas;
using json = nlohmann::json;

SmallVector<int64_t> SpecOperand::refShape() const {
  SmallVector<int64_t> shape;
  for (std::optional<int64_t> d : blockShape)
    if (d)
      shape.push_back(*d);
  return shape;
}

SmallVector<int64_t> SpecOperand::blockDims() const {
  SmallVector<int64_t> dims;
  for (std::optional<int64_t> d : blockShape)
    dims.push_back(d.value_or(1));
  return dims;
}

int64_t SpecOperand::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Location LaunchSpec::loc(StringRef path) const {
  auto [line, col] = locator ? locator->find(path) : std::make_pair(1u, 1u);
  return FileLineColLoc::get(context, file, line, col);
}

int64_t LaunchSpec::numPrograms() const {
  int64_t n = 1;
  for (int64_t g : grid)
    n *= g;
  return n;
}

std::optional<int64_t> LaunchSpec::aliasedOutput(int64_t input) const {
  for (auto [in, out] : aliases)
    if (in == input)
      return out;
  return std::nullopt;
}

std::optional<int64_t> LaunchSpec::aliasedInput(int64_t output) const {
  for (auto [in, out] : aliases)
    if (out == output)
      return in;
  return std::nullopt;
}

namespace {
/// A SAX handler that builds nothing and keeps nlohmann's first error: the
/// byte position (just past the last token read), that token and the message.
struct JsonErrorFinder : json::json_sax_t {
  size_t position = 0;
  std::string token;
  std::string message;
  int id = 0;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(json::number_integer_t) override { return true; }
  bool number_unsigned(json::number_unsigned_t) override { return true; }
  bool number_float(json::number_float_t, const std::string &) override {
    return true;
  }
  bool string(std::string &) override { return true; }
  bool binary(json::binary_t &) override { return true; }
  bool start_object(size_t) override { return true; }
  bool key(std::string &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(size_t pos, const std::string &lastToken,
                   const nlohmann::detail::exception &e) override {
    position = pos;
    token = lastToken;
    message = e.what();
    id = e.id;
    return false;
  }
};
} // namespace

/// Watches a parse (its callback) for the first key that repeats within
/// one object; `offset` finds that repeat in the text.
struct DuplicateKeys {
  std::vector<std::set<std::string>> open;
  std::optional<std::string> repeated;
  size_t keys = 0; // keys in document order, up to the repeat

  json::parser_callback_t callback() {
    return [this](int, json::parse_event_t event, json &parsed) {
      if (repeated)
        return true;
      if (event == json::parse_event_t::object_start) {
        open.emplace_back();
      } else if (event == json::parse_event_t::object_end) {
        open.pop_back();
      } else if (event == json::parse_event_t::key && !open.empty()) {
        ++keys;
        if (!open.back().insert(parsed.get<std::string>()).second)
          repeated = parsed.get<std::string>();
      }
      return true;
    };
  }

  /// The byte offset of the repeat: the keys-th string followed by a colon.
  size_t offset(StringRef text) const {
    size_t seen = 0;
    for (size_t at = 0; at < text.size(); ++at) {
      if (text[at] != '"')
        continue;
      size_t end = at + 1;
      while (end < text.size() && text[end] != '"')
        end += text[end] == '\\' ? 2 : 1;
      if (text.drop_front(std::min(end + 1, text.size())).ltrim().starts_with(":") &&
          ++seen == keys)
        return at;
      at = end;
    }
    return 0;
  }
};

FailureOr<LaunchSpec> mlir::pallas::loadLaunchSpec(StringRef filename,
                                                   StringRef text,
                                                   MLIRContext *ctx) {
  LaunchSpec spec;
  spec.file = filename.str();
  spec.context = ctx;
  // Parse without exceptions: besides syntax errors (parse_error), nlohmann
  // fails on numbers out of range (out_of_range.406, e.g. 1e400), and only
  // its SAX interface tells where.
  // Byte `offset` of the text as a location.
  auto locationAt = [&](size_t offset) {
    StringRef before = text.take_front(offset);
    unsigned line = 1 + before.count('\n');
    size_t nl = before.rfind('\n');
    unsigned col = nl == StringRef::npos ? offset + 1 : offset - nl;
    return FileLineColLoc::get(ctx, filename, line, col);
  };
  DuplicateKeys duplicates;
  json doc = json::parse(text.begin(), text.end(), duplicates.callback(),
                         /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    JsonErrorFinder finder;
    json::sax_parse(text.begin(), text.end(), &finder);
    // Locate the byte offset nlohmann reports; a number out of range at its
    // first character.
    size_t offset = finder.position ? finder.position - 1 : 0;
    if (finder.id == 406 && finder.position >= finder.token.size())
      offset = finder.position - finder.token.size();
    offset = std::min(offset, text.size());
    std::string what = finder.message;
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at ...: "
    // or "[json.exception.out_of_range.406] ".
    size_t cut = what.find("parse error") != std::string::npos
                     ? what.find(": ", what.find("parse error"))
                     : what.find("] ");
    if (cut != std::string::npos)
      what = what.substr(cut + 2);
    emitError(locationAt(offset)) << "invalid JSON: " << (what.empty() ? "syntax error" : what);
    return failure();
  }
  if (duplicates.repeated) {
    emitError(locationAt(duplicates.offset(text))) << "duplicate key '" << *duplicates.repeated
        << "' (JSON readers disagree on which one counts)";
    return failure();
  }
  spec.locator = std::make_shared<JsonLocator>(text);
  SpecReader reader(spec);
  if (!reader.read(doc))
    return failure();
  return spec;
}
