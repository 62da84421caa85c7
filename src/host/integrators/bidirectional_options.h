// The options BDPT and the Metropolis integrators on it share (BidirectionalOptions), as rows of
// their registry tables: one definition for every integrator that runs the connect phase.
#pragma once
#include <vector>

#include "host/integrators/registry.h"
#include "wavefront/error.h"

namespace wavefront {

/// The shared options of the block `Block RenderOptions::*kBlock` (options.bdpt, options.mlt).
template <class Block, Block RenderOptions::*kBlock>
std::vector<OptionSpec> bidirectionalOptions() {
    return {
        {"connect-threshold", "--connect-threshold",
         "fraction of complete samples that starts a connect phase (BDPT 0.6, MLT 1 by default)",
         [](RenderOptions& o, const std::string& v) { (o.*kBlock).connectThreshold = options::parseFloat("connect threshold", v); },
         [](const RenderOptions& o) { return options::number((o.*kBlock).connectThresholdOrDefault()); }},
        {"camera-connections", "--camera-connections", "connect light vertices to the camera (t = 1): on or off",
         [](RenderOptions& o, const std::string& v) {
             (o.*kBlock).cameraConnections = options::parseOnOff("--camera-connections", v);
         },
         [](const RenderOptions& o) { return options::onOff((o.*kBlock).cameraConnections); }},
        {"coalesced-writes", "",
         "write new path vertices through a warp transpose (CUDA): on or off (kept to measure the difference)",
         [](RenderOptions& o, const std::string& v) {
             (o.*kBlock).coalescedVertexWrites = options::parseOnOff("coalesced writes", v);
         },
         [](const RenderOptions& o) { return options::onOff((o.*kBlock).coalescedVertexWrites); }},
    };
}

/// The shared rules: a connect threshold in (0, 1].
template <class Block>
void validateBidirectional(const Block& block) {
    if (block.connectThreshold && !(*block.connectThreshold > 0.0f && *block.connectThreshold <= 1.0f))
        throw InputError("connect threshold must be in (0, 1]");
}

}  // namespace wavefront
