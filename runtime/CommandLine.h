//===- CommandLine.h - parsing the tools' command lines ---------*- C++ -*-===//
#ifndef PALLAS_RUNTIME_COMMANDLINE_H
#define PALLAS_RUNTIME_COMMANDLINE_H

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

namespace pallas_rt {

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
