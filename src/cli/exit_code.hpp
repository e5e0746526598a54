// The exit statuses attn documents (man attn, EXIT STATUS).
#pragma once

namespace attn::cli {

enum ExitCode : int {
    kOk = 0,
    kFailure = 1,      // runtime: I/O, memory
    kUsage = 2,        // bad option, bad value, impossible shape, malformed input file
    kCheckFailed = 3,  // attn rotate: an error above --tol
    kBrokenPipe = 141  // 128 + SIGPIPE: the reader of standard output went away
};

}  // namespace attn::cli
