#!/usr/bin/env python3
"""check.py BUILD_DIR: the layers of lib/, measured on the objects.

Reads the symbols every object of lib/ (lib/lower/ops/ is the lower layer's
op table) and cmd/ defines and uses (nm) and draws an edge A -> B when A uses
a symbol B defines.  Fails when
  - an object uses one of a higher layer (the order is LAYERS, bottom first),
  - the objects form a cycle, within a layer or across layers, or
  - a header names a symbol a higher layer defines: a macro or a static
    inline function leaves no symbol in its own layer's objects, so the
    headers are read as text for the names nm saw defined above them.
Prints the edges that break a rule, then one line "layers: ok" or
"layers: N problems".  It also checks includes: a file of lib/L/ includes
only its own layer's headers, the public header (L2/L2.h) of a lower
layer, and a lower layer's tables (L2/*.def); and that the picture the
includes draw is the one the calls draw: a header named after a file of its
folder (b.h beside b.c) is included only by files that call b.c, so a header
several files share is the folder's internal.h (or LAYER.h), never named
after one of them."""
import glob, os, re, subprocess, sys

LAYERS = ['core', 'sym', 'ir', 'read', 'onnx', 'lower', 'opt', 'verify', 'report', 'pipeline', 'cmd']
PUBLIC = {l: '%s/%s.h' % (l, l) for l in LAYERS[:-1]}
GENERATED = {'onnx.pb-c.h'}      # protoc-c's output, in BUILD_DIR/gen

def layer(path):          # lib/opt/engine -> opt, lib/lower/ops/nn -> lower, cmd/x -> cmd
    d = path.split('/')
    if d[0] == 'lib': return d[1]
    if d[0] == 'cmd': return 'cmd'
    if d[0] == 'gen': return 'core'   # the protobuf-c messages
    raise SystemExit('check.py: no layer for ' + path)

def objects(b):
    objs = glob.glob(b + '/lib/*/*.o') + glob.glob(b + '/lib/*/*/*.o') + glob.glob(b + '/cmd/*.o') + glob.glob(b + '/gen/*.o')
    names = (os.path.relpath(o, b)[:-2] for o in objs)
    # objects of sources that exist (a stale object of a removed file is no edge)
    return sorted(n for n in names if n.startswith('gen/') or os.path.exists(n + '.c'))

def main():
    b = sys.argv[1]
    defs, uses = {}, {}
    objs = objects(b)
    # one nm for all objects (-A: each line starts with "OBJECT.o: ")
    out = subprocess.run(['nm', '-P', '-A'] + [os.path.join(b, o + '.o') for o in objs],
                         capture_output=True, text=True, check=True).stdout
    uses = {o: set() for o in objs}
    for line in out.splitlines():
        path, _, rest = line.partition(': ')
        f = rest.split()
        if len(f) < 2: continue
        o = os.path.relpath(path, b)[:-2]
        if f[1] == 'U': uses[o].add(f[0])
        elif f[1] in 'TDBRCGSVW': defs.setdefault(f[0], o)
    edges = {o: sorted({defs[s] for s in uses[o] if s in defs and defs[s] != o}) for o in uses}
    bad = []
    for a in sorted(edges):
        for t in edges[a]:
            if LAYERS.index(layer(t)) > LAYERS.index(layer(a)):
                syms = sorted(s for s in uses[a] if defs.get(s) == t)
                bad.append('upward: %s (%s) uses %s (%s): %s' % (a, layer(a), t, layer(t), ' '.join(syms[:5])))
    # cycles: Tarjan's strongly connected components
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
    def strong(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop(); on.discard(w); c.append(w)
                if w == v: break
            if len(c) > 1: comps.append(sorted(c))
    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index: strong(v)
    for c in comps:
        inner = ['%s -> %s' % (a, t) for a in c for t in edges[a] if t in c]
        bad.append('cycle: ' + ', '.join(inner))
    # headers: names of symbols defined above the header's layer
    for f in sorted(glob.glob('lib/*/*.h') + glob.glob('lib/*/*/*.h')):
        me = LAYERS.index(layer(f))
        text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', open(f).read(), flags=re.S)
        for name in sorted(set(re.findall(r'[A-Za-z_]\w*', text))):
            o = defs.get(name)
            if o and LAYERS.index(layer(o)) > me:
                bad.append('header: %s (%s) names %s of %s (%s)' % (f, layer(f), name, o, layer(o)))
    # includes
    srcs = glob.glob('lib/*/*.[ch]') + glob.glob('lib/*/*/*.[ch]') + glob.glob('cmd/*.c') + glob.glob('cmd/*/*.c')
    for f in sorted(srcs):
        me = layer(f)
        for m in re.finditer(r'^#include "([^"]+)"', open(f).read(), re.M):
            inc = m.group(1)
            if inc.startswith('../'):     # relative to the file: cmd/mkdocs/../usage.def
                inc = os.path.normpath(os.path.join(os.path.dirname(f), inc))
                l2 = 'cmd' if inc.startswith('cmd/') else layer(inc)
            elif '/' not in inc:
                # a file of its own folder, or a generated message header;
                # anything else is found through an -I path and is a hole
                if inc in GENERATED or os.path.exists(os.path.join(os.path.dirname(f), inc)):
                    continue
                bad.append('include: %s includes %s, not a file of its own folder' % (f, inc))
                continue
            elif os.path.exists(os.path.join(os.path.dirname(f), inc)):
                continue            # a subfolder of its own: lib/lower/ops/ops.h from lib/lower
            else:
                l2 = inc.split('/')[0]
            if l2 not in LAYERS:
                bad.append('include: %s includes %s (no such layer)' % (f, inc))
            elif LAYERS.index(l2) > LAYERS.index(me):
                bad.append('include: %s (%s) includes %s from above' % (f, me, inc))
            elif l2 != 'cmd' and inc != PUBLIC[l2] and not inc.endswith('.def') and l2 != f.split('/')[1]:
                # a layer's tables (.def) are data any layer above may expand
                bad.append('include: %s includes %s, not the public header %s' % (f, inc, PUBLIC[l2]))
    # the picture from includes: a header named after a file of its folder
    # (irtext.h beside irtext.c) says its includers use that file, so each
    # includer must call it; a folder's own headers (LAYER.h, internal.h,
    # FOLDER.h) name no file
    for f in sorted(srcs):
        if not f.endswith('.c'): continue
        d = os.path.dirname(f)
        for m in re.finditer(r'^#include "([^"]+)"', open(f).read(), re.M):
            h = os.path.normpath(os.path.join('lib', m.group(1)) if '/' in m.group(1) and not os.path.exists(os.path.join(d, m.group(1))) else os.path.join(d, m.group(1)))
            stem = h[:-2]
            if not h.endswith('.h') or os.path.basename(stem) in (os.path.basename(os.path.dirname(h)), 'internal'):
                continue
            if not os.path.exists(stem + '.c') or stem == f[:-2]:
                continue
            if f.startswith('lib/') and stem not in edges.get(f[:-2], ()):
                bad.append('include: %s includes %s, named after %s.c, which it does not call: name a shared header internal.h' % (f, m.group(1), stem))
    for x in bad: print(x)
    print('layers: ok' if not bad else 'layers: %d problems' % len(bad))
    sys.exit(1 if bad else 0)

main()
