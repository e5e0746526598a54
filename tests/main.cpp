// The doctest runner for attn_tests (Debian ships no doctest_with_main target).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
