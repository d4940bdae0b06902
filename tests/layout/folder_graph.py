#!/usr/bin/env python3
"""The graph of which folders of src/ include which, checked and drawn.

Each folder of src/ is a component; a file's `#include "other/x.h"` is an edge from its
folder to `other`.
  folder_graph.py SRC_DIR                 fails when the folders include each other in a
                                          cycle (the layers only hold without one, which a
                                          file's name cannot show), printing the files
                                          that close it
  folder_graph.py SRC_DIR --mermaid       prints the graph as a Mermaid flowchart (each
                                          folder with the folders it uses directly, less
                                          what those already reach)
  folder_graph.py SRC_DIR --check-doc MD  fails unless MD holds that flowchart as it is
                                          today (docs/architecture.md's picture)
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


def reduced(edges):
    """Edges less those implied by a longer path (transitive reduction of an acyclic graph)."""
    def reach(v, seen):
        for w in edges.get(v, {}):
            if w not in seen:
                seen.add(w)
                reach(w, seen)
        return seen

    out = {}
    for v in edges:
        direct = set(edges[v])
        implied = set()
        for w in direct:
            implied |= reach(w, set())
        out[v] = sorted(direct - implied)
    return out


def mermaid(edges):
    lines = ["```mermaid", "flowchart BT"]
    for v, targets in sorted(reduced(edges).items()):
        for w in targets:
            lines.append(f"  {v} --> {w}")
    lines.append("```")
    return "\n".join(lines)


def main():
    src = sys.argv[1]
    edges = edges_of(src)
    if len(sys.argv) > 2 and sys.argv[2] == "--mermaid":
        print(mermaid(edges))
        return 0
    if len(sys.argv) > 3 and sys.argv[2] == "--check-doc":
        with open(sys.argv[3], encoding="utf-8") as f:
            if mermaid(edges) in f.read():
                print(f"{sys.argv[3]}: its picture of src/ is current")
                return 0
        print(f"{sys.argv[3]}: its picture of src/ is out of date; run\n  {sys.argv[0]} {src} --mermaid\nand put the output in its place")
        return 1
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
