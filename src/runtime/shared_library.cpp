#include "runtime/shared_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <utility>

namespace attn::runtime {

SharedLibrary::SharedLibrary(const char* soname, std::string what)
    : handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)), what_(std::move(what)) {
    if (handle_ == nullptr) throw std::runtime_error("cannot load " + what_ + ": " + ::dlerror());
}

void* SharedLibrary::symbol(const char* name) const {
    void* f = ::dlsym(handle_, name);
    if (f == nullptr) throw std::runtime_error(what_ + " has no " + name);
    return f;
}

}  // namespace attn::runtime
