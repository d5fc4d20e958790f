#!/usr/bin/env python3
"""Prints the package cycles (strongly connected components) among dev.weft packages in sdk-api's classes.

Usage: mvn -q -B -pl sdk-api -am -DskipTests package && python3 sdk-api/dev/package-cycles.py
Exit 1 when a cycle exists. Reads `jdeps -verbose:package`; the ArchUnit test enforces the same in the suite.
"""
import re, subprocess, sys
from collections import defaultdict

classes = sys.argv[1] if len(sys.argv) > 1 else "sdk-api/target/classes"
out = subprocess.run(["jdeps", "-verbose:package", "-e", r"dev\.weft.*", classes],
                     capture_output=True, text=True, check=True).stdout
edges = defaultdict(set)
for m in re.finditer(r"^\s+(dev\.weft[\w.]*)\s+->\s+(dev\.weft[\w.]*)", out, re.M):
    a, b = m.group(1), m.group(2)
    if a != b:
        edges[a].add(b)
nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})

index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in nodes:
    if v not in index: visit(v)
for comp in sccs:
    print("cycle (%d packages): %s" % (len(comp), ", ".join(p[len("dev.weft."):] or p for p in comp)))
    for a in comp:
        inner = sorted(b for b in edges[a] if b in comp)
        print("   %s -> %s" % (a, ", ".join(inner)))
print("no package cycles among %d dev.weft packages" % len(nodes) if not sccs else "%d cycle(s)" % len(sccs))
sys.exit(1 if sccs else 0)
