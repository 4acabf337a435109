#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what a guest run left behind and judge it.

    results.py OUTDIR LABEL [--tally FILE] [--want NAME,...]
    results.py --ktap FILE...            (parse KTAP files alone)

OUTDIR holds console.log, kunit/*.ktap and shell/*.{rc,log}. One line is
printed per suite: 'PASS LABEL/kind/suite (n cases)' or 'FAIL ...' with the
reason. The counts of passed, failed and skipped cases are appended to the
tally file as 'P F S'. The exit status is 1 if anything failed.

--want lists what the run was asked for (make check TESTS=...): 'kunit',
a KUnit suite glob, or a shell test's name. A shell test asked for that
left no result, or KUnit asked for that left no document, is a failure.

Each KUnit suite's results file is one KTAP document. From 6.1 it is the
form debugfs_print_results() writes ("KTAP version 1", "1..1", the suite
as a subtest, its result line), and the kernel's own parser,
tools/testing/kunit/kunit_parser.py (what 'kunit.py parse' runs), judges
it: from $KMEMPROF_KUNIT_TOOL, or the newest kernel source unpacked in
$KMEMPROF_CACHE/src. The private parser below stays for what kunit_parser
cannot take: 5.10's results file has no KTAP header and logs the suite's
own result line before its cases as well as after them (kunit_parser finds
no KTAP there, or reports the cases missing), and a bare suite without the
top-level wrapper. It is also the fallback when no kernel source is
unpacked yet (the harness self-test runs before any kernel is built).
KMEMPROF_KTAP_PARSER=private forces it. Several documents (one per suite
file), the console scan and the shell results are this script's own work.
"""
import glob
import inspect
import io
import os
import re
import sys

RESULT = re.compile(r'^(not ok|ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(\w+)(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')

# What must never appear on the console of a healthy guest.
CONSOLE_BAD = re.compile(
    r'BUG:|WARNING:|KASAN|UBSAN|Oops|Kernel panic|RCU stall|'
    r'lockdep(?! checking is enabled)|'
    r'rcu_sched self-detected stall|possible recursive locking|'
    r'sleeping function called|list_add corruption|list_del corruption|'
    r'Unable to handle kernel|Internal error:|general protection fault')


class Node:
    def __init__(self, name, indent):
        self.name = name
        self.indent = indent
        self.children = []
        self.ok = True
        self.skip = False
        self.plan = None
        self.diag = []


def parse_ktap(text):
    """Return the root Node of a KTAP document (results nest by indent)."""
    root = Node('', -1)
    stack = [root]          # open levels; stack[-1] collects results
    pending = {}            # indent -> results seen at that indent
    plans = {}
    diag = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        m = PLAN.match(body)
        if m:
            plans[indent] = int(m.group(1))
            continue
        m = RESULT.match(body)
        if not m:
            if not body.startswith(('KTAP version', '# Subtest', '# module')):
                diag.append(body)
            continue
        node = Node((m.group(3) or '').strip(), indent)
        node.ok = m.group(1) == 'ok'
        directive = (m.group(4) or '').upper()
        node.skip = directive == 'SKIP'
        if directive == 'TODO':
            node.ok = True
        node.diag = diag
        diag = []
        # Deeper results seen so far are this node's children.
        deeper = sorted(k for k in pending if k > indent)
        if deeper:
            node.children = pending.pop(deeper[0])
            node.plan = plans.pop(deeper[0], None)
            for k in deeper[1:]:
                pending.pop(k)
                plans.pop(k, None)
            # 5.10 logs a suite's result line before its cases as well:
            # the childless twin is the same result, not a case.
            level = pending.get(indent, [])
            if level and level[-1].name == node.name and \
                    not level[-1].children:
                level.pop()
        pending.setdefault(indent, []).append(node)
    # Whatever is left at the shallowest indent is the top level.
    if pending:
        top = min(pending)
        root.children = pending[top]
        root.plan = plans.get(top)
    else:
        root.plan = plans.get(min(plans)) if plans else None
    return root


def leaves(node, path=()):
    """Yield (path, node) for every test case: results with no children."""
    for child in node.children:
        p = path + (child.name,)
        if child.children:
            yield from leaves(child, p)
            if not child.ok and all(c.ok for c in child.children):
                yield p + ('(suite)',), child
        else:
            yield p, child


def missing(node):
    """Names of levels whose plan promised more results than they gave."""
    out = []
    if node.plan is not None and len(node.children) < node.plan:
        out.append('%s: %d of %d results' % (node.name or 'top',
                                             len(node.children), node.plan))
    for child in node.children:
        out.extend(missing(child))
    return out


def kernel_parser():
    """The kernel tree's kunit_parser module, or None."""
    if os.environ.get('KMEMPROF_KTAP_PARSER') == 'private':
        return None
    cache = os.environ.get('KMEMPROF_CACHE',
                           os.path.expanduser('~/.cache/kmemprof'))
    dirs = [os.environ.get('KMEMPROF_KUNIT_TOOL', '')]
    dirs += sorted(glob.glob(os.path.join(
        cache, 'src', 'linux-*', 'tools', 'testing', 'kunit')), reverse=True)
    for d in dirs:
        if d and os.path.exists(os.path.join(d, 'kunit_parser.py')):
            sys.path.insert(0, d)
            try:
                import kunit_parser
                import kunit_printer
            except ImportError:
                sys.path.pop(0)
                continue
            # It reports as it parses: keep that off our output.
            kunit_printer.stdout._output = io.StringIO()
            return kunit_parser
    return None


KERNEL_PARSER = None
KERNEL_PARSER_LOOKED = False


def kernel_form(text):
    """Whether @text is the 6.1+ debugfs form: a header, then a plan."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return len(lines) >= 2 and lines[0] == 'KTAP version 1' and \
        PLAN.match(lines[1]) is not None


def judge_kernel(kp, text):
    """judge_ktap() by the kernel's kunit_parser."""
    # From 6.16 (7.x here) the parser takes the printer it reports to.
    params = inspect.signature(kp.parse_run_tests).parameters
    if 'printer' in params:
        root = kp.parse_run_tests(text.splitlines(),
                                  sys.modules['kunit_printer'].null_printer)
    else:
        root = kp.parse_run_tests(text.splitlines())
    c = root.counts
    why = []
    ok = (kp.TestStatus.SUCCESS, kp.TestStatus.SKIPPED)

    # Test.ok_status() is not in every 6.1 tree's parser (the Rockchip
    # 6.1.141 has none): the status itself, as ok_status() reads it.
    def walk(t, path):
        for sub in t.subtests:
            p = path + (sub.name or '(missing)',)
            if sub.subtests:
                walk(sub, p)
            elif sub.status not in ok:
                log = [ln.strip() for ln in sub.log[-6:]]
                why.append('not ok: %s %s' % ('/'.join(p) or '(missing)',
                                              ' | '.join(log)))
    walk(root, ())
    failed = c.failed + c.crashed
    if c.errors:
        why.append('%d parse errors (incomplete output?)' % c.errors)
        failed = failed or 1
    if c.total() == 0 and not failed:
        failed = 1
        why.append('no test results')
    return c.passed, failed, c.skipped, why


def judge_ktap(text):
    """Return (passed, failed, skipped, [reasons])."""
    global KERNEL_PARSER, KERNEL_PARSER_LOOKED
    if not KERNEL_PARSER_LOOKED:
        KERNEL_PARSER = kernel_parser()
        KERNEL_PARSER_LOOKED = True
    if KERNEL_PARSER and kernel_form(text):
        return judge_kernel(KERNEL_PARSER, text)
    root = parse_ktap(text)
    p = f = s = 0
    why = []
    for path, node in leaves(root):
        if node.skip:
            s += 1
        elif node.ok:
            p += 1
        else:
            f += 1
            why.append('not ok: %s %s' % ('/'.join(path),
                                          ' | '.join(node.diag[-6:])))
    for m in missing(root):
        f += 1
        why.append('incomplete: ' + m)
    if p + f + s == 0:
        f += 1
        why.append('no test results')
    return p, f, s, why


def report(label, p, f, s, why):
    state = 'FAIL' if f else 'PASS'
    extra = ', %d skipped' % s if s else ''
    print('%s %s (%d passed, %d failed%s)' % (state, label, p, f, extra))
    for w in why:
        print('     ' + w)


def judge_wanted(outdir, label, wanted):
    """Fail what the run was asked for and left no result of."""
    why = []
    kdir = os.path.join(outdir, 'kunit')
    ktap = os.listdir(kdir) if os.path.isdir(kdir) else []
    for w in wanted:
        if w == 'kunit' or w.startswith('kmemprof_'):
            if not ktap:
                why.append('%s: no KUnit results' % w)
        elif not os.path.exists(os.path.join(outdir, 'shell', w + '.rc')):
            why.append('%s: did not run' % w)
    if why:
        report(label + '/asked', 0, 1, 0, why)
        return 1
    return 0


def judge_dir(outdir, label):
    tot = [0, 0, 0]

    def add(p, f, s):
        tot[0] += p
        tot[1] += f
        tot[2] += s

    console = os.path.join(outdir, 'console.log')
    text = ''
    if os.path.exists(console):
        with open(console, errors='replace') as fh:
            text = fh.read()
    bad = [ln for ln in text.splitlines() if CONSOLE_BAD.search(ln)]
    done = 'KMEMPROF-RIG-DONE' in text
    why = bad[:10]
    if not done:
        why.append('the guest never reached the end of its run '
                   '(hang, panic or timeout)')
    if why:
        report(label + '/console', 0, 1, 0, why)
        tail = text.splitlines()[-40:]
        print('     --- last %d console lines ---' % len(tail))
        for ln in tail:
            print('     | ' + ln)
        add(0, 1, 0)
    else:
        report(label + '/console', 1, 0, 0, [])
        add(1, 0, 0)

    kdir = os.path.join(outdir, 'kunit')
    for name in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        with open(os.path.join(kdir, name), errors='replace') as fh:
            p, f, s, why = judge_ktap(fh.read())
        report('%s/kunit/%s' % (label, name.rsplit('.', 1)[0]), p, f, s, why)
        add(p, f, s)

    sdir = os.path.join(outdir, 'shell')
    names = sorted(n[:-3] for n in os.listdir(sdir) if n.endswith('.rc')) \
        if os.path.isdir(sdir) else []
    for name in names:
        with open(os.path.join(sdir, name + '.rc')) as fh:
            rc = fh.read().strip()
        logf = os.path.join(sdir, name + '.log')
        log = []
        if os.path.exists(logf):
            with open(logf, errors='replace') as fh:
                log = fh.read().splitlines()
        if rc == '0':
            report('%s/shell/%s' % (label, name), 1, 0, 0, [])
            add(1, 0, 0)
        elif rc == '77':
            report('%s/shell/%s' % (label, name), 0, 0, 1, log[-3:])
            add(0, 0, 1)
        else:
            report('%s/shell/%s' % (label, name), 0, 1, 0,
                   ['exit %s' % rc] + log[-15:])
            add(0, 1, 0)
    return tot


def main(argv):
    if argv[1:2] == ['--ktap']:
        failed = 0
        for path in argv[2:]:
            with open(path, errors='replace') as fh:
                p, f, s, why = judge_ktap(fh.read())
            report(path, p, f, s, why)
            failed += f
        return 1 if failed else 0
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tot = judge_dir(argv[1], argv[2])
    opts = dict(zip(argv[3::2], argv[4::2]))
    if opts.get('--want'):
        tot[1] += judge_wanted(argv[1], argv[2],
                               opts['--want'].split(','))
    if '--tally' in opts:
        with open(opts['--tally'], 'a') as fh:
            fh.write('%d %d %d\n' % tuple(tot))
    return 1 if tot[1] else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
