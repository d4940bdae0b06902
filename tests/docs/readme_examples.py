#!/usr/bin/env python3
"""Runs every command the README shows and compares what it prints with what the README says.

A README example is a fenced block whose first line is `$ COMMAND`; the lines after it are
the output as the README shows it. In the expected output, a line that is only `...` (any
indentation) stands for any number of lines, and `...` inside a line for any text. The
commands run in a scratch directory where `build/` holds the binaries under test and
`build/demo/` what `make demo` generates (scripts/demo.sh), as a reader who ran `make demo`
would have them.
Usage: readme_examples.py README BUILD_DIR REPO_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile


def examples(readme):
    """(line number, command, expected lines) for each `$ ` block."""
    out, block, start = [], None, 0
    with open(readme, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("```"):
                if block is not None:
                    if block and block[0].startswith("$ "):
                        out.append((start + 1, block[0][2:], block[1:]))
                    block = None
                else:
                    block, start = [], n
            elif block is not None:
                block.append(line)
    return out


def line_pattern(expected):
    parts = expected.split("...")
    return re.compile("^" + ".*".join(re.escape(p) for p in parts) + "$")


def matches(expected, actual):
    """Expected lines (with `...`) against the actual output; '' or the first difference."""
    def walk(i, j):
        if i == len(expected):
            return ""
        if expected[i].strip() == "...":
            for k in range(j, len(actual) + 1):
                if walk(i + 1, k) == "":
                    return ""
            return f"nothing after line {j + 1} of the output matches {expected[i + 1]!r}" if i + 1 < len(expected) else ""
        if j >= len(actual):
            return f"the output ends before {expected[i]!r}"
        if not line_pattern(expected[i]).match(actual[j]):
            return f"output line {j + 1} is\n    {actual[j]!r}\n  where the README shows\n    {expected[i]!r}"
        return walk(i + 1, j + 1)
    return walk(0, 0)


def main():
    readme, build, root = (os.path.abspath(a) for a in sys.argv[1:4])
    found = examples(readme)
    if not found:
        print(f"{readme}: no `$ ` examples found")
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, "build"))
        for name in ("aegis", "aegis-gen", "libnccl-profiler-aegis.so"):
            if os.path.exists(os.path.join(build, name)):
                os.symlink(os.path.join(build, name), os.path.join(scratch, "build", name))
        demo = subprocess.run(["bash", os.path.join(root, "scripts", "demo.sh"), build,
                               os.path.join(scratch, "build", "demo")],
                              capture_output=True, text=True)
        if demo.returncode != 0:
            print("scripts/demo.sh failed:\n" + demo.stdout + demo.stderr)
            return 1
        for line, command, expected in found:
            run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch,
                                 capture_output=True, text=True)
            actual = run.stdout.splitlines()
            why = "exit status %d: %s" % (run.returncode, run.stderr.strip()) if run.returncode else matches(expected, actual)
            print(("ok   " if not why else "FAIL ") + f"README.md:{line}: $ {command}")
            if why:
                failures += 1
                print("  " + why)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
