#!/usr/bin/env python3
"""Fails when the folders of src/ include each other in a cycle.

Each folder of src/ is a component; a file's `#include "other/x.h"` is an edge from its
folder to `other`. The layers (README's Layout) only hold if that graph has no cycle, which
a file's name cannot show: this prints each cycle with the files that close it.
Usage: folder_cycles.py SRC_DIR
"""
import os
import re
import sys
from collections import defaultdict

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def edges_of(src):
    edges = defaultdict(lambda: defaultdict(list))
    for folder, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, src)
            if os.sep not in rel:
                continue
            owner = rel.split(os.sep)[0]
            with open(path, encoding="utf-8", errors="replace") as f:
                for inc in INCLUDE.findall(f.read()):
                    target = inc.split("/")[0]
                    if "/" in inc and target != owner and os.path.isdir(os.path.join(src, target)):
                        edges[owner][target].append(rel)
    return edges


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1]
    edges = edges_of(src)
    if not edges:
        print(f"no includes between folders found under {src}")
        return 1
    found = cycles(edges)
    for component in found:
        print("folders that include each other: " + ", ".join(component))
        for a in component:
            for b in component:
                for f in edges[a].get(b, [])[:3]:
                    print(f"  {a} -> {b}: {f}")
    if not found:
        print(f"{sum(len(t) for t in edges.values())} folder dependencies among {len(edges)} folders, no cycle")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
