#include "wavefront/error.h"

#include <cstdio>

namespace wavefront {

std::string printable(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    const auto escape = [&](const char* format, unsigned value) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, format, value);
        out += buffer;
    };
    const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned c = byte(i);
        if (c < 0x80) {
            if (c == '\n') out += "\\n";
            else if (c == '\t') out += "\\t";
            else if (c == '\r') out += "\\r";
            else if (c < 0x20 || c == 0x7f) escape("\\x%02x", c);
            else out += char(c);
            ++i;
            continue;
        }
        // A well-formed UTF-8 sequence (no overlong forms, no surrogates) is kept, C1 controls
        // (U+0080..U+009F: terminals act on them too) excepted; any other byte is escaped alone.
        const int length = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        bool valid = length > 0;
        for (int k = 1; valid && k < length; ++k) valid = (byte(i + k) & 0xc0) == 0x80;
        if (valid && length == 3)
            valid = !(c == 0xe0 && byte(i + 1) < 0xa0) && !(c == 0xed && byte(i + 1) >= 0xa0);
        if (valid && length == 4)
            valid = !(c == 0xf0 && byte(i + 1) < 0x90) && !(c == 0xf4 && byte(i + 1) >= 0x90);
        if (!valid) {
            escape("\\x%02x", c);
            ++i;
        } else if (c == 0xc2 && byte(i + 1) < 0xa0) {
            escape("\\u%04x", byte(i + 1));
            i += 2;
        } else {
            out.append(text, i, std::size_t(length));
            i += std::size_t(length);
        }
    }
    return out;
}

Error::Error(const std::string& message) : std::runtime_error(printable(message)) {}

CudaError::CudaError(const std::string& message, const char* file, int line, const char* expression, int code)
    : Error(message), file_(file), line_(line), expression_(expression), code_(code) {}

}  // namespace wavefront
