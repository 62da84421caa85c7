"""wavefront-compare: a tiny report on the CPU, whose HTML must reference files that exist."""
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from wavefront import compare

# 24x16 pixels, passes of one sample per pixel (--stream-capacity 384), a few hundredths of a second each.
TINY = ["--backend", "cpu", "--res", "24x16", "--times", "0.02,0.05", "--stream-capacity", "384"]


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        self.links += [value for name, value in attrs if name in ("src", "href")]


def referenced_files(out):
    parser = Links()
    parser.feed((out / "index.html").read_text())
    return parser.links


def test_a_tiny_report_references_images_and_plots_that_exist(tmp_path):
    out = tmp_path / "report"
    assert compare.main(["cornell-box", *TINY, "--reference-seconds", "0.1", "--out", str(out)]) == 0
    links = referenced_files(out)
    # reference, convergence plot, error scale, and an image and an error map per method and time
    assert len([l for l in links if l.endswith(".png")]) == 3 + 3 * 2 * 2
    for link in links:
        path = out / link
        assert path.is_file() and path.stat().st_size > 0, link
        if link.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", link
    page = (out / "index.html").read_text()
    assert "wavefront-compare cornell-box" in page and "SIMD efficiency" in page and "cpu (" in page
    results = json.loads((out / "results.json").read_text())
    runs = results["scenes"][0]["runs"]
    assert {r["integrator"] for r in runs} == {"PT", "BDPT", "MLT"} and all(r["relativeMse"] > 0 for r in runs)

    # The rendered reference can be given back; its size then sets the images' size.
    again = tmp_path / "again"
    reference = out / "cornell-box" / "reference.exr"
    assert compare.main(["cornell-box", *TINY[:2], *TINY[4:], "--reference", str(reference), "--out", str(again)]) == 0
    assert json.loads((again / "results.json").read_text())["scenes"][0]["width"] == 24
    assert all((again / link).is_file() for link in referenced_files(again))


def test_bad_arguments_fail_with_one_line(tmp_path, capsys):
    assert compare.main(["no-such-scene", *TINY, "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    with pytest.raises(SystemExit) as e:
        compare.main(["cornell-box", "--res", "24by16"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        compare.main(["cornell-box", "cornell-spheres", "--reference", "a.exr"])  # one per scene


def test_pip_installs_the_console_script():
    script = Path(sys.executable).parent / "wavefront-compare"
    if not script.exists():
        pytest.skip(f"no {script}: wavefront is not installed in this interpreter's environment")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    assert "--reference" in result.stdout and "--times" in result.stdout
