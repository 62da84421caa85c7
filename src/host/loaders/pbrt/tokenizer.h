// pbrt-v4's token grammar (https://pbrt.org/fileformat-v4): quoted strings with backslash escapes,
// '[' and ']', comments from '#' to the end of the line, and bare words (directives, numbers,
// true and false) that end at whitespace, a quote or a bracket. Every token knows where it
// starts, so that every message can name file:line:column.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace wavefront::pbrt {

/// Where a token starts: the file as it was named, 1-based line and column (in bytes).
struct FileLoc {
    const std::string* file = nullptr;
    int line = 0, column = 0;
    /// "file:line:column", the prefix of every message about this place.
    std::string str() const;
};

struct Token {
    enum class Kind { Word, String, Open, Close };
    Kind kind = Kind::Word;
    /// Word: as written; String: the contents, quotes removed and escapes decoded. Valid until the
    /// next call of Tokenizer::next.
    std::string_view text;
    FileLoc loc;
};

/// The longest bare word and the longest quoted string: no directive, number, name or file name
/// comes near them, and a token without an end cannot run through the whole file.
constexpr std::size_t kMaxWordLength = 4096;
constexpr std::size_t kMaxStringLength = 65536;

class Tokenizer {
public:
    /// `text` must outlive the tokenizer, and so must `file` (the FileLoc of every token points to it).
    Tokenizer(std::string_view text, const std::string& file);
    /// The next token; false at the end of the text. Throws InputError, naming the place, for an
    /// unterminated string, an unknown escape, a control character outside a string, a token
    /// over its length cap, or UTF-16 text.
    bool next(Token& token);

private:
    [[noreturn]] void fail(const FileLoc& loc, const std::string& message) const;
    FileLoc here() const;

    std::string_view text_;
    const std::string& file_;
    std::size_t pos_ = 0, lineStart_ = 0;
    int line_ = 1;
    std::string decoded_;  ///< a string with escapes, decoded
};

}  // namespace wavefront::pbrt
