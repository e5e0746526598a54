#include "cli/attend_html.hpp"

#include "cli/errors.hpp"

namespace attn::cli {

std::string html_show(const AttendOptions& opt, bool from_stdin) {
    if (!opt.show.empty() && opt.show != "weights")
        throw UsageError(
            "--show: -f html draws the attention weights; use --show weights (the "
            "default) or another format for " +
            opt.show);
    if (opt.query_opt->count())
        throw UsageError("--query: -f html draws every query; leave --query out");
    if (from_stdin)
        throw UsageError(
            "--format html: a page draws one sentence; give it as the SENTENCE argument");
    return "weights";
}

}  // namespace attn::cli
