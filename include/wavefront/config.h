// The export macro of the public API. Device code's qualifiers (WF_CPU_GPU and the like) live with
// the kernels, in src/kernels/core/device.h: the public headers never need them.
#pragma once

/// The public API: what libwavefront.so exports (everything else is built with hidden visibility).
#if defined(_WIN32)
#define WAVEFRONT_API
#else
#define WAVEFRONT_API __attribute__((visibility("default")))
#endif
