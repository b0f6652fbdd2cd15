#!/usr/bin/env python3
"""Code bytes of a wasm module by crate and by skblab module, from its `name` section.

twiggy is not in the package registries this project installs from, so this reads the module
itself: the code section's function bodies, named by the name section (Rust's legacy mangled
names), grouped by the crate of the function (or of the type a trait impl is for). Use the
pre-wasm-bindgen module of the browser build, which still has its names:

    python3 scripts/wasm-sizes.py target/wasm32-unknown-unknown/wasm-release/skblab-web.wasm [N]

Sizes are before wasm-opt and compression; shares are what to read (docs/performance.md).
"""
import collections
import re
import sys

DATA_BYTES = 0

def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def read(path):
    data = open(path, 'rb').read()
    i, imports, bodies, names = 8, 0, [], {}
    global DATA_BYTES
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        end = i + size
        if sid == 2:  # imports: count the imported functions (they come first in the index space)
            n, j = leb(data, i)
            for _ in range(n):
                for _ in range(2):
                    ln, j = leb(data, j)
                    j += ln
                kind = data[j]
                j += 1
                if kind == 0:
                    _, j = leb(data, j)
                    imports += 1
                elif kind == 1:
                    j += 1
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 2:
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:
                    j += 2
        elif sid == 11:  # data: string constants, tables, the lessons' text
            DATA_BYTES = size
        elif sid == 10:  # code
            n, j = leb(data, i)
            for _ in range(n):
                ln, j = leb(data, j)
                bodies.append(ln)
                j += ln
        elif sid == 0:  # custom: the name section's function names
            ln, j = leb(data, i)
            if data[j:j + ln] == b'name':
                j += ln
                while j < end:
                    sub = data[j]
                    ssz, j = leb(data, j + 1)
                    if sub == 1:
                        n, k = leb(data, j)
                        for _ in range(n):
                            idx, k = leb(data, k)
                            ln2, k = leb(data, k)
                            names[idx] = data[k:k + ln2].decode('utf8', 'replace')
                            k += ln2
                    j += ssz
        i = end
    return [(names.get(imports + k, '?'), b) for k, b in enumerate(bodies)]


def path_of(name):
    """The demangled path of a legacy-mangled name; a trait impl is its type's path."""
    if not name.startswith('_ZN'):
        return [name]
    segs, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        n = int(name[i:j])
        segs.append(name[j:j + n])
        i = j + n
    if segs and segs[0].startswith('_$LT$'):
        inner = segs[0][5:].replace('..', '::').replace('$u20$', ' ').replace('$RF$', '&')
        inner = re.sub(r'^(&|mut |dyn )+', '', inner).split(' as ')[0]
        return inner.split('::')
    return segs


def main():
    funcs = read(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    total = sum(b for _, b in funcs)
    crates, modules = collections.Counter(), collections.Counter()
    for name, b in funcs:
        p = path_of(name)
        crates[p[0]] += b
        modules['::'.join(p[:3]) if p[0].startswith('skblab') else p[0]] += b
    print(f'{len(funcs)} functions, {total} code bytes, {DATA_BYTES} data bytes')
    for title, c in (('by crate', crates), ('by skblab module', modules)):
        print(f'--- {title}')
        for k, b in c.most_common(top):
            print(f'{b:9d} {b / total * 100:5.1f}% {k}')


main()
