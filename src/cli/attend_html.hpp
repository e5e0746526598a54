// attn attend -f html: the page draws the attention weights of one sentence (or of the
// --input rows), every query against every key.
#pragma once

#include <string>

#include "cli/attend.hpp"

namespace attn::cli {

/// The --show list of an html page: "weights" (also the default). Refuses (UsageError) any
/// other array, --query (a page draws every query), and sentences read from standard input
/// (one page draws one sentence).
std::string html_show(const AttendOptions& opt, bool from_stdin);

}  // namespace attn::cli
