#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check-agree's judge: kmemprof against the kernel's allocinfo.

    agree.py DIR READER VMLINUX [--pct 10] [--top 25] [--allow FILE]

DIR is what tests/integration/agree.sh left in the guest's /out/agree:
allocinfo-load.txt (allocinfo when the test started, right after /init
loaded kmemprof), then allocinfo-1.txt and kmemprof-1.txt under the load.
READER is the host's full build of the reader (with libdw), VMLINUX the
6.12-dbginfo kernel's. Both views are parsed by the reader itself
(kmemprof top -i FILE --json), and kmemprof's sites get their file:line
from the reader's own resolution (--resolve=VMLINUX).

Two checks, each within PCT percent:

(a) the sums: kmemprof's, with its before_load:* lines (every page block
    in use at load, by kind, prior.c) and kmemprof:tables but without
    before_load:reserved (memblock's reservations, which allocinfo never
    sees), against allocinfo's. Printed also with every line and without
    before_load, not asserted: allocinfo counts from boot.

(b) allocinfo's TOP biggest sites by what they gained since the test
    started (allocinfo-1 less allocinfo-load): what was allocated before
    load is on kmemprof's before_load lines and has no site, so a site's
    bytes from before load cannot be matched. Each must be in kmemprof
    within PCT percent: what kmemprof's sites that resolve to that
    file:line gained over the same time (kmemprof-1 less kmemprof-load,
    each read just after allocinfo's), so that both count from the same
    moment. Their live bytes are printed beside.
    A site listed in the allow-list FILE ("file:line  reason", one a line)
    is printed with its reason and not asserted.
    Each kmemprof site is named as allocinfo names its function: the
    function inlined at the site that its line is in (the reader's
    srcfunc, copy_process+0x1b8 in alloc_thread_stack_node), else its
    symbol without the compiler's suffixes (.constprop.0...). An allocinfo
    site that no kmemprof site has the file:line of is matched by its file
    and function instead, against the sites of that file and function
    whose file:line is none of allocinfo's, and says "by function". One
    more check: every kmemprof site matched by file:line has the name
    allocinfo gives the function there.

Prints the table, a line per check (PASS/FAIL/ALLOW), and 'P F S' last.
"""
import argparse
import json
import subprocess
import sys


def view(reader, path, vmlinux=None):
    cmd = [reader, 'top', '-i', path, '-n', '0', '--json']
    if vmlinux:
        cmd.append('--resolve=' + vmlinux)
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode:
        sys.exit('agree: %s: %s' % (' '.join(cmd), r.stderr.strip()))
    if r.stderr.strip():
        print('agree: reader said: ' + r.stderr.strip())
    return json.loads(r.stdout)


def key(s):
    """allocinfo's site: file:line, and the module for a module's."""
    return s['site'] + (' [%s]' % s['module'] if s.get('module') else '')


def name(s):
    """The function a kmemprof site's line is in, as allocinfo names it."""
    return s.get('srcfunc') or s['func'].split('.')[0]


def mib(n):
    return '%.2f' % (n / 1048576)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('reader')
    ap.add_argument('vmlinux')
    ap.add_argument('--pct', type=float, default=10.0)
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--allow')
    a = ap.parse_args()

    allow = {}
    if a.allow:
        with open(a.allow) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith('#'):
                    site, _, why = line.partition(' ')
                    allow[site] = why.strip()

    for site, why in allow.items():
        print('allow-list (%s): %s  %s' % (a.allow, site, why))
    ai0 = view(a.reader, a.dir + '/allocinfo-load.txt')
    ai = view(a.reader, a.dir + '/allocinfo-1.txt')
    kp0 = view(a.reader, a.dir + '/kmemprof-load.txt')
    kp = view(a.reader, a.dir + '/kmemprof-1.txt', a.vmlinux)
    assert ai['source'] == 'allocinfo' and kp['source'] == 'kmemprof'

    p = f = s = 0

    def judge(label, want, got, allowed=None):
        nonlocal p, f, s
        ok = want > 0 and abs(got - want) <= want * a.pct / 100
        if allowed is not None and not ok:
            print('ALLOW %s: %s' % (label, allowed))
            s += 1
        elif ok:
            print('PASS %s%s' % (label, ' (its allow-list entry is no longer'
                                 ' needed)' if allowed is not None else ''))
            p += 1
        else:
            print('FAIL %s' % label)
            f += 1
        return ok

    # (a) the sums
    ai_sum = sum(x['live_bytes'] for x in ai['sites'])
    ai0_sum = sum(x['live_bytes'] for x in ai0['sites'])
    kp_sum = sum(x['live_bytes'] for x in kp['sites'])

    def kp_line(name):
        return sum(x['live_bytes'] for x in kp['sites'] if x['site'] == name)
    before = sum(x['live_bytes'] for x in kp['sites']
                 if x['site'].startswith('before_load:'))
    reserved = kp_line('before_load:reserved')
    ai_own = sum(x['live_bytes'] for x in ai['sites']
                 if x.get('module') == 'kmemprof')
    print('=== the sums, MiB (within %g%%)' % a.pct)
    print('allocinfo                         %8s  (at load %s, since %+.2f)'
          % (mib(ai_sum), mib(ai0_sum), (ai_sum - ai0_sum) / 1048576))
    print('  of which module kmemprof\'s      %8s'
          ' (kmemprof:tables, below, %s)' % (mib(ai_own),
                                             mib(kp_line('kmemprof:tables'))))

    def row(label, n, note=''):
        print('%-33s %8s  %+6.1f%%%s' % (label, mib(n),
                                         100 * (n - ai_sum) / ai_sum, note))
    row('kmemprof, every line', kp_sum)
    for x in sorted(kp['sites'], key=lambda x: -x['live_bytes']):
        if x['site'].startswith('before_load:') or x['site'] == 'kmemprof:tables':
            print('  %-31s %8s' % (x['site'], mib(x['live_bytes'])))
    row('kmemprof, without before_load', kp_sum - before,
        '  (allocinfo counts from boot)')
    row('kmemprof, without the reserved', kp_sum - reserved,
        '  (asserted)')
    print('before_load:reserved is memblock\'s, which allocinfo never sees;'
          ' the rest of\nbefore_load is the page blocks in use at load, which'
          ' allocinfo has on its sites.\nallocinfo also has the slab objects'
          ' and percpu areas from before load, on top\nof their slab pages'
          ' and chunks (the kinds overlap); kmemprof has only the pages.')
    judge('sum: kmemprof %s MiB without before_load:reserved, allocinfo %s'
          ' MiB' % (mib(kp_sum - reserved), mib(ai_sum)), ai_sum,
          kp_sum - reserved)

    # (b) the sites, by what they gained since load
    at_load = {key(x): x['live_bytes'] for x in ai0['sites']}
    gained = {}
    for x in ai['sites']:
        k = key(x)
        gained[k] = gained.get(k, 0) + x['live_bytes'] - at_load.get(k, 0)
    funcs = {key(x): x['func'] for x in ai['sites']}
    kp_at_load = {}
    for x in kp0['sites']:
        k = (x['site'], x.get('module'), x['kind'])
        kp_at_load[k] = kp_at_load.get(k, 0) + x['live_bytes']
    by_line = {}
    by_func = {}
    unresolved = 0
    for x in kp['sites']:
        if x['site'].startswith('before_load:') or x['site'] == 'kmemprof:tables':
            continue
        x['gained'] = x['live_bytes'] - kp_at_load.get(
            (x['site'], x.get('module'), x['kind']), 0)
        if not x.get('srcline'):
            unresolved += x['live_bytes']
            continue
        k = x['srcline'] + (' [%s]' % x['module'] if x.get('module') else '')
        by_line.setdefault(k, []).append(x)
        if k not in gained:
            fk = (x['srcline'].rsplit(':', 1)[0], x.get('module'), name(x))
            by_func.setdefault(fk, []).append(x)
    print()
    print('=== allocinfo\'s %d biggest sites since load, against kmemprof by'
          ' file:line (KiB; within %g%%)' % (a.top, a.pct))
    print('%9s %9s %7s %9s  %-40s %s' % ('allocinfo', 'kmemprof', 'diff',
                                         '(live)', 'file:line',
                                         'kmemprof sites'))
    top = sorted(gained.items(), key=lambda kv: -kv[1])[:a.top]
    misnamed = []
    for k, want in top:
        sites = by_line.get(k, [])
        how = ''
        if not sites:
            sites = by_func.get((k.split(' ')[0].rsplit(':', 1)[0],
                                 k.split(' [')[1][:-1] if ' [' in k else None,
                                 funcs.get(k)), [])
            how = ' by function' if sites else ''
        misnamed += ['%s (%s) at %s' % (x['site'], name(x), k)
                     for x in sites if name(x) != funcs.get(k)]
        got = sum(x['gained'] for x in sites)
        live = sum(x['live_bytes'] for x in sites)
        names = ', '.join(sorted({'%s (%s) %s' % (x['site'], name(x),
                                                  x['kind'])
                                  for x in sites})) or '-'
        diff = '%+.1f%%' % (100 * (got - want) / want) if want else '-'
        print('%9d %9d %7s %9d  %-40s %s' % (want // 1024, got // 1024, diff,
                                             live // 1024,
                                             k + ' ' + funcs.get(k, ''),
                                             names))
        judge('site %s (%s): kmemprof %d, allocinfo %d since load%s'
              % (k, funcs.get(k, ''), got, want, how), want, got,
              allow.get(k))
    print('(kmemprof, live bytes of sites with no file:line: %d KiB)'
          % (unresolved // 1024))
    if misnamed:
        print('FAIL names: not allocinfo\'s function: ' + ', '.join(misnamed))
        f += 1
    else:
        print('PASS names: each kmemprof site above is in allocinfo\'s'
              ' function (srcfunc, or its symbol)')
        p += 1
    print('%d %d %d' % (p, f, s))
    return 1 if f else 0


if __name__ == '__main__':
    sys.exit(main())
