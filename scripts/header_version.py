"""Print MAJOR.MINOR.PATCH read from the VBMC_VERSION_* macros of the public header."""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
parts = [re.search(r"#define VBMC_VERSION_%s\s+(\d+)" % name, text).group(1)
         for name in ("MAJOR", "MINOR", "PATCH")]
print(".".join(parts))
