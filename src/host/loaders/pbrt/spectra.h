// Spectra to RGB, the one place where pbrt-v4's spectral values become the linear sRGB values
// wavefront renders with: "rgb" values as they are, "blackbody" temperatures, tabulated
// spectra (inline wavelength-value pairs, .spd files) and pbrt's named spectra (metal eta and k,
// glasses, standard illuminants).
//
// A spectrum S becomes XYZ through the CIE 1931 2-degree observer (the analytic fit of Wyman,
// Sloan and Shirley 2013), then linear sRGB:
//   - reflectances and other unitless values (SpectrumUse::Albedo, Unbounded: eta, k) under D65,
//     white-balanced so that a constant c gives (c, c, c): RGB = M XYZ(S D65) / M XYZ(D65);
//   - emission (SpectrumUse::Illuminant) normalised to luminance 1, as pbrt-v4 scales every light
//     spectrum to 1 nit, and white-balanced to D65 (pbrt's "rgb L" is rgb x D65, so D65 gives
//     (1, 1, 1)): RGB = (M XYZ(S) / Y(S)) / (M XYZ(D65) / Y(D65)).
// The named spectra were converted with this same rule, from pbrt-v4's tables, by
// scripts/pbrt-named-spectra.py; the table is in spectra.cpp.
#pragma once
#include <functional>
#include <string>

#include <glm/glm.hpp>

#include "host/loaders/pbrt/params.h"

namespace wavefront::pbrt {

class FileResolver;

/// A spectrum given by a function of the wavelength in nanometres, integrated over 360-830 nm.
glm::vec3 spectrumToRgb(const std::function<double(double)>& spectrum, SpectrumUse use);
/// A blackbody at `kelvin` (Planck's law) as emission of luminance 1.
glm::vec3 blackbodyRgb(double kelvin);
/// A named pbrt-v4 spectrum ("metal-Cu-eta", "glass-BK7", "stdillum-D65", ...) converted for
/// `use`; false when the name is not one of them.
bool namedSpectrumRgb(const std::string& name, SpectrumUse use, glm::vec3& rgb);

/// The value of a spectrum-valued parameter: "rgb" as written (clamped to [0, 1] for albedos),
/// "blackbody" (one temperature; pbrt-v3's second value, a scale, multiplies it), "spectrum"
/// (wavelength-value pairs, a named spectrum, or an .spd file of pairs resolved through `files`),
/// or "float" (a grey value). Throws InputError, naming the parameter, for any other type, a
/// malformed spectrum or an unreadable file.
glm::vec3 spectrumParam(const Param& p, SpectrumUse use, const FileResolver& files);

}  // namespace wavefront::pbrt
