// PNG pictures: the svg picture SvgWriter draws (heatmap or lines, every PictureStyle option),
// rendered by librsvg onto a cairo image surface of the svg's width x height pixels (--size
// sets them) over its white background, and written as an 8-bit RGBA PNG by cairo. The pixels
// are those rsvg-convert gives for the same svg file. One array per file, as svg.
#pragma once

#include <string>

#include "io/svg.hpp"

namespace attn::io {

class PngWriter : public SvgWriter {
  public:
    using SvgWriter::SvgWriter;

  private:
    void emit(const std::string& svg) override;
};

/// The PNG bytes of an svg document rendered at its own width and height (rounded up to whole
/// pixels). std::runtime_error when librsvg cannot read or draw it.
std::string render_png(const std::string& svg);

}  // namespace attn::io
