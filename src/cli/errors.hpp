// The one mapping from what can go wrong to one line on stderr and one exit status
// (cli/exit_code.hpp): usage 2, runtime and I/O 1 (a missing input file too), a failed check
// 3 (returned, not thrown), the reader of standard output gone 141 (quietly).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/exit_code.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

/// A bad option value found after parsing (exit 2). The message names the option.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// An input named by an option could not be read (exit 1). The message names the option,
/// the file and the system's reason once.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Failure {
    ExitCode code;
    std::string message;  // empty: nothing is printed
};

/// The exit status and the line for an exception (io::OutputError worded for the options).
Failure describe(std::exception_ptr error);

/// `text` with bytes that would break the one line of a message (control characters, DEL)
/// written as C escapes: \n, \t, \r, \xNN. Everything else, UTF-8 included, is kept.
std::string escape_control(std::string_view text);

/// "Try 'attn COMMAND --help' for more information." ("attn --help" for an empty command).
std::string help_hint(const std::string& command);

/// Prints "attn: <message>" on stderr when there is one, and after a usage error (exit 2)
/// help_hint(command) on a second line; returns the exit status.
int report(std::exception_ptr error, const std::string& command = "");

/// Runs read() with `option` named in any error it throws: malformed input or a value out of
/// range (std::invalid_argument, std::overflow_error) becomes a UsageError, an unreadable
/// file (std::system_error) an InputError; a request above the memory budget stays a
/// runtime::BudgetExceeded, its request prefixed with the option.
template <class F>
auto naming_option(const std::string& option, F&& read) -> decltype(read()) {
    try {
        return read();
    } catch (const runtime::BudgetExceeded& e) {
        throw runtime::BudgetExceeded(option + ": " + e.request, e.needed, e.limit);
    } catch (const std::system_error& e) {
        throw InputError(option + ": " + e.what());
    } catch (const std::invalid_argument& e) {
        throw UsageError(option + ": " + e.what());
    } catch (const std::overflow_error& e) {
        throw UsageError(option + ": " + e.what());
    }
}

}  // namespace attn::cli
