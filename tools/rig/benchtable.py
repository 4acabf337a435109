#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's RESULT lines into Markdown tables.

    benchtable.py KERNEL ICOUNT_TXT [MTTCG_TXT]

ICOUNT_TXT comes from a -smp 1 -icount shift=0 guest, where a guest ns is
one instruction; MTTCG_TXT from a -smp 4 guest without icount, used only
for ratios between CPU counts. Each holds lines
'RESULT <mode> <workload> <cpus> <ns per pair>', one per round, and
'STAT <key> <value>'. Medians over the rounds are reported, except for
the macro load (workloads macro_*), where a whole userspace load varies
by about 1% between runs and the least of the rounds is taken.
"""
import statistics
import sys

MODES = ['bare', 'disabled', 'default', 'hist', 'lifetimes', 'stack8', 'key2',
         'sample64', 'allocinfo', 'ftrace']
WORKLOADS = ['kmalloc32', 'kmalloc256', 'kmalloc2048', 'sites1000',
             'kmem_cache', 'bulk16', 'kfree_rcu', 'pages0', 'pagesbulk16',
             'pages2', 'leaky100k', 'xcpu']
CALIB = ['calib_loop', 'calib_irq', 'calib_percpu', 'calib_lock',
         'calib_clock', 'calib_stack6', 'calib_stack12']


def load(path):
    res, stats = {}, {}
    with open(path, errors='replace') as fh:
        for line in fh:
            f = line.split()
            if len(f) == 5 and f[0] == 'RESULT':
                res.setdefault((f[1], f[2], int(f[3])), []).append(float(f[4]))
            elif len(f) == 3 and f[0] == 'STAT':
                stats[f[1]] = f[2]
    return {k: (min(v) if k[1].startswith('macro_') else
                statistics.median(v)) for k, v in res.items()}, stats


MACRO_MODES = ['bare', 'allocinfo', 'ftrace', 'disabled', 'default', 'hist',
               'lifetimes', 'stack8', 'key2', 'sample64']
MACRO_PHASES = ['msg', 'fork', 'file']


def pct(v, bare):
    return '-' if v is None or not bare else '%+.1f%%' % (100.0 * (v - bare) / bare)


def macro_table(kernel, res):
    modes = [m for m in MACRO_MODES if (m, 'macro_total', 1) in res]
    bare = res.get(('bare', 'macro_total', 1))
    if not modes or not bare:
        return []
    over = {m: res[(m, 'macro_total', 1)] - bare for m in modes}
    out = ['## %s: the macro load, over bare (icount, 1 CPU)' % kernel, '',
           'tests/qemu/kmpload.c: unix-socket messaging as hackbench does '
           'it, fork and exit, and tmpfs file churn. Guest time under '
           '`-icount shift=0` is instructions; the least of the rounds. '
           'The last two columns divide the mode\'s overhead by '
           'allocinfo\'s and by kmemprof\'s defaults\'.', '',
           '| mode | ' + ' | '.join(MACRO_PHASES) +
           ' | total | over bare | /allocinfo | /defaults |',
           '|---|' + '---|' * (len(MACRO_PHASES) + 4)]
    for m in modes:
        ph = []
        for p in MACRO_PHASES:
            v, b = res.get((m, 'macro_' + p, 1)), res.get(('bare', 'macro_' + p, 1))
            ph.append(pct(v, b) if m != 'bare' else
                      ('%.1f M' % (v / 1e6) if v else '-'))
        tot = res[(m, 'macro_total', 1)]
        ai, df = over.get('allocinfo'), over.get('default')
        out.append('| %s | %s | %.1f M | %s | %s | %s |' % (
            m, ' | '.join(ph), tot / 1e6,
            pct(tot, bare) if m != 'bare' else '-',
            '%.2fx' % (over[m] / ai) if ai and ai > 0 and m != 'bare' else '-',
            '%.2fx' % (over[m] / over['default'])
            if df and df > 0 and m != 'bare' else '-'))
    return out


def fmt(v):
    return '-' if v is None else ('%.1f' % v)


def ratio(a, b):
    return '-' if a is None or b is None or b == 0 else '%.2fx' % (a / b)


def icount_table(kernel, res, stats):
    modes = [m for m in MODES if any(k[0] == m for k in res)]
    out = ['## %s: instructions per alloc+free pair (icount, 1 CPU)' % kernel,
           '',
           'Guest ns under `-icount shift=0`: one ns is one instruction, the '
           'same in every run. Median of the rounds.', '',
           '| workload | ' + ' | '.join(modes) +
           ' | default/bare | added: default/allocinfo |',
           '|---|' + '---|' * (len(modes) + 2)]
    for w in WORKLOADS:
        row = [res.get((m, w, 1)) for m in modes]
        if all(v is None for v in row):
            continue
        get = dict(zip(modes, row))
        bare, dflt, ai = get.get('bare'), get.get('default'), get.get('allocinfo')
        added = '-'
        if None not in (bare, dflt, ai) and ai > bare:
            added = '%.2fx' % ((dflt - bare) / (ai - bare))
        out.append('| %s | %s | %s | %s |' % (
            w, ' | '.join(fmt(v) for v in row), ratio(dflt, bare), added))
    calib = [(c, res.get(('bare', c, 1))) for c in CALIB
             if res.get(('bare', c, 1)) is not None]
    if calib:
        out += ['', 'Building blocks, instructions each: ' +
                ', '.join('%s %s' % (c.replace('calib_', ''), fmt(v))
                          for c, v in calib) + '.']
    floors = []
    for c, w, what in (('calib_tp_kmalloc32', 'kmalloc32', 'kmalloc(32)+kfree'),
                       ('calib_tp_pages0', 'pages0', 'a page of order 0')):
        tp, bare = res.get(('bare', c, 1)), res.get(('bare', w, 1))
        if tp is not None and bare is not None:
            floors.append('%s +%.1f' % (what, tp - bare))
    if floors:
        out += ['', 'The floor of any tracepoint profiler, the kmem events '
                'with an empty probe attached, added over bare: ' +
                ', '.join(floors) + '.']
    proc = res.get(('default', 'procread10k', 1))
    first = res.get(('default', 'procread10k-first', 1))
    naming = res.get(('default', 'procread10k-naming', 1))
    if proc is not None:
        out += ['', 'Reading /proc/kmemprof with %s tags: %.1f M instructions '
                '(%.1f ms at one instruction a ns); the first read %s M.' % (
                    stats.get('tags.used', '?'), proc / 1e6, proc / 1e6,
                    fmt(first / 1e6 if first else None))]
        if naming is not None:
            out[-1] += (' Naming the tags, in the background before the '
                        'reads: %.1f M.' % (naming / 1e6))
    nfirst = res.get(('default', 'name10k-first', 1))
    nagain = res.get(('default', 'name10k', 1))
    if nfirst is not None:
        out += ['', 'Naming 10000 new call sites of a module of 10000 '
                'functions, not waiting for the background: the first read '
                'of /proc/kmemprof %.1f M instructions, the next %s M.' % (
                    nfirst / 1e6, fmt(nagain / 1e6 if nagain else None))]
    nalloc = res.get(('default', 'name10k-alloc', 1))
    nbare = res.get(('bare', 'name10k-alloc', 1))
    if nalloc is not None:
        out += ['', 'The allocations that made those 10000 sites, one a '
                'site: %.1f M instructions (bare %s M).' % (
                    nalloc / 1e6, fmt(nbare / 1e6 if nbare else None))]
    # guest.sh reads them from a fresh load, before any hist=1 or
    # lifetimes=1: no times in live.bytes.
    if 'live.bytes' in stats and 'live.max' in stats:
        per = int(stats['live.bytes']) / int(stats['live.max'])
        out += ['', 'Memory per live object: %.1f bytes (live.bytes / '
                'live.max: 24-byte slots and 32-byte spill entries, with '
                'their share of the group words and the spill\'s buckets; '
                'the times, 8 bytes a slot, come with hist or lifetimes).'
                % per]
    return out


def scaling_table(kernel, res):
    cpus = sorted({k[2] for k in res})
    modes = [m for m in ('bare', 'default', 'allocinfo')
             if any(k[0] == m for k in res)]
    out = ['## %s: scaling, ns per pair per CPU (multi-threaded TCG)' % kernel,
           '', 'Emulated time: only the ratios mean anything. The host has '
           '2 cores for the guest\'s 4 vCPUs, so even bare slows down with '
           'more CPUs; the last column divides each mode\'s growth by '
           'bare\'s, which leaves what the mode itself adds.', '',
           '| workload | mode | ' + ' | '.join('%d CPU' % c for c in cpus) +
           ' | %d/%d | %d/%d vs bare |' % (cpus[-1], cpus[0], cpus[-1], cpus[0]),
           '|---|---|' + '---|' * (len(cpus) + 2)]
    for w in WORKLOADS:
        base = [res.get(('bare', w, c)) for c in cpus]
        for m in modes:
            row = [res.get((m, w, c)) for c in cpus]
            if all(v is None for v in row):
                continue
            rel = '-'
            if None not in (row[0], row[-1], base[0], base[-1]) and \
                    row[0] and base[0] and base[-1]:
                rel = '%.2fx' % ((row[-1] / row[0]) / (base[-1] / base[0]))
            out.append('| %s | %s | %s | %s | %s |' % (
                w, m, ' | '.join(fmt(v) for v in row),
                ratio(row[-1], row[0]), rel))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    res, stats = load(argv[2])
    out = icount_table(argv[1], res, stats)
    macro = macro_table(argv[1], res)
    if macro:
        out += [''] + macro
    if len(argv) > 3:
        mres, _ = load(argv[3])
        out += [''] + scaling_table(argv[1], mres)
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
