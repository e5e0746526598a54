// A shared library loaded when first needed rather than linked: OpenBLAS (runtime/blas.cpp)
// and librsvg with cairo (io/png.cpp), so that commands that use neither start without them.
#pragma once

#include <string>

namespace attn::runtime {

class SharedLibrary {
  public:
    /// dlopen(soname, RTLD_NOW | RTLD_LOCAL); std::runtime_error "cannot load <what>: <why>".
    SharedLibrary(const char* soname, std::string what);
    /// The function `name` as F*, found in the library or among its dependencies;
    /// std::runtime_error "<what> has no <name>".
    template <class F>
    F* function(const char* name) const {
        return reinterpret_cast<F*>(symbol(name));
    }

  private:
    void* symbol(const char* name) const;
    void* handle_;
    std::string what_;
};

}  // namespace attn::runtime
