#!/usr/bin/python3
"""The shape of lib/ that the build and this test enforce (issue 14).

usage: check_layers.py SRCDIR BUILDDIR

1. Layers. lib/meson.build's `layers` map names each folder's layers
   below it. A lib/ file may include (with quotes) only headers of its own
   folder or of a layer below; and each layer's archive
   (BUILDDIR/lib/librnic_<layer>.a) may leave undefined only rnic_*
   symbols that its own archive or a layer below defines: no call against
   the order, even through a hand-written prototype.
2. Function length, counted with universal-ctags: none over 120 lines in
   lib/, none over 150 in app/.

Every violation is printed; the exit status is 1 if there was any.
"""
import ast
import os
import re
import shutil
import subprocess
import sys

MAX_LINES = {"lib": 120, "app": 150}


def layer_map(src):
    text = open(os.path.join(src, "lib", "meson.build")).read()
    body = re.search(r"layers\s*=\s*(\{.*?\n\})", text, re.S).group(1)
    body = re.sub(r"#.*", "", body)
    return ast.literal_eval(body)


def below(layers, name, seen=None):
    """Every layer @name may use, itself included."""
    seen = set() if seen is None else seen
    if name not in seen:
        seen.add(name)
        for b in layers[name]:
            below(layers, b, seen)
    return seen


def header_owner(src, layers):
    owner = {}
    for name in layers:
        for f in os.listdir(os.path.join(src, "lib", name)):
            if f.endswith(".h"):
                owner[f] = name
    return owner


def check_includes(src, layers, errors):
    owner = header_owner(src, layers)
    for name in layers:
        ok = below(layers, name)
        folder = os.path.join(src, "lib", name)
        for f in sorted(os.listdir(folder)):
            if not f.endswith((".c", ".h")):
                continue
            for n, line in enumerate(open(os.path.join(folder, f)), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                hdr = os.path.basename(m.group(1))
                if m.group(1) != hdr:
                    errors.append(f"lib/{name}/{f}:{n}: include by path: {m.group(1)}")
                elif hdr not in owner:
                    errors.append(f"lib/{name}/{f}:{n}: {hdr} is no lib/ header")
                elif owner[hdr] not in ok:
                    errors.append(f"lib/{name}/{f}:{n}: includes {hdr} of lib/{owner[hdr]}, "
                                  f"not below {name}")


def symbols(archive):
    out = subprocess.run(["nm", "--defined-only", "-g", archive], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    out = subprocess.run(["nm", "-u", archive], capture_output=True, text=True,
                         check=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip() and ":" not in l}
    return defined, undefined


def check_symbols(build, layers, errors):
    defs, undefs = {}, {}
    for name in layers:
        path = os.path.join(build, "lib", f"librnic_{name}.a")
        if not os.path.exists(path):
            errors.append(f"{path}: missing (build first)")
            return
        defs[name], undefs[name] = symbols(path)
    for name in layers:
        ok = set()
        for b in below(layers, name):
            ok |= defs[b]
        for sym in sorted(undefs[name]):
            if sym.startswith("rnic_") and sym not in ok:
                where = [l for l in layers if sym in defs[l]]
                errors.append(f"librnic_{name}.a needs {sym}, defined by "
                              f"{', '.join(where) or 'no layer'}: not below {name}")


def check_lengths(src, errors):
    ctags = shutil.which("ctags")
    if ctags is None:
        errors.append("ctags (universal-ctags) not found: scripts/install-deps.sh installs it")
        return
    for top, limit in MAX_LINES.items():
        files = []
        for root, _, names in os.walk(os.path.join(src, top)):
            files += [os.path.join(root, f) for f in names if f.endswith(".c")]
        out = subprocess.run([ctags, "--fields=+ne", "--c-kinds=f", "-o", "-"] + sorted(files),
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            cols = line.split("\t")
            fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
            if "line" in fields and "end" in fields:
                n = int(fields["end"]) - int(fields["line"]) + 1
                if n > limit:
                    errors.append(f"{os.path.relpath(cols[1], src)}:{fields['line']}: "
                                  f"{cols[0]} is {n} lines (at most {limit} in {top}/)")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    src, build = sys.argv[1], sys.argv[2]
    layers = layer_map(src)
    errors = []
    check_includes(src, layers, errors)
    check_symbols(build, layers, errors)
    check_lengths(src, errors)
    for e in errors:
        print("FAIL", e)
    print(f"layers: {len(layers)} ({', '.join(layers)}), {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
