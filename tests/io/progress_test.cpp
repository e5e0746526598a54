#include "io/progress.hpp"

#include <doctest/doctest.h>

using attn::io::Progress;

TEST_CASE("progress line: bar, percentage, counts, rate and time left") {
    // 50 of 200 rows in 10 s: 5 rows/s, 150 rows left = 30 s.
    CHECK(Progress::line("attend", 50, 200, 10.0, 20) ==
          "attend  [#####...............]  25% 50/200 rows  5 rows/s  0:30 left");
    // Thousands grouped; hours shown past an hour: 1,000 of 4,601,000 at 1 row/s.
    CHECK(Progress::line("encode", 1000, 4601000, 1000.0, 4) ==
          "encode  [....]   0% 1,000/4,601,000 rows  1 rows/s  1277:46:40 left");
    // Nothing done yet: no rate; done beyond total is clamped.
    CHECK(Progress::line("x", 0, 10, 0.5, 2) == "x  [..]   0% 0/10 rows");
    CHECK(Progress::line("x", 12, 10, 2.0, 2) == "x  [##] 100% 10/10 rows  5 rows/s  0:00 left");
}

TEST_CASE("progress on a standard error that is not a terminal draws nothing") {
    Progress p("test", 10, false);
    CHECK_FALSE(p.active());
    p.advance(10);
    p.finish();
}
