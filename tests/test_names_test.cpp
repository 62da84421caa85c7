// ctest runs each test case by name (catch_discover_tests): a ';' in a name splits it into
// entries that match nothing, and an unmatched '[' merged every later name into one entry, so
// those test cases never ran. Names must have neither (tests/CMakeLists.txt also makes an entry
// that matches no test case fail).
#include <catch2/catch.hpp>

#include <string>

TEST_CASE("every test name is one ctest entry: no semicolons and no square brackets", "[meta]") {
    const auto& tests = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
    CHECK(tests.size() > 300);
    for (const Catch::TestCase& t : tests) {
        INFO(t.name);
        CHECK(t.name.find_first_of(";[]") == std::string::npos);
    }
}
