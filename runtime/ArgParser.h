//===- ArgParser.h - a small command-line parser for the launcher -*- C++ -*-===//
//
// No third-party library, so that pallas-launch builds on machines with only
// a C++ compiler. Supports one or more positionals, options taking one value
// (`--opt V` or `--opt=V`), options taking a list (`--opt A B ...` up to the
// next option, or `--opt=A`; repeating the option appends), `--` (only
// positionals after it), `-h`/`--help` and `--version`. Every user error prints
// `TOOL: error: ...` on stderr and gives exit code 1.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_RUNTIME_ARGPARSER_H
#define PALLAS_RUNTIME_ARGPARSER_H

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace pallas_rt {

class ArgParser {
public:
  ArgParser(std::string tool, std::string description, std::string version)
      : tool_(std::move(tool)), description_(std::move(description)),
        version_(std::move(version)) {}

  void positional(const std::string &name, const std::string &help,
                  std::string *out, bool required) {
    positionals_.push_back({name, help, out, required, false});
  }
  void option(const std::string &name, const std::string &help,
              std::string *out) {
    options_.push_back({name, "TEXT", help, Kind::String, out, nullptr,
                        nullptr, 0, false});
  }
  /// An integer option; values below `min` are refused.
  void option(const std::string &name, const std::string &help, int *out,
              int min = INT_MIN) {
    options_.push_back(
        {name, "INT", help, Kind::Int, nullptr, out, nullptr, min, false});
  }
  void list(const std::string &name, const std::string &help,
            std::vector<std::string> *out) {
    options_.push_back({name, "TEXT ...", help, Kind::List, nullptr, nullptr,
                        out, 0, false});
  }

  /// Parses the command line. Returns the exit code when the tool should
  /// stop now: 0 after --help or --version, 1 after a user error.
  std::optional<int> parse(int argc, char **argv) {
    program_ = argc > 0 ? argv[0] : tool_;
    size_t nextPositional = 0;
    bool onlyPositionals = false;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (!onlyPositionals && arg == "--") {
        onlyPositionals = true;
        continue;
      }
      if (!onlyPositionals && arg.size() > 1 && arg[0] == '-') {
        if (arg == "-h" || arg == "--help") {
          printHelp();
          return 0;
        }
        if (arg == "--version") {
          std::cout << version_ << "\n";
          return 0;
        }
        std::string name = arg, value;
        bool inlineValue = false;
        size_t eq = arg.find('=');
        if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
          name = arg.substr(0, eq);
          value = arg.substr(eq + 1);
          inlineValue = true;
        }
        Option *o = find(name);
        if (!o)
          return fail("unknown option '" + name + "' (see --help)");
        if (o->kind == Kind::List) {
          size_t before = o->list->size();
          if (inlineValue) // `--opt=V` gives just V
            o->list->push_back(value);
          else
            while (i + 1 < argc && !looksLikeOption(argv[i + 1]))
              o->list->push_back(argv[++i]);
          if (o->list->size() == before)
            return fail(name + " needs at least one value");
          o->seen = true;
          continue;
        }
        if (o->seen)
          return fail(name + " is given more than once");
        o->seen = true;
        if (!inlineValue) {
          if (i + 1 >= argc || looksLikeOption(argv[i + 1]))
            return fail(name + " needs a value");
          value = argv[++i];
        }
        if (o->kind == Kind::String) {
          *o->text = value;
        } else {
          errno = 0;
          char *end = nullptr;
          long v = std::strtol(value.c_str(), &end, 10);
          if (value.empty() || *end || errno == ERANGE || v < INT_MIN ||
              v > INT_MAX)
            return fail(name + " needs an integer, got '" + value + "'");
          if (v < o->min)
            return fail(name + " must be at least " + std::to_string(o->min) +
                        ", got " + value);
          *o->integer = int(v);
        }
        continue;
      }
      if (nextPositional >= positionals_.size())
        return fail("unexpected argument '" + arg + "' (see --help)");
      Positional &p = positionals_[nextPositional++];
      *p.out = arg;
      p.seen = true;
    }
    for (const Positional &p : positionals_)
      if (p.required && !p.seen)
        return fail("missing the " + p.name + " argument (see --help)");
    return std::nullopt;
  }

private:
  enum class Kind { String, Int, List };
  struct Option {
    std::string name, metavar, help;
    Kind kind;
    std::string *text;
    int *integer;
    std::vector<std::string> *list;
    int min;
    bool seen;
  };
  struct Positional {
    std::string name, help;
    std::string *out;
    bool required, seen;
  };

  std::string tool_, description_, version_, program_;
  std::vector<Option> options_;
  std::vector<Positional> positionals_;

  Option *find(const std::string &name) {
    for (Option &o : options_)
      if (o.name == name)
        return &o;
    return nullptr;
  }

  /// An option-like word ends a list; a negative number does not.
  static bool looksLikeOption(const char *word) {
    return word[0] == '-' && word[1] &&
           !(word[1] >= '0' && word[1] <= '9') && word[1] != '.';
  }

  std::optional<int> fail(const std::string &message) {
    std::cerr << tool_ << ": error: " << message << "\n";
    return 1;
  }

  void printHelp() const {
    std::cout << description_ << "\nUsage: " << program_ << " [OPTIONS]";
    for (const Positional &p : positionals_)
      std::cout << " " << (p.required ? "" : "[") << p.name
                << (p.required ? "" : "]");
    std::cout << "\n\nPositionals:\n";
    auto row = [](const std::string &left, const std::string &help) {
      std::cout << "  " << left;
      if (left.size() < 28)
        std::cout << std::string(28 - left.size(), ' ');
      else
        std::cout << "\n" << std::string(30, ' ');
      std::cout << help << "\n";
    };
    for (const Positional &p : positionals_)
      row(p.name + (p.required ? " (required)" : ""), p.help);
    std::cout << "\nOptions:\n";
    row("-h,--help", "print this help message and exit");
    row("--version", "print the version and exit");
    for (const Option &o : options_)
      row(o.name + " " + o.metavar, o.help);
  }
};

} // namespace pallas_rt

#endif
