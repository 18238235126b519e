"""What the study reports (experiments/*/report.py) share: generated text spliced into a page
between two marker lines, written atomically, the Debian Python packages a report needs, and
which bootstrap a comparison file came from.

Only the Python standard library. A report imports it with
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "common"))
    import page
"""
import argparse
import os
import pathlib
import sys


def splice(path, begin, end, text):
    """Replaces what stands between the lines BEGIN and END of the page PATH with TEXT; a page
    without both markers is refused (exit 1 with one line naming them) and left as it was."""
    page = pathlib.Path(path).read_text(encoding="utf-8")
    if begin not in page or end not in page:
        sys.exit(f"{path}: lacks the marker lines {begin!r} and {end!r}")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    pathlib.Path(f"{path}.tmp").write_text(f"{head}{begin}\n{text}\n{end}{tail}", encoding="utf-8")
    os.replace(f"{path}.tmp", path)


def runs_rescaled(path):
    """Whether the comparison file PATH (heed-score / heed-align --system's TSV) comes from a
    build that rescales the drawn runs by √(n/(n−1)) (lib/heed/eval/multi_run.h): its method
    line says so. False for an older file, whose intervals' seed part is (n−1)/n too small."""
    with open(path, encoding="utf-8") as f:
        method = [line for line in f if line.startswith("# hierarchical bootstrap")]
    return bool(method) and "sqrt(n/(n-1))" in method[0]


def missing_packages(packages):
    """The Debian packages of PACKAGES ({module: package}) whose module does not import."""
    missing = []
    for module, package in packages.items():
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    return missing


def check_packages(packages, program):
    """69 after one line naming the missing packages (and how to install them), else 0."""
    missing = missing_packages(packages)
    if not missing:
        return 0
    print(f"{program}: needs the Debian package{'s' * (len(missing) > 1)} "
          f"{' and '.join(missing)} (apt-get install {' '.join(missing)}; "
          f"run it with /usr/bin/python3)", file=sys.stderr)
    return 69


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, but a usage error exits 64 (EX_USAGE) after one line naming it, as the
    heed tools do, not argparse's 2 after the usage text."""

    def error(self, message):
        self.exit(64, f"{self.prog}: {message} (see --help)\n")
