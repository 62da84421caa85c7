// Catch2 checks over the statistics of test_support.h, for the tests that compare estimators.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "test_support.h"

namespace wftest {

/// Two sets of independent renders (renderSeedStats) estimate one image: at least `minPass` of the
/// pixel-channels pass Welch's t-test, every 8 x 8 block's mean within 6 standard errors, and the
/// image means within 4.5 (their variance from the renders' image means: MLT's normalisation
/// correlates a render's pixels). `what` names the pair in the report.
inline void checkSameImage(const std::string& what, const SeedStats& a, const SeedStats& b, double minPass = 0.99) {
    const PixelTest pixels = pixelTest(a.pixels, b.pixels);
    const double blocks = maxZScore(a.blocks, b.blocks), z = imageMeanZScore(a.blocks, b.blocks);
    const auto [ma, va] = imageMeanAndVariance(a.blocks);
    const auto [mb, vb] = imageMeanAndVariance(b.blocks);
    INFO(what << ": per-pixel pass " << pixels.passFraction() << " of " << pixels.tested << ", worst p " << pixels.worstP
              << "; worst block z " << blocks << "; image means " << ma << " +- " << std::sqrt(va) << " and " << mb
              << " +- " << std::sqrt(vb) << ", z " << z);
    CHECK(pixels.passFraction() >= minPass);
    CHECK(blocks < 6.0);
    CHECK(z < 4.5);
}

/// A Metropolis render (MLT or MMLT) against BDPT at 256 samples per pixel, 16 independent renders
/// a side: every pixel passes a Welch test (Sidak-corrected over the image, alpha 0.01), and the
/// image means agree within 4.5 standard errors.
inline void checkChainsAgainstBdpt(const char* sceneName, const wavefront::RenderOptions& chains, unsigned seedBase) {
    const wavefront::Scene scene = wavefront::Scene::builtin(sceneName);
    wavefront::RenderOptions bdpt = bdptLike(chains);
    bdpt.samplesPerPixel = 256;
    const int seeds = 16;
    const SeedStats ref = renderSeedStats(scene, bdpt, seeds, 4, seedBase);
    const SeedStats m = renderSeedStats(scene, chains, seeds, 4, seedBase + 100000);
    const PixelTest pixels = pixelTest(m.pixels, ref.pixels);
    const wavefront::MltOptions& block = chains.integrator == wavefront::IntegratorType::Mmlt ? chains.mmlt : chains.mlt;
    INFO(wavefront::toString(chains.integrator) << " on " << sceneName << ", " << chains.streamCapacity << " chains, "
                                                << chains.samplesPerPixel << " mutations per pixel, camera connections "
                                                << block.cameraConnections << ", relative importance "
                                                << block.relativeImportance << ": per-pixel failures " << pixels.failed
                                                << " of " << pixels.tested << ", worst p " << pixels.worstP);
    CHECK(pixels.tested > 300);
    CHECK(pixels.failed == 0);
    CHECK(imageMeanZScore(m.blocks, ref.blocks) < 4.5);
}

}  // namespace wftest
