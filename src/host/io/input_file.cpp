// Reading input files: POSIX open/fstat/read, so that the file checked is the file read (no
// stat-then-open race on the type) and a FIFO cannot block the open.
#include "host/io/input_file.h"

#include <zlib.h>

#include <wavefront/error.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace wavefront {

namespace fs = std::filesystem;

namespace {

const char* kindName(InputKind kind) {
    switch (kind) {
    case InputKind::Obj: return "OBJ file";
    case InputKind::Mtl: return "material library";
    case InputKind::Image: return "image file";
    case InputKind::Model: return "scene file";
    case InputKind::ModelData: return "referenced file";
    }
    return "file";
}

std::string formatBytes(std::uint64_t bytes) {
    char text[32];
    if (bytes >= (1ull << 30))
        std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
    else
        std::snprintf(text, sizeof text, "%llu bytes", (unsigned long long)bytes);
    return text;
}

// Empty for a regular file, otherwise what it is, for the message.
const char* notRegular(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

struct FileDescriptor {
    int fd = -1;
    ~FileDescriptor() {
        if (fd >= 0) ::close(fd);
    }
};

// Whether `full` is `root` or lies below it (both absolute and canonical), element by element.
bool liesWithin(const fs::path& full, const fs::path& root) {
    auto r = root.begin(), f = full.begin();
    for (; r != root.end() && !r->empty(); ++r, ++f)
        if (f == full.end() || *r != *f) return false;
    return true;
}

// Where the open file `fd` (opened as `path`) lies, or a refusal when that is outside `root`. The
// kernel's own name of the open file (/proc/self/fd) cannot be changed by renaming links; without
// /proc, the file the name resolves to now must be the one opened (same device and inode).
void checkOpenFileWithin(int fd, const fs::path& path, const fs::path& root, const std::string& what) {
    std::error_code ec;
    fs::path real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    if (ec) {
        real = fs::weakly_canonical(fs::absolute(path, ec), ec);
        struct stat opened {}, named {};
        if (ec || ::fstat(fd, &opened) != 0 || ::stat(real.c_str(), &named) != 0 || opened.st_dev != named.st_dev ||
            opened.st_ino != named.st_ino)
            throw InputError("cannot read " + what + ": it changed while it was opened (a link swapped?)");
    }
    if (!liesWithin(real, root))
        throw InputError("cannot read " + what + ": the file opened is '" + real.string() + "', outside '" + root.string() +
                         "' (a link changed after the name was checked?)");
}

}  // namespace

fs::path confinementRoot(const fs::path& referrer, bool allowExternal) {
    if (allowExternal) return {};
    const fs::path folder = referrer.parent_path().empty() ? fs::path(".") : referrer.parent_path();
    std::error_code ec;
    fs::path root = fs::weakly_canonical(fs::absolute(folder, ec), ec);
    if (ec) throw InputError("the folder '" + folder.string() + "' cannot be resolved: " + ec.message());
    return root;
}

std::uint64_t inputSizeLimit(InputKind kind) {
    switch (kind) {
    case InputKind::Obj: return 2ull << 30;
    case InputKind::Mtl: return 256ull << 20;
    case InputKind::Image: return 1ull << 30;
    case InputKind::Model: return 2ull << 30;
    case InputKind::ModelData: return 2ull << 30;
    }
    return 1ull << 30;
}

std::string specialFileKind(const fs::path& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? notRegular(st.st_mode) : "";
}

std::string readInputFile(const fs::path& path, InputKind kind, std::uint64_t limit, const fs::path& within) {
    if (limit == 0) limit = inputSizeLimit(kind);
    const std::string what = std::string(kindName(kind)) + " '" + path.string() + "'";
    // Refuse special files before opening them: opening a device can have effects of its own.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError("cannot open " + what + ": " + std::strerror(errno));
    if (*notRegular(st.st_mode))
        throw InputError("cannot read " + what + ": it is " + notRegular(st.st_mode) + ", not a regular file");
    // O_NONBLOCK: should the path have become a FIFO since, the open still returns.
    FileDescriptor file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (file.fd < 0)
        throw InputError("cannot open " + what + ": " + std::strerror(errno));
    if (::fstat(file.fd, &st) != 0)
        throw InputError("cannot read " + what + ": " + std::strerror(errno));
    if (*notRegular(st.st_mode))
        throw InputError("cannot read " + what + ": it is " + notRegular(st.st_mode) + ", not a regular file");
    if (!within.empty()) checkOpenFileWithin(file.fd, path, within, what);
    const auto tooLarge = [&](const char* how) {
        return InputError(what + " " + how + " the size limit of " + formatBytes(limit) + " for its kind");
    };
    if (std::uint64_t(st.st_size) > limit)
        throw tooLarge(("is " + formatBytes(std::uint64_t(st.st_size)) + ", over").c_str());

    // Read to the end, but never past the limit: a file that grows meanwhile is refused.
    std::string bytes;
    bytes.resize(std::size_t(st.st_size) + 1);
    std::size_t size = 0;
    for (;;) {
        if (size == bytes.size())
            bytes.resize(std::size_t(std::min<std::uint64_t>(limit + 1, std::uint64_t(bytes.size()) * 2 + 4096)));
        const ssize_t got = ::read(file.fd, &bytes[size], bytes.size() - size);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw InputError("cannot read " + what + ": " + std::strerror(errno));
        }
        if (got == 0) break;
        size += std::size_t(got);
        if (size > limit)
            throw tooLarge("grew past");
    }
    bytes.resize(size);
    return bytes;
}

fs::path resolveReferencedFile(const fs::path& referrer, const std::string& name, bool allowExternal) {
    const fs::path written(name);
    const fs::path folder = referrer.parent_path().empty() ? fs::path(".") : referrer.parent_path();
    const fs::path candidate = written.is_absolute() || referrer.parent_path().empty() ? written : folder / written;
    if (allowExternal) return candidate;
    const std::string refused = "'" + name + "' ";
    const std::string rule = "; files it references must lie in its folder (allow others with allowExternalFiles, "
                             "--allow-external-files)";
    if (written.is_absolute())
        throw InputError(refused + "is an absolute path" + rule);
    // Symbolic links resolved on both sides, then compared element by element.
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(fs::absolute(folder, ec), ec);
    if (ec) throw InputError(refused + "cannot be resolved: " + ec.message());
    const fs::path full = fs::weakly_canonical(fs::absolute(folder / written, ec), ec);
    if (ec) throw InputError(refused + "cannot be resolved: " + ec.message());
    if (!liesWithin(full, root))
        throw InputError(refused + "resolves to '" + full.string() + "', outside '" + root.string() + "'" + rule);
    return candidate;
}

std::string textOfFile(std::string bytes, const std::string& what) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (bytes.size() >= 2 && ((byte(0) == 0xfe && byte(1) == 0xff) || (byte(0) == 0xff && byte(1) == 0xfe))) {
        const bool bigEndian = byte(0) == 0xfe;
        const auto unit = [&](std::size_t i) {
            return bigEndian ? unsigned(byte(i)) << 8 | byte(i + 1) : unsigned(byte(i + 1)) << 8 | byte(i);
        };
        std::string utf8;
        utf8.reserve(bytes.size() / 2);
        for (std::size_t i = 2; i + 1 < bytes.size(); i += 2) {
            unsigned c = unit(i);
            if (c >= 0xd800 && c < 0xdc00 && i + 3 < bytes.size() && unit(i + 2) >= 0xdc00 && unit(i + 2) < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (unit(i + 2) - 0xdc00);
                i += 2;
            } else if (c >= 0xd800 && c < 0xe000) {
                c = 0xfffd;  // an unpaired surrogate
            }
            if (c < 0x80) {
                utf8 += char(c);
            } else if (c < 0x800) {
                utf8 += char(0xc0 | c >> 6);
                utf8 += char(0x80 | (c & 0x3f));
            } else if (c < 0x10000) {
                utf8 += char(0xe0 | c >> 12);
                utf8 += char(0x80 | ((c >> 6) & 0x3f));
                utf8 += char(0x80 | (c & 0x3f));
            } else {
                utf8 += char(0xf0 | c >> 18);
                utf8 += char(0x80 | ((c >> 12) & 0x3f));
                utf8 += char(0x80 | ((c >> 6) & 0x3f));
                utf8 += char(0x80 | (c & 0x3f));
            }
        }
        bytes.swap(utf8);
    } else if (bytes.compare(0, 3, "\xef\xbb\xbf") == 0) {
        bytes.erase(0, 3);
    }
    const std::size_t nul = bytes.find('\0');
    if (nul != std::string::npos)
        throw InputError(what + " holds a NUL byte at offset " + std::to_string(nul) + ": it is not a text file");
    return bytes;
}

std::string lowercaseExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

std::string oneLine(const std::string& message) {
    std::string out;
    std::size_t start = 0;
    while (start < message.size()) {
        std::size_t end = message.find_first_of("\r\n", start);
        if (end == std::string::npos) end = message.size();
        std::size_t first = message.find_first_not_of(" \t", start);
        std::size_t last = message.find_last_not_of(" \t", end == 0 ? 0 : end - 1);
        if (first < end && last != std::string::npos && last >= first) {
            if (!out.empty()) out += "; ";
            out.append(message, first, last - first + 1);
        }
        start = end + 1;
    }
    return out;
}

bool isGzip(const std::string& bytes) {
    return bytes.size() >= 2 && std::uint8_t(bytes[0]) == 0x1f && std::uint8_t(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, std::uint64_t limit, const std::string& what) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw InputError(what + ": zlib could not start");
    std::string out;
    char chunk[1 << 16];
    std::size_t offset = 0;
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        if (z.avail_in == 0 && offset < bytes.size()) {  // zlib counts in 32-bit pieces
            const std::size_t piece = std::min<std::size_t>(bytes.size() - offset, 1u << 30);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
            z.avail_in = uInt(piece);
            offset += piece;
        }
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        status = inflate(&z, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END) {
            inflateEnd(&z);
            throw InputError(what + ": the gzip stream is corrupt or truncated (" + (z.msg ? z.msg : "zlib error") + ")");
        }
        const std::size_t produced = sizeof chunk - z.avail_out;
        if (out.size() + produced > limit) {
            inflateEnd(&z);
            throw InputError(what + ": unpacks to more than " + std::to_string(limit >> 20) +
                             " MiB, the cap of such a file (a decompression bomb?)");
        }
        out.append(chunk, produced);
        if (produced == 0 && z.avail_in == 0 && offset >= bytes.size() && status != Z_STREAM_END) {
            inflateEnd(&z);
            throw InputError(what + ": the gzip stream is truncated");
        }
    }
    inflateEnd(&z);
    return out;
}

}  // namespace wavefront
