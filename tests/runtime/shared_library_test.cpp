#include "runtime/shared_library.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

TEST_CASE("shared library: a function found by name runs, a missing one or library is named") {
    const attn::runtime::SharedLibrary libm("libm.so.6", "libm");
    CHECK(libm.function<double(double)>("cos")(0.0) == 1.0);
    CHECK(libm.function<double(double, double)>("pow")(2.0, 10.0) == 1024.0);
    CHECK_THROWS_WITH_AS(libm.function<void()>("no_such_function"), "libm has no no_such_function",
                         std::runtime_error);
    CHECK_THROWS_WITH_AS(attn::runtime::SharedLibrary("libno-such-library.so.0", "a library"),
                         doctest::Contains("cannot load a library: "), std::runtime_error);
}
