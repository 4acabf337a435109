#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The probes' code, normalised so that a pure move of source compares equal.

    probe-objdump.py dump KO OUTDIR
    probe-objdump.py compare OLD NEW

dump disassembles every function of KO (objdump -d -r) and writes each to
OUTDIR/FUNC.s with its addresses stripped: a branch inside the function
is an offset from its start, a relocation names the symbol it reaches
(an offset into .text, .data or .bss becomes the symbol there plus the
offset into it, one into a string section the string itself). OUTDIR/probes
lists the hot set: every kmp_probe_*, the out-of-line fast and slow paths
(kmp_*_opts, kmp_*_slow, kmp_*_fast, the hooks' kmp_wrap_*), and every
module function one of those calls directly.

compare prints each function of the hot set that differs, or is in one
dump only, then a count of the other functions that differ; exits 1 if
the hot set differs.
"""
import os
import re
import struct
import subprocess
import sys

OBJDUMP = os.environ.get('OBJDUMP', 'aarch64-linux-gnu-objdump')
HOT = re.compile(r'^(kmp_probe_\w+|kmp_\w+_(opts|slow|fast)|kmp_wrap_\w+)'
                 r'(\.\w+)*$')


def sections(ko):
    """Name -> (offset in file, size, bytes) of each section of an ELF64 LE."""
    data = open(ko, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdrs = []
    for i in range(shnum):
        h = struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
        hdrs.append(h)
    strtab = hdrs[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in hdrs:
        name = names[h[0]:names.index(b'\0', h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] != 8 else b''
    return out


def symtab(ko):
    """Section -> sorted [(value, size, name)] of its named symbols."""
    out = subprocess.run([OBJDUMP, '-t', ko], capture_output=True,
                         text=True, check=True).stdout
    syms, base = {}, {}
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]{16}) (.{7}) (\S+)\s+([0-9a-f]{16}) (\S+)$',
                     line)
        if not m:
            continue
        val, flags, sec, size, name = m.groups()
        if name == sec:
            # A relocation's offset is from its section's symbol, which a
            # module's link may place at an address of its own.
            base[sec] = int(val, 16)
        if 'd' in flags[5:] or 'f' in flags[5:] or name.startswith('$'):
            continue
        syms.setdefault(sec, []).append((int(val, 16), int(size, 16), name))
    for v in syms.values():
        v.sort()
    return syms, base


def resolve(target, symbase, secs):
    """A relocation's target, SECTION+0xOFF, named by what is there."""
    m = re.match(r'^(\.[\w.]+)([+-]0x[0-9a-f]+)?$', target)
    if not m:
        return target
    syms, base = symbase
    sec, off = m.group(1), int(m.group(2) or '0', 16)
    if sec.startswith('.rodata.str'):
        raw = secs.get(sec, b'')
        end = raw.find(b'\0', off)
        return '"%s"' % raw[off:end].decode('latin-1').encode(
            'unicode_escape').decode()
    best, off = None, off + base.get(sec, 0)
    for val, size, name in syms.get(sec, []):
        if val <= off and (off < val + size or size == 0):
            best = (val, name)
    if best is None:
        return target
    return best[1] + ('+0x%x' % (off - best[0]) if off != best[0] else '')


def dump(ko, outdir):
    syms, secs = symtab(ko), sections(ko)
    out = subprocess.run([OBJDUMP, '-d', '-r', '--no-show-raw-insn', ko],
                         capture_output=True, text=True, check=True).stdout
    funcs, cur, name, base = {}, None, None, 0
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.+)>:$', line)
        if m:
            base, name = int(m.group(1), 16), m.group(2)
            cur = funcs.setdefault(name, [])
            continue
        if cur is None or not line.strip():
            continue
        m = re.match(r'^\s+[0-9a-f]+: (R_\w+)\s+(\S+)$', line)
        if m:
            # The operand the instruction showed before is not known until
            # the module is loaded: the relocation says what it is.
            if cur:
                cur[-1] = re.sub(r',?\s*<[^>]*>', '', cur[-1])
            cur.append('\t\t%s %s' % (m.group(1),
                                      resolve(m.group(2), syms, secs)))
            continue
        m = re.match(r'^\s+([0-9a-f]+):\t(.*)$', line)
        if not m:
            continue
        ins = m.group(2)

        def local(b):
            addr = int(b.group(1), 16)
            if b.group(2) == name or b.group(2).startswith(name + '+'):
                return '<.+0x%x>' % (addr - base)
            return '<%s>' % b.group(2)
        ins = re.sub(r'\b([0-9a-f]+) <([^>]*)>', local, ins)
        ins = re.sub(r'\s*// b\.\w+$', '', ins)
        cur.append(ins.rstrip())
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        os.unlink(os.path.join(outdir, f))
    for n, body in funcs.items():
        with open(os.path.join(outdir, n + '.s'), 'w') as fh:
            fh.write('\n'.join(body) + '\n')
    hot = {n for n in funcs if HOT.match(n)}
    calls = set()
    for n in hot:
        for ins in funcs[n]:
            m = re.search(r'R_AARCH64_(CALL|JUMP)26 (\S+)', ins) or \
                re.search(r'^b?l?\s+<([^>.+]+)>', ins)
            t = m and m.group(m.lastindex)
            if t:
                t = re.sub(r'\+0x[0-9a-f]+$', '', t)
                if t in funcs:
                    calls.add(t)
    with open(os.path.join(outdir, 'probes'), 'w') as fh:
        fh.write('\n'.join(sorted(hot | calls)) + '\n')
    print('%d functions, %d in the hot set' % (len(funcs), len(hot | calls)))


def compare(a, b):
    def hotset(d):
        with open(os.path.join(d, 'probes')) as fh:
            return set(fh.read().split())

    def body(d, n):
        p = os.path.join(d, n + '.s')
        return open(p).read() if os.path.exists(p) else None
    hot = hotset(a) | hotset(b)
    bad = 0
    for n in sorted(hot):
        x, y = body(a, n), body(b, n)
        if x != y:
            bad += 1
            print('differs: %s%s' % (n, '' if x and y else
                                     ' (only in %s)' % (b if y else a)))
    allf = {f[:-2] for d in (a, b) for f in os.listdir(d) if f.endswith('.s')}
    other = [n for n in sorted(allf - hot) if body(a, n) != body(b, n)]
    print('hot set: %d functions, %s' % (len(hot), 'identical' if not bad
                                          else '%d differ' % bad))
    print('other functions: %d of %d differ%s' % (
        len(other), len(allf - hot),
        (': ' + ' '.join(other[:20]) + (' ...' if len(other) > 20 else ''))
        if other else ''))
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[1] == 'dump':
        dump(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == 'compare':
        return compare(argv[2], argv[3])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
