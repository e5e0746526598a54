#include "io/png.hpp"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "runtime/shared_library.hpp"

namespace attn::io {

namespace {

// librsvg and cairo (with glib, pango, X11 ... some 45 libraries) are loaded when the first
// picture is drawn, not at every start: linked, they took 8 ms of each run of attn. The
// functions keep the headers' types; cairo's and glib's are found among librsvg's own
// dependencies.
struct Rsvg {
    runtime::SharedLibrary library{"librsvg-2.so.2", "librsvg (for png)"};
#define ATTN_RSVG(name) decltype(::name)* name = library.function<decltype(::name)>(#name)
    ATTN_RSVG(rsvg_handle_new_from_data);
    ATTN_RSVG(rsvg_handle_get_intrinsic_size_in_pixels);
    ATTN_RSVG(rsvg_handle_render_document);
    ATTN_RSVG(g_object_unref);
    ATTN_RSVG(g_error_free);
    ATTN_RSVG(cairo_image_surface_create);
    ATTN_RSVG(cairo_surface_status);
    ATTN_RSVG(cairo_surface_flush);
    ATTN_RSVG(cairo_surface_write_to_png_stream);
    ATTN_RSVG(cairo_surface_destroy);
    ATTN_RSVG(cairo_create);
    ATTN_RSVG(cairo_destroy);
#undef ATTN_RSVG
};

const Rsvg& rsvg() {
    static const Rsvg r;
    return r;
}

struct Unref {
    void operator()(RsvgHandle* p) const { rsvg().g_object_unref(p); }
    void operator()(cairo_surface_t* p) const { rsvg().cairo_surface_destroy(p); }
    void operator()(cairo_t* p) const { rsvg().cairo_destroy(p); }
};
using Handle = std::unique_ptr<RsvgHandle, Unref>;
using Surface = std::unique_ptr<cairo_surface_t, Unref>;
using Context = std::unique_ptr<cairo_t, Unref>;

[[noreturn]] void fail(GError* error, const char* what) {
    std::string message = std::string("png: ") + what;
    if (error) {
        message += std::string(": ") + error->message;
        rsvg().g_error_free(error);
    }
    throw std::runtime_error(message);
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string render_png(const std::string& svg) {
    const Rsvg& r = rsvg();
    GError* error = nullptr;
    Handle handle(r.rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()),
                                              svg.size(), &error));
    if (!handle) fail(error, "the svg could not be read");
    gdouble width = 0, height = 0;
    if (!r.rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &width, &height))
        fail(nullptr, "the svg has no size in pixels");
    const int w = static_cast<int>(std::ceil(width)), h = static_cast<int>(std::ceil(height));
    Surface surface(r.cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h));
    if (r.cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        fail(nullptr, "no image surface of that size");
    Context cr(r.cairo_create(surface.get()));
    const RsvgRectangle viewport{0, 0, width, height};
    if (!r.rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error))
        fail(error, "the svg could not be drawn");
    r.cairo_surface_flush(surface.get());
    std::string png;
    if (r.cairo_surface_write_to_png_stream(surface.get(), append, &png) != CAIRO_STATUS_SUCCESS)
        fail(nullptr, "the image could not be encoded");
    return png;
}

void PngWriter::emit(const std::string& svg) {
    out().write(render_png(svg));
}

}  // namespace attn::io
