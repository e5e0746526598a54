// -o DIR/: every array goes to its own file DIR/<name>.<ext>. All are written to temporaries
// (see output_file.hpp) and renamed into place together in finish(), only once every one was
// written and closed: a run that fails, or is destroyed before finish(), leaves no file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

class DirectorySink : public ArraySink {
  public:
    /// dir must exist; format is the format of each file (one array per file).
    DirectorySink(std::string dir, Format format, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;
    void finish() override;

  private:
    std::string dir_;
    Format format_;
    TextStyle style_;
    std::vector<std::unique_ptr<OutputFile>> files_;
    std::unique_ptr<ArraySink> writer_;
};

}  // namespace attn::io
