"""RenderOptions.crop from Python (issue 38, item 4): the image is the window's size and equals that
window of the full frame's image (PT: the same samples); bad windows raise."""
import numpy as np
import pytest

import wavefront as wf


def options():
    o = wf.RenderOptions()
    o.backend = wf.Backend.Cpu
    o.width, o.height, o.samplesPerPixel = 24, 16, 2
    o.cpuThreads = 2
    return o


def test_crop_is_the_window_of_the_full_frame():
    scene = wf.Scene.builtin("cornell-box")
    full = wf.Renderer(scene, options())
    full.render()
    o = options()
    o.crop = (5, 3, 17, 11)
    assert o.crop == (5, 3, 17, 11) and o.filmWidth() == 12 and o.filmHeight() == 8
    r = wf.Renderer(scene, o)
    r.render()
    window = np.asarray(full.image())[3:11, 5:17]
    img = np.asarray(r.image())
    assert img.shape == window.shape
    assert np.allclose(img, window, rtol=1e-5, atol=1e-6)
    o.crop = None
    assert o.crop is None


@pytest.mark.parametrize("crop", [(0, 0, 0, 4), (3, 2, 1, 5), (0, 0, 25, 4), (-1, 0, 4, 4)])
def test_bad_crop_raises(crop):
    o = options()
    o.crop = crop
    with pytest.raises(wf.InputError, match="crop window"):
        o.validate()
