// Interop tests against the real numpy: run /usr/bin/python3 on a script, or skip the test
// (exit 77, which tests/CMakeLists.txt maps to "skipped") when numpy is not there.
#pragma once

#include <unistd.h>

#include <sys/wait.h>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/test_files.hpp"

namespace attn::test {

inline constexpr const char* kPython = "/usr/bin/python3";

/// Ends the test process with status 77 unless /usr/bin/python3 can import numpy.
inline void require_numpy() {
    const std::string probe = std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1";
    if (::access(kPython, X_OK) != 0 || std::system(probe.c_str()) != 0) {
        std::printf("skipped: numpy not available (%s -c 'import numpy' failed)\n", kPython);
        std::fflush(stdout);
        std::exit(77);
    }
}

/// Saves script as scratch_dir()/<file_name> and runs it with the scratch directory as its
/// working directory; returns the script's exit status (stdout/stderr go to the test log).
inline int run_python(const std::string& file_name, const std::string& script) {
    const std::string path = tmp_path(file_name);
    write_file(path, script);
    const std::string command = "cd '" + scratch_dir() + "' && " + kPython + " '" + path + "'";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace attn::test
