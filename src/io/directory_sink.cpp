#include "io/directory_sink.hpp"

#include <stdexcept>

namespace attn::io {

DirectorySink::DirectorySink(std::string dir, Format format, const TextStyle& style)
    : dir_(std::move(dir)), format_(format), style_(style) {
    if (!dir_.empty() && dir_.back() != '/') dir_ += '/';
}

void DirectorySink::begin(const ArrayInfo& info) {
    for (char c : info.name)
        if (c == '/') throw std::invalid_argument("array name '" + info.name + "' has a '/'");
    files_.push_back(
        std::make_unique<OutputFile>(dir_ + info.name + std::string(format_extension(format_))));
    writer_ = make_writer(format_, *files_.back(), style_);
    writer_->begin(info);
}

void DirectorySink::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    writer_->rows(first_row, values, n_rows);
}

void DirectorySink::end() {
    writer_->end();
    writer_->finish();
    writer_.reset();
}

void DirectorySink::finish() {
    // Every file is written and closed (a full disk shows here) before the first rename, so
    // a failure up to this point leaves no file: the destructors remove the temporaries.
    for (auto& f : files_) f->close();
    // Renames fail only if a target became a directory meanwhile or the directory went away
    // (files renamed before that stay).
    for (auto& f : files_) f->publish();
}

}  // namespace attn::io
