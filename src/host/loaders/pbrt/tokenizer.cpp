// The pbrt-v4 tokenizer: one linear pass over the file's bytes, no allocation per token except
// for strings with escapes.
#include "host/loaders/pbrt/tokenizer.h"

#include <wavefront/error.h>

#include <cstdio>

namespace wavefront::pbrt {

std::string FileLoc::str() const {
    return (file ? *file : std::string("<input>")) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Tokenizer::Tokenizer(std::string_view text, const std::string& file) : text_(text), file_(file) {
    // UTF-16 would read as a stream of NUL bytes: say what it is instead.
    if (text_.size() >= 2 && ((text_[0] == '\xfe' && text_[1] == '\xff') || (text_[0] == '\xff' && text_[1] == '\xfe')))
        fail(here(), "the file is UTF-16 encoded; pbrt files are UTF-8 (or ASCII)");
    if (text_.substr(0, 3) == "\xef\xbb\xbf") pos_ = lineStart_ = 3;  // a UTF-8 byte-order mark
}

FileLoc Tokenizer::here() const { return FileLoc{&file_, line_, int(pos_ - lineStart_) + 1}; }

void Tokenizer::fail(const FileLoc& loc, const std::string& message) const {
    throw InputError(loc.str() + ": " + message);
}

bool Tokenizer::next(Token& token) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    const auto describe = [](char c) {
        char text[8];
        std::snprintf(text, sizeof text, "0x%02x", unsigned(static_cast<unsigned char>(c)));
        return std::string(text);
    };
    while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == '\n' || c == '\r') {
            // "\r\n", "\n" and a lone "\r" each end one line.
            pos_ += (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
            ++line_;
            lineStart_ = pos_;
            continue;
        }
        if (c == ' ' || c == '\t') {
            ++pos_;
            continue;
        }
        if (c == '#') {
            while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
            continue;
        }
        token.loc = here();
        if (c == '[' || c == ']') {
            token.kind = c == '[' ? Token::Kind::Open : Token::Kind::Close;
            token.text = text_.substr(pos_, 1);
            ++pos_;
            return true;
        }
        if (c == '"') {
            const std::size_t start = ++pos_;
            bool escaped = false;
            while (true) {
                if (pos_ >= text_.size()) fail(token.loc, "string without its closing quote before the end of the file");
                const char s = text_[pos_];
                if (s == '"') break;
                if (s == '\n' || s == '\r') fail(token.loc, "string without its closing quote on its line");
                if (s == '\\') {
                    escaped = true;
                    ++pos_;
                    if (pos_ >= text_.size()) fail(token.loc, "string ends in a lone backslash");
                } else if (static_cast<unsigned char>(s) < 0x20 && s != '\t') {
                    fail(here(), "control character " + describe(s) + " in a string");
                }
                ++pos_;
                if (pos_ - start > kMaxStringLength)
                    fail(token.loc, "string longer than " + std::to_string(kMaxStringLength) + " bytes");
            }
            const std::string_view raw = text_.substr(start, pos_ - start);
            ++pos_;  // the closing quote
            token.kind = Token::Kind::String;
            if (!escaped) {
                token.text = raw;
                return true;
            }
            decoded_.clear();
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] != '\\') {
                    decoded_.push_back(raw[i]);
                    continue;
                }
                const char e = raw[++i];
                switch (e) {
                case 'b': decoded_.push_back('\b'); break;
                case 'f': decoded_.push_back('\f'); break;
                case 'n': decoded_.push_back('\n'); break;
                case 'r': decoded_.push_back('\r'); break;
                case 't': decoded_.push_back('\t'); break;
                case '\\': decoded_.push_back('\\'); break;
                case '\'': decoded_.push_back('\''); break;
                case '"': decoded_.push_back('"'); break;
                default: fail(token.loc, std::string("unknown escape '\\") + (e >= 0x20 && e < 0x7f ? std::string(1, e) : describe(e)) + "' in a string");
                }
            }
            token.text = decoded_;
            return true;
        }
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            fail(token.loc, "unexpected control character " + describe(c));
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !isSpace(text_[pos_]) && text_[pos_] != '"' && text_[pos_] != '[' &&
               text_[pos_] != ']' && text_[pos_] != '#') {
            const char w = text_[pos_];
            if (static_cast<unsigned char>(w) < 0x20 || w == 0x7f) fail(here(), "unexpected control character " + describe(w));
            if (++pos_ - start > kMaxWordLength)
                fail(token.loc, "word longer than " + std::to_string(kMaxWordLength) + " bytes");
        }
        token.kind = Token::Kind::Word;
        token.text = text_.substr(start, pos_ - start);
        return true;
    }
    return false;
}

}  // namespace wavefront::pbrt
