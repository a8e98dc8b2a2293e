"""Read the public header include/vbmc/vbmc.h: its functions, status codes and numeric macros.

The header is regular by design (one `VBMC_API` declaration per function, one enum, numeric
`#define VBMC_*` macros), so a few regular expressions are enough. Every binding tool uses this
module, so no binding copies a constant or a signature by hand.
"""
import re
from dataclasses import dataclass
from typing import List


@dataclass
class Function:
    name: str
    return_type: str
    params: List[str]  # declarations as written, e.g. "const double *x0"


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def functions(header_text):
    """The exported functions, in header order."""
    text = _strip_comments(header_text)
    found = []
    for match in re.finditer(r"VBMC_API\s+([^;(]*?)\b(vbmc_\w+)\s*\(([^)]*)\)\s*;", text):
        return_type = " ".join(match.group(1).split())
        params = [" ".join(p.split()) for p in match.group(3).split(",")]
        if params == ["void"]:
            params = []
        found.append(Function(match.group(2), return_type, params))
    return found


def status_codes(header_text):
    """(name, value) of every vbmc_status enumerator, e.g. ("VBMC_E_ARG", -1)."""
    text = _strip_comments(header_text)
    body = re.search(r"typedef\s+enum\s+vbmc_status\s*\{(.*?)\}", text, flags=re.S).group(1)
    return [(m.group(1), int(m.group(2)))
            for m in re.finditer(r"(VBMC_\w+)\s*=\s*(-?\d+)", body)]


def numeric_macros(header_text):
    """(name, value) of every `#define VBMC_NAME <integer>`, e.g. ("VBMC_MAX_DIM", 64)."""
    return [(m.group(1), int(m.group(2)))
            for m in re.finditer(r"^#define\s+(VBMC_\w+)\s+(-?\d+)\s*(?:/\*.*)?$",
                                 header_text, flags=re.M)]


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()
