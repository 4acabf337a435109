#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's RESULT lines into Markdown tables.

    benchtable.py [--ref=COMMIT] KERNEL ICOUNT_TXT [MTTCG_TXT]

ICOUNT_TXT comes from a -smp 1 -icount shift=0 guest, where a guest ns is
one instruction; MTTCG_TXT from a -smp 4 guest without icount, used only
for ratios between CPU counts. Each holds lines
'RESULT <mode> <workload> <cpus> <ns per pair>', one per round, and
'STAT <key> <value>'. Medians over the rounds are reported, except for
the macro load (workloads macro_*), where a whole userspace load varies
by about 1% between runs and the least of the rounds is taken.

Modes ref, ref-hist and ref-stack8 are the reference commit's module
(--ref names it) in the same boot; mode paths is the path build
(module/paths.h), whose 'PATH <round> <row> <col> <n> <ticks>' lines
give the breakdown of the defaults' cost on the macro load.
"""
import statistics
import sys

MODES = ['bare', 'disabled', 'default', 'ref', 'hist', 'lifetimes', 'stack8',
         'key2', 'sample64', 'owners', 'owners-cg', 'allocinfo', 'ftrace']
WORKLOADS = ['kmalloc32', 'kmalloc256', 'kmalloc2048', 'sites1000',
             'kmem_cache', 'bulk16', 'kfree_rcu', 'pages0', 'pagesbulk16',
             'pages2', 'leaky100k', 'xcpu']
CALIB = ['calib_loop', 'calib_irq', 'calib_percpu', 'calib_lock',
         'calib_clock', 'calib_stack6', 'calib_stack12']


def load(path, paths=None):
    res, stats = {}, {}
    with open(path, errors='replace') as fh:
        for line in fh:
            f = line.split()
            if len(f) == 5 and f[0] == 'RESULT':
                res.setdefault((f[1], f[2], int(f[3])), []).append(float(f[4]))
            elif len(f) == 3 and f[0] == 'STAT':
                stats[f[1]] = f[2]
            elif paths is not None and len(f) >= 4 and f[0] in ('PATH',
                                                                'PATHSTAT'):
                paths.setdefault(int(f[1]), []).append(f[0:1] + f[2:])
    return {k: (min(v) if k[1].startswith('macro_') else
                statistics.median(v)) for k, v in res.items()}, stats


MACRO_MODES = ['bare', 'allocinfo', 'ftrace', 'disabled', 'default', 'hist',
               'lifetimes', 'stack8', 'key2', 'sample64', 'owners',
               'owners-cg', 'ref', 'ref-hist', 'ref-stack8', 'paths']
# Each mode of today's module beside the reference commit's.
REF_PAIRS = [('default', 'ref', 'defaults'), ('hist', 'ref-hist', '`hist=1`'),
             ('stack8', 'ref-stack8', '`stack_depth=8`')]
MACRO_PHASES = ['msg', 'fork', 'file']


def pct(v, bare):
    return '-' if v is None or not bare else '%+.1f%%' % (100.0 * (v - bare) / bare)


def macro_table(kernel, res):
    # paths: the path build, whose clock reads make its total no figure
    modes = [m for m in MACRO_MODES
             if (m, 'macro_total', 1) in res and m != 'paths']
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


def ref_table(kernel, res, ref):
    """Today's modes beside the reference commit's, from the same boot."""
    bare = res.get(('bare', 'macro_total', 1))
    ai = res.get(('allocinfo', 'macro_total', 1))
    rows = [(m, r, name) for m, r, name in REF_PAIRS
            if (m, 'macro_total', 1) in res and (r, 'macro_total', 1) in res]
    if not bare or not rows:
        return []
    aio = ai - bare if ai else None
    out = ['## %s: the macro load, today against %s (icount, 1 CPU, the same '
           'boot)' % (kernel, ref or 'the reference commit'), '',
           'The reference commit\'s module, built for this kernel, runs as '
           'one more mode in each round; the least of the rounds, as above. '
           'A drift spread over many commits shows here, where the table '
           'above only compares modes.', '',
           '| mode | today over bare | %s over bare | today /allocinfo | '
           '%s /allocinfo | today - %s | today / %s |' % ((ref or 'ref',) * 4),
           '|---|---|---|---|---|---|---|']
    for m, r, name in rows:
        t, o = res[(m, 'macro_total', 1)], res[(r, 'macro_total', 1)]
        out.append('| %s | %s | %s | %s | %s | %+.1f points | %s |' % (
            name, pct(t, bare), pct(o, bare),
            '%.2fx' % ((t - bare) / aio) if aio and aio > 0 else '-',
            '%.2fx' % ((o - bare) / aio) if aio and aio > 0 else '-',
            100.0 * (t - o) / bare,
            '%.2fx' % ((t - bare) / (o - bare)) if o > bare else '-'))
    return out


PATH_ROWS = ['kmalloc', 'kmem_cache_alloc', 'kfree', 'kmem_cache_free',
             'mm_page_alloc', 'mm_page_free', 'percpu_alloc', 'percpu_free',
             'hook_slab_alloc', 'hook_slab_free', 'hook_page_alloc',
             'migrate', 'other']
OUTER = ['fast', 'general', 'table', 'move']
INNER = ['site_check', 'page_walk', 'unwind', 'frame_miss', 'given_back',
         'split', 'slot']
WHY = ['why_nosite', 'why_slowsite', 'why_walk', 'why_full', 'why_nomap',
       'why_taken', 'why_noentry', 'why_marker', 'why_order', 'why_other']
NOTES = ['prior', 'stale', 'returned', 'unpaired']
PATH_TEXT = {
    'fast': 'fast path', 'general': 'general path (with the fast try)',
    'table': 'live table first (pages_hashed)',
    'slot': 'kmem_cache slot, not in its site entry (kmp_cache_slot_of)',
    'move': 'migration hook\'s accounting',
    'site_check': 'slab site check (kmp_site_needs_unwind)',
    'page_walk': 'general path\'s page walk (kmp_page_site)',
    'unwind': 'unwind (kmp_unwind: stack_trace_save)',
    'frame_miss': 'frame-cache miss (symbol named)',
    'given_back': 'given-back-pages test (an unwind)',
    'split': 'free with no block of its order (split lock)',
    'why_nosite': 'site or walked frame not in the site table',
    'why_slowsite': 'site entry says general (unwind for a caller, relay)',
    'why_walk': 'fast walk gave up (record, depth)',
    'why_full': 'no slot claimed (group full)',
    'why_nomap': 'PFN not in the map', 'why_taken': 'an entry at the PFN already',
    'why_noentry': 'no entry to pair', 'why_marker': 'a migration marker',
    'why_order': 'entry of another order (split)', 'why_other': 'other',
    'prior': 'a before-load entry paid off at an allocation',
    'stale': 'a stale entry paid off', 'returned': 'given-back test: yes',
    'unpaired': 'unpaired free'}


def breakdown(kernel, res, paths):
    """Where the defaults' cost goes on the macro load (mode paths)."""
    if not paths:
        return []
    rnd = max(paths)
    cells, pstat, rate, calib = {}, {}, None, None
    for f in paths[rnd]:
        if f[0] == 'PATHSTAT':
            pstat[f[1]] = f[2] if len(f) > 2 else ''
        elif f[1] == 'rate':
            rate = float(f[2])
        elif f[1] == 'calib':
            calib = [float(x) for x in f[2:7]]
        elif len(f) == 5:
            cells[(f[1], f[2])] = (int(f[3]), float(f[4]))
    if not rate or not calib:
        return []
    ipt = 1e9 / rate        # instructions a tick, under icount shift=0
    n_cal = calib[0]
    zero, sub, note, why = (c / n_cal for c in calib[1:5])

    def cell(r, c):
        return cells.get((r, c), (0, 0.0))

    # each outer section less its own clock reads, and the general path
    # less what its inner sections' and notes' instrumentation added
    cost = {}
    for r in PATH_ROWS:
        for c in OUTER:
            n, t = cell(r, c)
            if n:
                cost[(r, c)] = (n, (t - n * zero) * ipt)
        host = next((c for c in ('general', 'move', 'table')
                     if (r, c) in cost), None)
        if host:
            extra = sum(cell(r, c)[0] for c in INNER) * sub + \
                sum(cell(r, c)[0] for c in WHY) * why + \
                sum(cell(r, c)[0] for c in NOTES) * note
            n, ins = cost[(r, host)]
            cost[(r, host)] = (n, ins - extra * ipt)
        for c in INNER:
            n, t = cell(r, c)
            if n:
                cost[(r, c)] = (n, (t - n * zero) * ipt)
    bare = res.get(('bare', 'macro_total', 1))
    dflt = res.get(('default', 'macro_total', 1))
    over = dflt - bare if bare and dflt else None
    # The tracepoint's own cost per event, from calib_tp_* in this boot.
    fl_slab = fl_page = None
    tk, bk = res.get(('bare', 'calib_tp_kmalloc32', 1)), res.get(('bare', 'kmalloc32', 1))
    if tk and bk:
        fl_slab = (tk - bk) / 2
    tp, bp = res.get(('bare', 'calib_tp_pages0', 1)), res.get(('bare', 'pages0', 1))
    if tp and bp:
        fl_page = (tp - bp) / 2

    def share(ins):
        return '%.1f%%' % (100.0 * ins / over) if over and over > 0 else '-'

    out = ['## %s: where the defaults\' cost goes on the macro load '
           '(mode paths, icount)' % kernel, '',
           'The path build (module/paths.h, KMEMPROF_PATHS=1) counts every '
           'event by the way it took and times each way with the counter '
           '(a guest ns is an instruction), interrupts off within; the '
           'clock reads and the counting are taken out again by the '
           'calibration at load (%.1f instructions a section, %.1f an inner '
           'section, %.1f a note). Round %d of the load. Inner paths are '
           'included in the general path\'s figure, and in each other '
           'where one calls the other (a frame-cache miss inside an unwind). '
           'The share is of the defaults\' overhead over bare in the same '
           'boot (%s instructions).' % (zero * ipt, sub * ipt, note * ipt, rnd,
                                       '%.2f M' % (over / 1e6) if over else '?'),
           '', '| event | path | events | instructions each | total (M) | '
           'share of the overhead |', '|---|---|---|---|---|---|']
    tot_events, tot_ins = 0, 0.0
    for r in PATH_ROWS:
        for c in OUTER + INNER:
            if (r, c) not in cost:
                continue
            n, ins = cost[(r, c)]
            if c in ('fast', 'general', 'table', 'move') and r != 'other':
                tot_events += n
            if c in OUTER and r != 'other':
                tot_ins += ins
            out.append('| %s | %s%s | %d | %.0f | %.3f | %s |' % (
                r, '' if c in OUTER else '↳ ', PATH_TEXT[c], n, ins / n,
                ins / 1e6, share(ins)))
    out += ['', 'Why the fast path gave an event to the general path, and '
            'what the general path found (counts):', '',
            '| event | ' + ' | '.join(c.replace('why_', '') for c in WHY + NOTES) + ' |',
            '|---|' + '---|' * len(WHY + NOTES)]
    for r in PATH_ROWS:
        row = [cell(r, c)[0] for c in WHY + NOTES]
        if any(row):
            out.append('| %s | %s |' % (r, ' | '.join(str(v) if v else ''
                                                    for v in row)))
    keys = ', '.join('%s %s' % (k, v) for k, v in sorted(pstat.items()))
    out += ['', 'Columns: ' + '; '.join('%s: %s' % (c.replace('why_', ''),
                                                   PATH_TEXT[c])
                                        for c in WHY + NOTES) + '.']
    if keys:
        out += ['', 'stats after the round: ' + keys + '.']
    # The budget: timed paths, plus the tracepoint's own cost per event.
    if over:
        slab = sum(cost.get((r, c), (0, 0))[0] for r in PATH_ROWS[:4]
                   for c in ('fast', 'general'))
        page = sum(cost.get((r, c), (0, 0))[0] for r in PATH_ROWS[4:6]
                   for c in ('fast', 'general', 'table'))
        line = ('The sum: %d events (hooks\' objects and migrations '
                'included), %.2f M instructions in kmemprof\'s paths '
                '(%s of the overhead)' % (tot_events, tot_ins / 1e6,
                                          share(tot_ins)))
        if fl_slab is not None and fl_page is not None:
            fl = slab * fl_slab + page * fl_page
            line += ('; the tracepoints\' own cost, %.0f a slab event and '
                     '%.0f a page event (calib_tp_*), %.2f M (%s); the rest, '
                     '%.2f M (%s), is outside both: the probes\' entry and '
                     'exit, the percpu events\' tracepoints, the hooks\' '
                     'ftrace calls, and the kernel running differently' % (
                         fl_slab, fl_page, fl / 1e6, share(fl),
                         (over - tot_ins - fl) / 1e6,
                         share(over - tot_ins - fl)))
        out += ['', line + '.']
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


OWNER_MODES = [('owners', '`owners=task`'), ('owners-cg', '`owners=cgroup`')]
# issue 41's targets: instructions a pair over the defaults, and the macro
# load's overhead over the defaults' overhead
OWNER_PAIR_MAX = 60
OWNER_MACRO_MAX = 1.3


def owners_table(kernel, res, stats):
    """What charging each event to its owner costs, over the defaults."""
    modes = [(m, n) for m, n in OWNER_MODES if any(k[0] == m for k in res)]
    if not modes:
        return []
    out = ['## %s: owners, over the defaults (icount, 1 CPU)' % kernel, '',
           'Instructions a pair added to the defaults\' (target: at most '
           '%d), and the macro load\'s overhead over bare divided by the '
           'defaults\' (target: at most %.1fx).' % (OWNER_PAIR_MAX,
                                                   OWNER_MACRO_MAX), '',
           '| workload | ' + ' | '.join(n for _, n in modes) + ' |',
           '|---|' + '---|' * len(modes)]
    for w in WORKLOADS:
        dflt = res.get(('default', w, 1))
        row = [res.get((m, w, 1)) for m, _ in modes]
        if dflt is None or all(v is None for v in row):
            continue
        out.append('| %s | %s |' % (w, ' | '.join(
            '-' if v is None else '%+.1f%s' % (
                v - dflt, '' if v - dflt <= OWNER_PAIR_MAX else ' (over)')
            for v in row)))
    bare = res.get(('bare', 'macro_total', 1))
    dflt = res.get(('default', 'macro_total', 1))
    if bare and dflt and dflt > bare:
        cells = []
        for m, _ in modes:
            v = res.get((m, 'macro_total', 1))
            cells.append('-' if v is None else '%.2fx%s' % (
                (v - bare) / (dflt - bare),
                '' if (v - bare) / (dflt - bare) <= OWNER_MACRO_MAX
                else ' (over)'))
        out.append('| macro load, overhead /defaults | %s |' % ' | '.join(cells))
    if 'live.bytes' in stats and 'live.bytes.owners' in stats and \
            'live.max' in stats:
        per = (int(stats['live.bytes.owners']) - int(stats['live.bytes'])) / \
            int(stats['live.max'])
        out += ['', 'Memory owners add per live object: %.1f bytes (the '
                'owner line\'s index in each slot and spill entry, made at '
                'the first owners=).' % per]
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
    ref = None
    for a in argv[1:]:
        if a.startswith('--ref='):
            ref = a[len('--ref='):]
    argv = [a for a in argv if not a.startswith('--ref=')]
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    paths = {}
    res, stats = load(argv[2], paths)
    out = icount_table(argv[1], res, stats)
    macro = macro_table(argv[1], res)
    if macro:
        out += [''] + macro
    for extra in (owners_table(argv[1], res, stats),
                  ref_table(argv[1], res, ref), breakdown(argv[1], res, paths)):
        if extra:
            out += [''] + extra
    if len(argv) > 3:
        mres, _ = load(argv[3])
        out += [''] + scaling_table(argv[1], mres)
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
