"""Compile the forward instantiations of the files that use fold_known / fold_pairs and dump
a hash of each kernel's .text section: python sass_cmp.py OUT.json"""
import hashlib
import json
import sys
from pathlib import Path

from bwlab.core import build
from bwlab.workloads.softmax import plans


def text_of(path, name):
    """The bytes of one ELF64 section, by name."""
    import struct
    b = Path(path).read_bytes()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    for sec in secs:
        nm = b[stroff + sec[0]: b.index(b"\0", stroff + sec[0])].decode()
        if nm == name:
            return b[sec[4]: sec[4] + sec[5]]
    raise KeyError(name)


def main():
    FILES = {"colscluster", "rowstream", "rowsplit", "rows"}
    out = {}
    for src, exprs in plans.expressions().items():
        if Path(src).stem not in FILES:
            continue
        sel = [e for e in exprs if "Forward" in e]
        b = build.compile_each(src, sel, "sm_90", jobs=2)
        for e, bd in b.by_expression.items():
            sym = bd.symbols[e]
            data = text_of(bd.cubin_path, f".text.{sym}")
            out[e] = (hashlib.sha1(data).hexdigest(), len(data), bd.resources[e].registers)
    json.dump(out, open(sys.argv[1], "w"), indent=0, sort_keys=True)
    print(len(out), "kernels")


if __name__ == '__main__':
    main()
