// compactingFor keeps exactly the active items, once each, on both backends.
#include <algorithm>

#include <catch2/catch.hpp>

#include "bvh_oracle.h"
#include "compaction.h"
#include "test_support.h"

using namespace wavefront;

static void checkCompaction(Backend backend) {
    for (float keep : {0.0f, 0.3f, 0.7f, 1.0f}) {
        const int n = 100003;  // not a multiple of any block or chunk size
        CompactionTimes t = measureCompaction(backend, n, keep, 1);
        std::vector<int> expected;
        for (int i = 0; i < n; ++i)
            if (compaction::kept(i, keep)) expected.push_back(i);
        std::vector<int> got = t.keptIds;
        std::sort(got.begin(), got.end());
        INFO("keep " << keep);
        CHECK(t.kept == int(expected.size()));
        CHECK(got == expected);
    }
}

TEST_CASE("write-time compaction keeps every active item exactly once", "[compaction][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkCompaction(backend);
}

TEST_CASE("uploads of any size arrive whole", "[exec][gpu]") {
    // Small, around 1 MiB and 9 MiB + 3 bytes (the sizes a chunked upload would split; one was
    // tried and measured no faster: docs/decisions.md).
    for (Backend backend : wftest::testBackends())
        for (std::size_t bytes : {std::size_t(1000), (std::size_t(1) << 20) - 1, std::size_t(1) << 20,
                                  (std::size_t(9) << 20) + 3}) {
            std::vector<unsigned char> data(bytes);
            for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
            INFO(toString(backend) << ", " << bytes << " bytes");
            CHECK(uploadRoundTrip(backend, data) == data);
        }
}
