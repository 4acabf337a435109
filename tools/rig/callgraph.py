#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the module's files use each other one way only, by layer.

    callgraph.py [--dot] DIR

DIR holds a build of the module: its objects (module/*.o) and the sources
build.sh copied beside them, with include/kmemprof/ at DIR/../include.

A file is a .c file together with its own header, the .h of the same stem
(foo.h belongs to foo.c, include/kmemprof/knobs.h to knobs.c). A header
with no .c of its stem is a base header: it belongs to nobody, and may
hold no other file's data or code. An edge A -> B means one of:

- A.o refers to a symbol that B.o defines (a call, or data such as a
  table an inline function reads): the objects, as the linker sees them;
- a file of A #includes a header of B;
- a header of A names, in an inline function's body or a macro, a symbol
  B.o defines, or an inline function or macro a header of B defines.

Every file has a layer (LAYERS, below) and may use only its own layer's
files and those of the layers below it; a layer marked flat may not use
its own either, and a base header no file's code or data at all. The graph must have no circle. KNOWN lists the edges that
still break the rule, each with what removes it: an edge that breaks it
and is not in KNOWN fails the check, and so does an entry of KNOWN that
no longer is an edge, so that the list only gets shorter. Circles are
counted with KNOWN's edges in and reported; one left without them fails.
Exits 1 on a failure.
"""
import glob
import os
import re
import subprocess
import sys

NM = os.environ.get('NM', 'aarch64-linux-gnu-nm')

# Lowest first: (layer, flat, files). A file is named by its .c's stem, a
# base header by its file name. A base header not named here is in base.
LAYERS = [
    # The types and keys, the options and their clamps, the counters of
    # the module's own work, the clock and the CPUs' clusters, the root
    # of the hot words (kmp_tab), the frame walker; paths.c is make
    # bench's timing of each path (KMP_PATHS builds alone).
    ('base', False, ['internal.h', 'tables', 'compat.h', 'kmemprof.h',
                     'test.h', 'testpoints', 'format.h', 'options',
                     'stat', 'clock', 'topology', 'paths']),
    # Unwinding, and the symbols and names of call sites.
    ('services', False, ['callsite', 'names']),
    # The tables: none of them uses another.
    ('tables', True, ['tags', 'live', 'pfnmap', 'hist', 'stacks',
                       'owners']),
    # The counting of slab, percpu and page events into the tables.
    ('accounting', False, ['account']),
    # NMI deferral: an event in NMI is counted later, through accounting.
    ('nmi', False, ['nmi']),
    # The events: the tracepoint probes and the ftrace hooks.
    ('events', False, ['probes', 'hooks']),
    # Changes of state: the page walk at attach, the knobs.
    ('control', False, ['prior', 'control', 'of', 'knobs']),
    # What a reader sees.
    ('views', False, ['procfs', 'debugfs', 'sysctl', 'fmt', 'oom']),
    ('main', False, ['main']),
    # The KUnit suites' hooks (the test build alone).
    ('test', False, ['testhooks']),
]

# The edges that still break the rule (issue 40), with what removes each.
KNOWN = {}


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


def strip(src):
    """The source without comments, strings and character constants."""
    def blank(m):
        t = m.group(0)
        return '\n' * t.count('\n') + ' ' if t[0] == '/' else '""'
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|'
                  r"'(\\.|[^'\\\n])*'", blank, src, flags=re.S)


IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def header_parts(src):
    """What a header defines (inline functions, macros) and the names its
    code uses: the bodies of its functions and its macros' expansions."""
    text = strip(src).replace('\\\n', ' ')
    defines, uses = set(), set()
    body = []
    for line in text.splitlines():
        m = re.match(r'\s*#\s*define\s+(\w+)(.*)', line)
        if m:
            defines.add(m.group(1))
            rest = m.group(2)
            if rest.startswith('('):
                rest = rest[rest.index(')') + 1:] if ')' in rest else ''
            uses.update(IDENT.findall(rest))
            body.append('')
        elif re.match(r'\s*#', line):
            body.append('')
        else:
            body.append(line)
    text = '\n'.join(body)
    # A function body: a brace at depth 0 that follows a ')', or one of
    # its attributes (notrace, __always_inline, ...) after the ')'.
    depth, start, i = 0, None, 0
    for m in re.finditer(r'[{}]', text):
        if m.group(0) == '{':
            if depth == 0:
                head = text[i:m.start()]
                fn = re.search(r'(\w+)\s*\([^;{}]*\)\s*(\w+\s*)*$', head)
                if fn and re.search(r'\w*inline\b|\bstatic\b', head):
                    defines.add(fn.group(1))
                    start = m.end()
                else:
                    start = None
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                if start is not None:
                    uses.update(IDENT.findall(text[start:m.start()]))
                i = m.end()
    return defines, uses


def includes(src):
    return re.findall(r'^\s*#\s*include\s+[<"](?:kmemprof/)?([\w.]+\.h)[>"]',
                      src, flags=re.M)


def main(argv):
    dot = '--dot' in argv
    args = [a for a in argv[1:] if a != '--dot']
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mod = args[0]
    objs = sorted(o for o in glob.glob(os.path.join(mod, '*.o'))
                  if not o.endswith('.mod.o') and
                  os.path.basename(o) != 'kmemprof.o')
    srcs = sorted(glob.glob(os.path.join(mod, '*.[ch]')) +
                  glob.glob(os.path.join(mod, '..', 'include', 'kmemprof',
                                         '*.h')))
    srcs = [s for s in srcs if not s.endswith('.mod.c')]
    stems = {os.path.basename(s)[:-2] for s in srcs if s.endswith('.c')}

    def node(path):
        b = os.path.basename(path)
        return b[:-2] if b[:-2] in stems else b
    layer, flat = {}, {}
    for i, (name, fl, files) in enumerate(LAYERS):
        for f in files:
            layer[f] = (i, name)
        flat[i] = fl
    edges = {}     # (a, b) -> why
    uses = set()   # the edges that are not #includes alone

    def edge(a, b, why, use=True):
        if a != b:
            edges.setdefault((a, b), why)
            if use:
                uses.add((a, b))
    owner = {}
    for o in objs:
        d, _ = symbols(o)
        for s in d:
            owner[s] = node(o[:-2] + '.c')
    for o in objs:
        _, u = symbols(o)
        for s in sorted(u):
            if s in owner:
                edge(node(o[:-2] + '.c'), owner[s], 'calls or reads ' + s)
    hdefs, huses = {}, {}
    for s in srcs:
        with open(s, errors='replace') as fh:
            text = fh.read()
        for h in includes(text):
            if any(os.path.basename(p) == h for p in srcs):
                edge(node(s), node(h), os.path.basename(s) +
                     ' includes ' + h, False)
        if s.endswith('.h'):
            hdefs[s], huses[s] = header_parts(text)
    hdef = {}
    for s, ds in hdefs.items():
        for d in ds:
            hdef.setdefault(d, node(s))
    for s, us in huses.items():
        a, b = node(s), os.path.basename(s)
        for u in sorted(us - hdefs[s]):
            if u in owner:
                edge(a, owner[u], '%s uses %s' % (b, u))
            elif u in hdef:
                edge(a, hdef[u], '%s uses %s' % (b, u))
    nodes = sorted({n for e in edges for n in e} | {node(s) for s in srcs})
    for n in nodes:
        if n not in layer:
            if n.endswith('.h'):
                layer[n] = (0, LAYERS[0][0])
            else:
                print('%s: in no layer (callgraph.py LAYERS)' % n)
                return 1
    if dot:
        print('digraph kmemprof {')
        for (a, b) in sorted(edges):
            print('  "%s" -> "%s";' % (a, b))
        print('}')
        return 0
    bad = 0
    out = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    for i, (name, fl, _) in enumerate(LAYERS):
        here = [n for n in nodes if layer[n][0] == i]
        if here:
            print('%s%s:' % (name, ' (flat)' if fl else ''))
        for n in here:
            print('  %-12s uses %s' % (n, ' '.join(out[n]) or '(nothing)'))

    def breaks(a, b):
        la, lb = layer[a][0], layer[b][0]
        return lb > la or (lb == la and flat[la]) or \
            (a.endswith('.h') and not b.endswith('.h') and (a, b) in uses)
    for (a, b), why in sorted(edges.items()):
        if not breaks(a, b) or (a, b) in KNOWN:
            continue
        if a.endswith('.h') and layer[b][0] <= layer[a][0]:
            rule = 'a header of no file may hold no file\'s code or data'
        else:
            rule = 'a file may use only its own layer and those below it'
            if layer[a] == layer[b]:
                rule += ', and in a flat layer not its own'
        print('%s (%s) -> %s (%s): %s; %s' % (
            a, layer[a][1], b, layer[b][1], why, rule))
        bad += 1
    for (a, b), fix in sorted(KNOWN.items()):
        if (a, b) not in edges:
            print('KNOWN %s -> %s is no longer an edge: take it out of '
                  'callgraph.py' % (a, b))
            bad += 1
        elif not breaks(a, b):
            print('KNOWN %s -> %s breaks no rule: take it out of '
                  'callgraph.py' % (a, b))
            bad += 1
    circles = sccs(nodes, edges)
    print('circles: %d%s' % (len(circles), ''.join(
        '\n  ' + ' '.join(c) for c in circles)))
    left = sccs(nodes, {e: w for e, w in edges.items() if e not in KNOWN})
    for c in left:
        print('circle without a KNOWN edge: %s' % ' '.join(c))
        for (a, b), why in sorted(edges.items()):
            if a in c and b in c:
                print('  %s -> %s: %s' % (a, b, why))
        bad += 1
    known = sum(1 for e in KNOWN if e in edges)
    print('%s: %d files, %d edges, %d of them KNOWN' % (
        'failed' if bad else 'layered', len(nodes), len(edges), known))
    return 1 if bad else 0


def sccs(nodes, edges):
    """The strongly connected components of more than one node (Tarjan)."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))
    sys.setrecursionlimit(10000)
    for n in nodes:
        if n not in index:
            visit(n)
    return sorted(out)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
