#!/usr/bin/env python3
"""Checks the README's counts of the corpus against the corpus files.

The README says how many lines (and, for the held-out set, sources) each set holds; the
files are the truth. Usage: readme_corpus_counts.py README REPO_ROOT
"""
import os
import re
import sys

DEVELOPMENT = ["tests/data/corpus/frameworks.tsv", "tests/data/corpus/kernel.tsv",
               "tests/data/corpus/families.tsv", "tests/data/real-log-lines.tsv"]
HELD_OUT = "tests/data/corpus/heldout.tsv"
COLLECTED = "tests/data/corpus/collected.tsv"


def rows(path):
    """Data rows (header skipped) and their distinct source URLs."""
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n")[1:] if l.strip()]
    header = open(path, encoding="utf-8").readline().rstrip("\n").split("\t")
    url = header.index("source_url") if "source_url" in header else None
    sources = {l.split("\t")[url] for l in lines} if url is not None else set()
    return len(lines), sources


def main():
    readme, root = sys.argv[1], sys.argv[2]
    text = open(readme, encoding="utf-8").read()
    dev = sum(rows(os.path.join(root, p))[0] for p in DEVELOPMENT)
    held, held_sources = rows(os.path.join(root, HELD_OUT))
    collected, collected_sources = rows(os.path.join(root, COLLECTED))
    failures = 0
    m = re.search(r"\*\*development set\*\*, ([\d,]+) lines", text)
    if not m or int(m.group(1).replace(",", "")) != dev:
        print(f"README: the development set is said to hold {m.group(1) if m else '(not found)'} lines; the files hold {dev}")
        failures += 1
    m = re.search(r"\*\*collected set\*\*, ([\d,]+) development lines from ([\d,]+) more sources", text)
    if not m or int(m.group(1).replace(",", "")) != collected or int(m.group(2).replace(",", "")) != len(collected_sources):
        said = f"{m.group(1)} lines from {m.group(2)} sources" if m else "(not found)"
        print(f"README: the collected set is said to hold {said}; collected.tsv holds {collected} lines from {len(collected_sources)} sources")
        failures += 1
    m = re.search(r"\*\*held-out set\*\*, ([\d,]+) lines from ([\d,]+) sources", text)
    if not m or int(m.group(1).replace(",", "")) != held or int(m.group(2).replace(",", "")) != len(held_sources):
        said = f"{m.group(1)} lines from {m.group(2)} sources" if m else "(not found)"
        print(f"README: the held-out set is said to hold {said}; heldout.tsv holds {held} lines from {len(held_sources)} sources")
        failures += 1
    if not failures:
        print(f"README's corpus counts match the files: development {dev} lines, held-out {held} lines from {len(held_sources)} sources")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
