#include "cli/errors.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <new>

#include "io/format.hpp"
#include "io/html.hpp"
#include "io/output_spec.hpp"
#include "io/svg.hpp"

namespace attn::cli {

namespace {

std::string output_message(const io::OutputError& e) {
    const std::string_view format = io::format_name(e.format);
    using Kind = io::OutputError::Kind;
    switch (e.kind) {
        case Kind::unknown_extension:
            return "--output: cannot tell the format from '" + e.path + "'; name it with -f " +
                   io::format_names();
        case Kind::lines_needs_svg:
            return fmt::format(
                "--plot lines draws an svg or png, not {}; use -f svg, -f png or -o FILE.svg",
                format);
        case Kind::binary_to_terminal:
            return fmt::format(
                "--format {}: binary data not written to a terminal; use -o FILE or a pipe",
                format);
        case Kind::missing_directory:
            return "--output: directory '" + e.path + "' does not exist";
        case Kind::contradicts_extension: {
            const auto named = io::format_from_extension(e.path);
            return fmt::format(
                "--format {} writes {}, but '{}' is named as {}; leave out -f, or name "
                "the file {}",
                format, format, e.path, named ? io::format_name(*named) : "another format",
                io::format_extension(e.format));
        }
        case Kind::one_array_only:
            return fmt::format(
                "--format {} holds one array and this run writes {}; use -f npz, json or table, "
                "or -o DIR/ for one file per array",
                format, e.arrays == 0 ? std::string("several") : std::to_string(e.arrays));
        case Kind::too_many_curves:
            return fmt::format(
                "--plot lines: {} has {} columns, at most {} curves are drawn; select columns "
                "(e.g. --columns 6:10)",
                e.path, e.arrays, io::kMaxSvgLines);
        case Kind::too_many_tokens:
            return fmt::format("--format html: {} tokens, at most {} are drawn on a page", e.arrays,
                               io::kMaxHtmlTokens);
        case Kind::too_many_weights:
            return fmt::format(
                "--format html: weights of shape ({}) are more than the {} (2^24) a page holds; "
                "narrow them with --layer and --head (or fewer --heads)",
                e.path, io::kMaxHtmlWeights);
    }
    return std::string("--output: ") + e.what();
}

}  // namespace

Failure describe(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const io::OutputError& e) {
        return {kUsage, output_message(e)};
    } catch (const runtime::BudgetExceeded& e) {
        return {kUsage, std::string(e.what()) + " (--max-memory)"};
    } catch (const runtime::SizeOverflow& e) {
        return {kUsage, e.what()};
    } catch (const std::invalid_argument& e) {  // UsageError, malformed input files
        return {kUsage, e.what()};
    } catch (const std::system_error& e) {
        if (e.code().value() == EPIPE) return {kBrokenPipe, ""};  // the reader left (| head)
        return {kFailure, e.what()};
    } catch (const std::bad_alloc&) {
        return {kFailure, "out of memory"};
    } catch (const std::exception& e) {  // InputError, runtime errors
        return {kFailure, e.what()};
    } catch (...) {
        return {kFailure, "unknown error"};
    }
}

std::string escape_control(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (u < 0x20 || u == 0x7f)
            out += fmt::format("\\x{:02x}", u);
        else
            out += c;
    }
    return out;
}

std::string help_hint(const std::string& command) {
    return fmt::format("Try 'attn {}--help' for more information.",
                       command.empty() ? "" : command + " ");
}

int report(std::exception_ptr error, const std::string& command) {
    const Failure f = describe(error);
    if (f.message.empty()) return f.code;
    if (f.code == kUsage)
        fmt::print(stderr, "attn: {}\n{}\n", escape_control(f.message), help_hint(command));
    else
        fmt::print(stderr, "attn: {}\n", escape_control(f.message));
    return f.code;
}

}  // namespace attn::cli
