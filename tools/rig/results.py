#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what a guest run left behind and judge it.

    results.py OUTDIR LABEL [--tally FILE]
    results.py --ktap FILE...            (parse KTAP files alone)

OUTDIR holds console.log, kunit/*.ktap and shell/*.{rc,log}. One line is
printed per suite: 'PASS LABEL/kind/suite (n cases)' or 'FAIL ...' with the
reason. The counts of passed, failed and skipped cases are appended to the
tally file as 'P F S'. The exit status is 1 if anything failed.
"""
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


def judge_ktap(text):
    """Return (passed, failed, skipped, [reasons])."""
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
    if len(argv) >= 5 and argv[3] == '--tally':
        with open(argv[4], 'a') as fh:
            fh.write('%d %d %d\n' % tuple(tot))
    return 1 if tot[1] else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
