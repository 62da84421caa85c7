// Errors thrown by wavefront. The library never calls exit(): every failure is an exception.
#pragma once
#include "config.h"
#include <stdexcept>
#include <string>

namespace wavefront {

/// `text` safe to print on a terminal or in a log line: control characters (C0, DEL and C1) and
/// bytes that are not UTF-8 are escaped (`\n`, `\t`, `\x1b`, `\u009b`), so that a file name or file
/// content quoted in a message cannot clear the screen or break the message over lines. Every
/// error the library throws and every loader warning passes through it.
WAVEFRONT_API std::string printable(const std::string& text);

/// Base class of every error the library throws. The message is stored printable().
class WAVEFRONT_API Error : public std::runtime_error {
public:
    explicit Error(const std::string& message);
};

/// Bad input from the caller: a missing or malformed file, an invalid scene, a bad option,
/// a request the device cannot hold. The CLI maps it to exit code 2.
class WAVEFRONT_API InputError : public Error {
public:
    explicit InputError(const std::string& message) : Error(message) {}
};

/// A failed CUDA runtime call or kernel launch, with the place it happened.
class WAVEFRONT_API CudaError : public Error {
public:
    CudaError(const std::string& message, const char* file, int line, const char* expression, int code);
    const char* file() const { return file_; }
    int line() const { return line_; }
    const std::string& expression() const { return expression_; }
    /// The cudaError_t value, as an int so that this header needs no CUDA include.
    int code() const { return code_; }

private:
    const char* file_;
    int line_;
    std::string expression_;
    int code_;
};

}  // namespace wavefront
