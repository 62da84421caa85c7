#include "wavefront/error.h"

namespace wavefront {

CudaError::CudaError(const std::string& message, const char* file, int line, const char* expression, int code)
    : Error(message), file_(file), line_(line), expression_(expression), code_(code) {}

}  // namespace wavefront
