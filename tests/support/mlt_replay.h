// Internal entry point for tests: an MLT render followed by the replay check, on a chosen backend.
#pragma once
#include "host/integrators/mlt_driver.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// Renders `scene` with MLT (options.samplesPerPixel x pixels mutations on
/// options.streamCapacity chains), then rebuilds every chain's current sample from its stored
/// primary samples alone and reports its I and vertex counts next to the stored ones.
MltReplay renderMltAndReplay(Backend backend, const Scene& scene, const RenderOptions& options);

}  // namespace wavefront
