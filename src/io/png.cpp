#include "io/png.hpp"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cmath>
#include <memory>
#include <stdexcept>

namespace attn::io {

namespace {

template <class T, void (*Free)(T*)>
struct Freer {
    void operator()(T* p) const {
        if (p) Free(p);
    }
};
using Handle = std::unique_ptr<RsvgHandle, Freer<void, g_object_unref>>;
using Surface = std::unique_ptr<cairo_surface_t, Freer<cairo_surface_t, cairo_surface_destroy>>;
using Context = std::unique_ptr<cairo_t, Freer<cairo_t, cairo_destroy>>;

[[noreturn]] void fail(GError* error, const char* what) {
    std::string message = std::string("png: ") + what;
    if (error) {
        message += std::string(": ") + error->message;
        g_error_free(error);
    }
    throw std::runtime_error(message);
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string render_png(const std::string& svg) {
    GError* error = nullptr;
    Handle handle(
        rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
    if (!handle) fail(error, "the svg could not be read");
    gdouble width = 0, height = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &width, &height))
        fail(nullptr, "the svg has no size in pixels");
    const int w = static_cast<int>(std::ceil(width)), h = static_cast<int>(std::ceil(height));
    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h));
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        fail(nullptr, "no image surface of that size");
    Context cr(cairo_create(surface.get()));
    const RsvgRectangle viewport{0, 0, width, height};
    if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error))
        fail(error, "the svg could not be drawn");
    cairo_surface_flush(surface.get());
    std::string png;
    if (cairo_surface_write_to_png_stream(surface.get(), append, &png) != CAIRO_STATUS_SUCCESS)
        fail(nullptr, "the image could not be encoded");
    return png;
}

void PngWriter::emit(const std::string& svg) {
    out().write(render_png(svg));
}

}  // namespace attn::io
