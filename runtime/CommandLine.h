//===- CommandLine.h - parsing the tools' command lines ---------*- C++ -*-===//
#ifndef PALLAS_RUNTIME_COMMANDLINE_H
#define PALLAS_RUNTIME_COMMANDLINE_H

#include <CLI/CLI.hpp>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

namespace pallas_rt {

/// Checks an int option: `--opt: needs an integer, got 'x'` or `--opt: must
/// be at least MIN, got V` rather than CLI11's generic conversion messages.
inline CLI::Validator integerAtLeast(int min) {
  return CLI::Validator(
      [min](std::string &value) -> std::string {
        errno = 0;
        char *end = nullptr;
        long v = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end || errno == ERANGE || v < INT_MIN ||
            v > INT_MAX)
          return "needs an integer, got '" + value + "'";
        if (v < min)
          return "must be at least " + std::to_string(min) + ", got " + value;
        return "";
      },
      /*validator_desc=*/"");
}

/// Parses the command line. Returns the exit code when the tool should stop
/// now: 0 after --help or --version, 1 (with `TOOL: error: ...` on stderr)
/// for a bad command line - never CLI11's own codes, so that every user
/// error is exit code 1.
inline std::optional<int> parseCommandLine(CLI::App &app, int argc, char **argv,
                                           const char *tool) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 1;
  }
  return std::nullopt;
}

} // namespace pallas_rt

#endif
