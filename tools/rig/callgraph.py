#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the module's files depend on each other one way only.

    callgraph.py [--dot] DIR

DIR holds the module's built objects (module/*.o of a build). An edge
A -> B means A.o refers to a symbol that B.o defines: a call, or data such
as a table an inline function of internal.h reads. The graph must have no
cycle: every file may use only files below it. Prints the files in that
order, each with what it uses, and any cycle; exits 1 on a cycle.
"""
import glob
import os
import subprocess
import sys

NM = os.environ.get('NM', 'aarch64-linux-gnu-nm')


def symbols(obj):
    out = subprocess.run([NM, obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            used.add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRGSVWtdbr':
            # Local symbols (lower case) never link across files.
            if f[1].isupper():
                defined.add(f[2])
    return defined, used


def main(argv):
    dot = '--dot' in argv
    args = [a for a in argv[1:] if a != '--dot']
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    objs = sorted(o for o in glob.glob(os.path.join(args[0], '*.o'))
                  if not o.endswith('.mod.o') and
                  os.path.basename(o) != 'kmemprof.o')
    names = {o: os.path.basename(o)[:-2] for o in objs}
    owner, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        for s in d:
            owner[s] = names[o]
        uses[names[o]] = u
    edges = {n: sorted({owner[s] for s in u if s in owner} - {n})
             for n, u in uses.items()}
    if dot:
        print('digraph kmemprof {')
        for a, bs in sorted(edges.items()):
            for b in bs:
                print('  "%s" -> "%s";' % (a, b))
        print('}')
        return 0
    # Topological order, leaves first (Kahn); what is left is in cycles.
    order, left = [], dict((n, set(bs)) for n, bs in edges.items())
    while True:
        ready = sorted(n for n, bs in left.items() if not bs)
        if not ready:
            break
        for n in ready:
            order.append(n)
            del left[n]
        for bs in left.values():
            bs.difference_update(ready)
    for n in order:
        print('%-10s uses %s' % (n, ' '.join(edges[n]) or '(nothing)'))
    if left:
        print('cycle among: %s' % ' '.join(sorted(left)))
        for n in sorted(left):
            print('  %s -> %s' % (n, ' '.join(sorted(left[n]))))
        return 1
    print('no cycle: %d files' % len(order))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
