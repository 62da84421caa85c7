// Helpers shared by the benchmark programs.
#pragma once
#include <sstream>
#include <string>
#include <vector>

/// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
    return out;
}
