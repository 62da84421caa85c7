// The directive grammar of https://pbrt.org/fileformat-v4, one token of look-ahead. Included
// files are parsed recursively (a directive cannot span two files).
#include "host/loaders/pbrt/parser.h"

#include <wavefront/error.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

namespace wavefront::pbrt {

namespace {

const char* const kDirectives[] = {
    "Accelerator", "ActiveTransform", "AreaLightSource", "Attribute", "AttributeBegin", "AttributeEnd", "Camera",
    "ColorSpace", "ConcatTransform", "CoordinateSystem", "CoordSysTransform", "Film", "Identity", "Import", "Include",
    "Integrator", "LightSource", "LookAt", "MakeNamedMaterial", "MakeNamedMedium", "Material", "MediumInterface",
    "NamedMaterial", "ObjectBegin", "ObjectEnd", "ObjectInstance", "Option", "PixelFilter", "ReverseOrientation", "Rotate",
    "Sampler", "Scale", "Shape", "Texture", "Transform", "TransformBegin", "TransformEnd", "TransformTimes", "Translate",
    "WorldBegin", "WorldEnd"};

bool isDirective(std::string_view word) {
    return std::find(std::begin(kDirectives), std::end(kDirectives), word) != std::end(kDirectives);
}

// The parameter types of pbrt-v4, and pbrt-v3's names for some of them (pbrt-v4 --upgrade renames
// them the same way).
const char* const kTypes[] = {"integer", "float", "point2", "vector2", "point3", "vector3", "normal",
                              "bool",    "string", "texture", "rgb",     "spectrum", "blackbody"};

std::string v4Type(const std::string& type) {
    if (type == "point") return "point3";
    if (type == "vector") return "vector3";
    if (type == "color") return "rgb";
    if (type == "normal3") return "normal";
    return type;
}

class Parser {
public:
    Parser(const FileResolver& files, SceneBuilder& builder, Description& description, Warnings& warnings)
        : files_(files), builder_(builder), d_(description), warnings_(warnings) {}

    void parseFile(const std::string& path, std::string text, int depth) {
        parsedBytes_ += text.size();
        d_.fileNames.push_back(path);
        Source source{std::move(text), d_.fileNames.back(), nullptr, false, Token{}, 1};
        Source* outer = source_;
        source_ = &source;
        source.tokens = std::make_unique<Tokenizer>(source.text, source.name);
        while (directive(depth)) {
        }
        end_ = FileLoc{&source.name, source.lastLine, 1};
        source_ = outer;
    }

    const FileLoc& end() const { return end_; }

private:
    struct Source {
        std::string text;
        const std::string& name;
        std::unique_ptr<Tokenizer> tokens;
        bool peeked = false;
        Token next;
        int lastLine = 1;
    };

    bool peek(Token& token) {
        if (!source_->peeked) {
            if (!source_->tokens->next(source_->next)) return false;
            source_->peeked = true;
            source_->lastLine = source_->next.loc.line;
        }
        token = source_->next;
        return true;
    }

    bool take(Token& token) {
        if (!peek(token)) return false;
        source_->peeked = false;
        return true;
    }

    [[noreturn]] void fail(const FileLoc& loc, const std::string& message) const { throw InputError(loc.str() + ": " + message); }

    static std::string textCapMessage() {
        return "the scene's files (each Include and Import counted) exceed " + std::to_string(kMaxParsedBytes >> 30) +
               " GiB of text";
    }

    FileLoc endOfFile() const { return FileLoc{&source_->name, source_->lastLine, 1}; }

    Token required(const std::string& what) {
        Token t;
        if (!take(t)) fail(endOfFile(), "the file ends where " + what + " was expected");
        return t;
    }

    static std::string quote(const Token& t) {
        std::string text(t.text.substr(0, 40));
        return t.kind == Token::Kind::String ? "\"" + text + "\"" : "'" + text + "'";
    }

    std::string string(const std::string& what) {
        const Token t = required(what);
        if (t.kind != Token::Kind::String) fail(t.loc, what + " expected (a quoted string), found " + quote(t));
        return std::string(t.text);
    }

    static bool parseDouble(std::string_view text, double& value) {
        if (!text.empty() && text[0] == '+') text.remove_prefix(1);
        if (text.empty() || text[0] == '+') return false;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
    }

    double number(const Token& t, const std::string& what) {
        double value = 0.0;
        if (t.kind != Token::Kind::Word || !parseDouble(t.text, value))
            fail(t.loc, what + ": " + quote(t) + " is not a finite number");
        return value;
    }

    double number(const std::string& what) { return number(required(what), what); }

    glm::dvec3 vec3(const std::string& what) {
        const double x = number(what), y = number(what), z = number(what);
        return glm::dvec3(x, y, z);
    }

    // Transform and ConcatTransform: 16 numbers, in brackets (pbrt-v4 requires them; pbrt-v3 did not).
    void matrix(const std::string& what, double m[16]) {
        Token t = required(what);
        const bool bracket = t.kind == Token::Kind::Open;
        for (int i = 0; i < 16; ++i) m[i] = bracket || i > 0 ? number(what) : number(t, what);
        if (bracket) {
            t = required("']'");
            if (t.kind != Token::Kind::Close) fail(t.loc, what + ": ']' expected after 16 numbers, found " + quote(t));
        }
    }

    ParamList params(const std::string& directive) {
        ParamList list;
        Token t;
        while (peek(t) && t.kind == Token::Kind::String) {
            take(t);
            Param p;
            p.loc = t.loc;
            const std::string declaration(t.text);
            std::size_t a = declaration.find_first_not_of(" \t");
            std::size_t b = declaration.find_first_of(" \t", a);
            std::size_t c = declaration.find_first_not_of(" \t", b);
            std::size_t e = declaration.find_first_of(" \t", c);
            if (a == std::string::npos || c == std::string::npos || declaration.find_first_not_of(" \t", e) != std::string::npos)
                fail(t.loc, directive + ": parameter declaration \"" + declaration.substr(0, 60) +
                                "\" is not of the form \"type name\"");
            const std::string written = declaration.substr(a, b - a);
            p.type = v4Type(written);
            p.name = declaration.substr(c, e == std::string::npos ? e : e - c);
            if (p.type != written)
                warnings_.add(t.loc, "parameter type \"" + written + "\" is pbrt-v3's: read as \"" + p.type + "\"");
            const bool known = std::find(std::begin(kTypes), std::end(kTypes), p.type) != std::end(kTypes);
            // The value: one token, or a bracketed list.
            Token v = required("the value of parameter " + p.declaration());
            if (v.kind == Token::Kind::Close) fail(v.loc, "']' without '['");
            if (v.kind == Token::Kind::Open) {
                while (true) {
                    v = required("']' closing the values of " + p.declaration());
                    if (v.kind == Token::Kind::Close) break;
                    if (v.kind == Token::Kind::Open) fail(v.loc, "'[' inside the values of " + p.declaration());
                    if (known) value(p, v);
                }
            } else if (known) {
                value(p, v);
            }
            if (!known) {
                warnings_.add(t.loc, directive + ": parameter " + p.declaration() + " has an unknown type: ignored");
                continue;
            }
            if (p.type == "spectrum" && !p.strings.empty() && (!p.numbers.empty() || p.strings.size() > 1))
                fail(t.loc, "parameter " + p.declaration() + " mixes strings and numbers (a spectrum is one name or wavelength-value pairs)");
            list.params.push_back(std::move(p));
        }
        return list;
    }

    void value(Param& p, const Token& v) {
        const bool quoted = v.kind == Token::Kind::String;
        if (p.type == "bool") {
            if (v.text == "true" || v.text == "false") {
                p.bools.push_back(v.text == "true");
                return;
            }
            fail(v.loc, "parameter " + p.declaration() + ": " + quote(v) + " is not true or false");
        }
        if (p.type == "string" || p.type == "texture" || (p.type == "spectrum" && quoted)) {
            if (!quoted) fail(v.loc, "parameter " + p.declaration() + ": " + quote(v) + " is not a quoted string");
            p.strings.emplace_back(v.text);
            return;
        }
        if (quoted) fail(v.loc, "parameter " + p.declaration() + ": " + quote(v) + " is not a number");
        if (p.type == "integer") {
            std::string_view text = v.text;
            if (!text.empty() && text[0] == '+') text.remove_prefix(1);
            int i = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
            if (ec != std::errc() || end != text.data() + text.size() || text.empty())
                fail(v.loc, "parameter " + p.declaration() + ": " + quote(v) + " is not a 32-bit integer");
            p.ints.push_back(i);
            return;
        }
        const double d = number(v, "parameter " + p.declaration());
        if (std::fabs(d) > 3.4e38) fail(v.loc, "parameter " + p.declaration() + ": " + quote(v) + " is beyond the float range");
        p.numbers.push_back(float(d));
    }

    // Skips an unknown directive's arguments: everything up to the next directive.
    void skipUnknown() {
        Token t;
        while (peek(t) && !(t.kind == Token::Kind::Word && isDirective(t.text))) take(t);
    }

    void include(const Token& at, int depth, bool import) {
        const char* what = import ? "Import" : "Include";
        const std::string name = string(std::string(what) + "'s file name");
        if (depth + 1 > kMaxIncludeDepth)
            fail(at.loc, std::string(what) + " \"" + name + "\": files nested deeper than " + std::to_string(kMaxIncludeDepth));
        if (++inclusions_ > kMaxInclusions)
            fail(at.loc, std::string(what) + " \"" + name + "\": more than " + std::to_string(kMaxInclusions) +
                             " files included in all (each Include and Import counted, every time)");
        const std::filesystem::path file = files_.resolve(name, at.loc, what);
        if (lowercaseExtension(file.string()) == ".gz")
            fail(at.loc, std::string(what) + " '" + name +
                             "' is gzip-compressed, which wavefront does not read: decompress it (gunzip) and name the .pbrt");
        // Read no more than the text budget has left (a file over it is refused before it is read).
        if (parsedBytes_ >= kMaxParsedBytes) fail(at.loc, std::string(what) + " \"" + name + "\": " + textCapMessage());
        const std::uint64_t left = std::min(inputSizeLimit(InputKind::Model), kMaxParsedBytes - parsedBytes_);
        std::string text = files_.read(file, at.loc, what, InputKind::Model, left);
        if (import) builder_.importBegin(at.loc);
        parseFile(file.string(), std::move(text), depth + 1);
        if (import) builder_.importEnd(at.loc);
    }

    // One directive; false at the end of the file.
    bool directive(int depth) {
        Token t;
        if (!take(t)) return false;
        if (t.kind != Token::Kind::Word) fail(t.loc, "a directive was expected, found " + quote(t));
        const std::string name(t.text);
        const FileLoc loc = t.loc;
        SceneBuilder& b = builder_;
        // Directives with a type name and parameters.
        auto typed = [&](const char* what) {
            const std::string type = string(std::string(what) + "'s type");
            return std::make_pair(type, params(std::string(what) + " \"" + type + "\""));
        };
        if (name == "Shape") {
            auto [type, p] = typed("Shape");
            b.shape(type, std::move(p), loc);
        } else if (name == "Material") {
            auto [type, p] = typed("Material");
            b.material(type, std::move(p), loc);
        } else if (name == "MakeNamedMaterial") {
            auto [type, p] = typed("MakeNamedMaterial");
            b.makeNamedMaterial(type, std::move(p), loc);
        } else if (name == "NamedMaterial") {
            b.namedMaterial(string("NamedMaterial's name"), loc);
        } else if (name == "Texture") {
            const std::string texture = string("Texture's name");
            const std::string kind = string("Texture's type (float or spectrum)");
            auto [type, p] = typed("Texture");
            b.texture(texture, kind, type, std::move(p), loc);
        } else if (name == "LightSource") {
            auto [type, p] = typed("LightSource");
            b.lightSource(type, std::move(p), loc);
        } else if (name == "AreaLightSource") {
            auto [type, p] = typed("AreaLightSource");
            b.areaLightSource(type, std::move(p), loc);
        } else if (name == "Camera") {
            auto [type, p] = typed("Camera");
            b.camera(type, std::move(p), loc);
        } else if (name == "Film" || name == "Sampler" || name == "Integrator" || name == "PixelFilter" || name == "Accelerator") {
            auto [type, p] = typed(name.c_str());
            b.option(name, type, std::move(p), loc);
        } else if (name == "MakeNamedMedium") {
            auto [medium, p] = typed("MakeNamedMedium");
            b.makeNamedMedium(medium, std::move(p), loc);
        } else if (name == "Attribute") {
            auto [target, p] = typed("Attribute");
            b.attribute(target, std::move(p), loc);
        } else if (name == "AttributeBegin" || name == "TransformBegin") {
            b.attributeBegin(loc);
        } else if (name == "AttributeEnd" || name == "TransformEnd") {
            b.attributeEnd(loc);
        } else if (name == "Translate") {
            b.translate(vec3("Translate"));
        } else if (name == "Scale") {
            b.scale(vec3("Scale"));
        } else if (name == "Rotate") {
            const double angle = number("Rotate");
            b.rotate(angle, vec3("Rotate"), loc);
        } else if (name == "LookAt") {
            const glm::dvec3 eye = vec3("LookAt"), look = vec3("LookAt"), up = vec3("LookAt");
            b.lookAt(eye, look, up, loc);
        } else if (name == "Transform" || name == "ConcatTransform") {
            double m[16];
            matrix(name, m);
            b.transform(m, name == "ConcatTransform");
        } else if (name == "Identity") {
            b.identity();
        } else if (name == "CoordinateSystem") {
            b.coordinateSystem(string("CoordinateSystem's name"));
        } else if (name == "CoordSysTransform") {
            b.coordSysTransform(string("CoordSysTransform's name"), loc);
        } else if (name == "ActiveTransform") {
            const Token which = required("ActiveTransform's All, StartTime or EndTime");
            b.activeTransform(std::string(which.text), which.loc);
        } else if (name == "TransformTimes") {
            const double start = number("TransformTimes"), end = number("TransformTimes");
            b.transformTimes(start, end, loc);
        } else if (name == "ReverseOrientation") {
            b.reverseOrientation();
        } else if (name == "ColorSpace") {
            b.colorSpace(string("ColorSpace's name"), loc);
        } else if (name == "Option") {
            const std::string option = string("Option's name");
            const Token v = required("Option's value");
            b.renderOption(option, std::string(v.text), loc);
        } else if (name == "WorldBegin") {
            b.worldBegin(loc);
        } else if (name == "WorldEnd") {
            warnings_.add(loc, "WorldEnd is pbrt-v3's (pbrt-v4 files end without it): ignored");
        } else if (name == "ObjectBegin") {
            b.objectBegin(string("ObjectBegin's name"), loc);
        } else if (name == "ObjectEnd") {
            b.objectEnd(loc);
        } else if (name == "ObjectInstance") {
            b.objectInstance(string("ObjectInstance's name"), loc);
        } else if (name == "MediumInterface") {
            const std::string inside = string("MediumInterface's inside medium");
            std::string outside = inside;  // one name: both sides
            Token next;
            if (peek(next) && next.kind == Token::Kind::String) outside = string("MediumInterface's outside medium");
            b.mediumInterface(inside, outside, loc);
        } else if (name == "Include" || name == "Import") {
            include(t, depth, name == "Import");
        } else {
            double ignored = 0.0;
            if (parseDouble(name, ignored)) fail(loc, "a directive was expected, found the number '" + name.substr(0, 40) + "'");
            warnings_.add(loc, "unknown directive '" + name.substr(0, 60) + "': skipped up to the next directive");
            skipUnknown();
        }
        return true;
    }

    const FileResolver& files_;
    SceneBuilder& builder_;
    Description& d_;
    Warnings& warnings_;
    Source* source_ = nullptr;
    std::uint64_t parsedBytes_ = 0;
    std::uint64_t inclusions_ = 0;
    FileLoc end_;
};

}  // namespace

void parseScene(const std::string& path, const FileResolver& files, SceneBuilder& builder, Description& description,
                Warnings& warnings) {
    Parser parser(files, builder, description, warnings);
    std::string text = readInputFile(path, InputKind::Model);
    parser.parseFile(path, std::move(text), 0);
    builder.endOfFiles(parser.end());
}

}  // namespace wavefront::pbrt
