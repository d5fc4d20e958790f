#!/usr/bin/env python3
"""Which dynamic symbols of JavaCPP's libtorch glue no library on the search path defines.

usage: missing_symbols.py REPORT_FILE GLUE.so [GLUE.so ...] -- DIR [DIR ...]
       missing_symbols.py --nccl REPORT_FILE libweftnccl.so [libnccl.so.2]

For each glue library: its undefined (non-weak) dynamic symbols, less those defined by the libraries of the search
path (DIRs, then the system's library folders). Exactly what the dynamic loader would fail on, read from the ELF
files themselves (.dynsym), so it needs nothing but Python. Prints one summary line per glue library, writes every
missing symbol (mangled and, where c++filt exists, demangled) to REPORT_FILE, and exits 0 when nothing is missing,
1 otherwise. Vtables and type info (_ZTV, _ZTI, _ZTS) are counted apart: they are resolved at load time, never lazily.

--nccl: Weft's NCCL shim links nothing of NCCL (it dlopens libnccl.so.2), so its needs are not in .dynsym: it names
them itself (weft_nccl_symbols, called through ctypes; the shim loads without NCCL). Each is looked up among
libnccl.so.2's defined dynamic symbols; without a libnccl.so.2 the list is only printed.
"""
import os
import shutil
import struct
import subprocess
import sys

SYSTEM_DIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]
SHN_UNDEF = 0
STB_WEAK = 2


def dynamic_symbols(path):
    """(defined names, undefined strong names, NEEDED names) from an ELF64 little-endian shared object."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(path + " is not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        name, stype, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        sections.append((stype, offset, size, link, entsize))
    defined, undefined, needed = set(), set(), []
    for stype, offset, size, link, entsize in sections:
        if stype == 11:  # SHT_DYNSYM
            str_off = sections[link][1]
            for k in range(1, size // entsize):
                st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                    "<IBBHQQ", data, offset + k * entsize)
                end = data.index(b"\0", str_off + st_name)
                sym = data[str_off + st_name:end].decode("ascii", "replace")
                if not sym:
                    continue
                if st_shndx == SHN_UNDEF:
                    if st_info >> 4 != STB_WEAK:
                        undefined.add(sym)
                else:
                    defined.add(sym)
        elif stype == 6:  # SHT_DYNAMIC
            str_off = sections[link][1]
            for k in range(size // 16):
                tag, val = struct.unpack_from("<qQ", data, offset + k * 16)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    end = data.index(b"\0", str_off + val)
                    needed.append(data[str_off + val:end].decode())
    return defined, undefined, needed


def find(name, dirs):
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return os.path.realpath(p)
    return None


def provided(needed, dirs, seen):
    """Symbols defined by the needed libraries and everything they need in turn; names of libraries not found."""
    out, missing_libs = set(), []
    queue = list(needed)
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen[name] = find(name, dirs)
        if seen[name] is None:
            missing_libs.append(name)
            continue
        d, _, n = dynamic_symbols(seen[name])
        out |= d
        queue.extend(n)
    return out, missing_libs


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return list(names)
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else list(names)


def nccl_main(argv):
    import ctypes
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 64
    report, shim, lib = argv[2], argv[3], argv[4] if len(argv) > 4 else None
    f = ctypes.CDLL(os.path.abspath(shim)).weft_nccl_symbols
    f.restype = ctypes.c_char_p
    needs = f().decode().split()
    base = os.path.basename(shim)
    with open(report, "a") as out:
        if lib is None:
            print("%s: resolves %d NCCL symbols at run time (%s); no libnccl.so.2 to check them against here"
                  % (base, len(needs), " ".join(needs)))
            out.write("%s resolves %s\n" % (base, " ".join(needs)))
            return 0
        defined = dynamic_symbols(lib)[0]
        missing = [n for n in needs if n not in defined]
        print("%s: resolves %d NCCL symbols at run time, %d missing from %s%s"
              % (base, len(needs), len(missing), lib, (": " + " ".join(missing)) if missing else ""))
        for m in missing:
            out.write("%s missing %s (from %s)\n" % (base, m, lib))
    return 1 if missing else 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--nccl":
        return nccl_main(argv)
    if "--" not in argv or len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    cut = argv.index("--")
    report, glue, dirs = argv[1], argv[2:cut], argv[cut + 1:] + SYSTEM_DIRS
    any_missing = False
    with open(report, "w") as out:
        for g in glue:
            _, undefined, needed = dynamic_symbols(g)
            libs = {}
            have, missing_libs = provided(needed, dirs, libs)
            missing = sorted(undefined - have)
            vt = [s for s in missing if s.startswith(("_ZTV", "_ZTI", "_ZTS"))]
            base = os.path.basename(g)
            print("%s: %d undefined symbols, %d missing (%d vtables/type info)%s" % (
                base, len(undefined), len(missing), len(vt),
                "; libraries not found: " + ", ".join(missing_libs) if missing_libs else ""))
            for name, path in sorted(libs.items()):
                out.write("%s needs %s -> %s\n" % (base, name, path or "NOT FOUND"))
            for m, d in zip(missing, demangle(missing)):
                out.write("%s missing %s  %s\n" % (base, m, d if d != m else ""))
            any_missing = any_missing or bool(missing) or bool(missing_libs)
    return 1 if any_missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
