"""Print the options table of README.md from the library's own option introspection, or with
--check README.md verify that the README holds the current table (exit 1 if not)."""
import ctypes
import sys

BEGIN, END = "<!-- options-table:begin -->", "<!-- options-table:end -->"


def table(lib_path):
    lib = ctypes.CDLL(lib_path)
    lib.vbmc_opts_count.restype = ctypes.c_int
    for name in ("vbmc_opts_name", "vbmc_opts_type", "vbmc_opts_default", "vbmc_opts_help"):
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = [ctypes.c_int]
    rows = ["| option | type | default | meaning |", "|---|---|---|---|"]
    for i in range(lib.vbmc_opts_count()):
        cells = [lib.vbmc_opts_name(i), lib.vbmc_opts_type(i), lib.vbmc_opts_default(i), lib.vbmc_opts_help(i)]
        name, kind, default, help_text = (c.decode() for c in cells)
        shown = f"`{default}`" if default else "(empty)"
        rows.append(f"| `{name}` | {kind} | {shown} | {help_text} |")
    return "\n".join(rows)


def main():
    current = table(sys.argv[1])
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        text = open(sys.argv[3], encoding="utf-8").read()
        inside = text.split(BEGIN, 1)[1].split(END, 1)[0].strip() if BEGIN in text else ""
        if inside != current:
            print("README.md's options table is out of date; regenerate it with:\n"
                  "  python3 scripts/options-table.py build/src/libvbmc.so")
            sys.exit(1)
        print("options table is current")
        return
    print(current)


main()
