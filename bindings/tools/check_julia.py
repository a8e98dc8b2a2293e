"""Check the Julia binding mechanically, since no Julia runtime runs in this project's CI.

    python3 check_julia.py [--project PROJECT_TOML] LIBRARY HEADER JULIA_FILES...

For every `ccall((:name, libvbmc), Ret, (Arg, ...), ...)` in the files: the symbol must be exported
by the shared library (nm -D --defined-only), declared in the header, and called with as many
arguments as the header declares, each of a Julia type that matches the C type (Cint for int,
Ptr{Cdouble} for double *, Ref{Ptr{Cvoid}} for a handle output, ...). No file may export a name
that StatsBase, Distributions, FileIO, Statistics or Base own (sample, logpdf, save, mean, ...):
the binding extends those functions instead. With --project, every package extension the
Project.toml declares must exist as ext/<Name>.jl defining `module <Name>`, import its weak
dependency and define only methods of that dependency's functions. Exits 0 when all match.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import header  # noqa: E402

DOUBLE_POINTER = {"Ptr{Cdouble}", "Ref{Cdouble}", "Ptr{Float64}", "Ref{Float64}"}
HANDLE_OUTPUT = {"Ref{Ptr{Cvoid}}", "Ptr{Ptr{Cvoid}}"}
SCALARS = {
    "int": {"Cint", "Int32"},
    "vbmc_status": {"Cint", "Status"},
    "double": {"Cdouble", "Float64"},
    "size_t": {"Csize_t", "UInt"},
    "uint64_t": {"UInt64"},
    "long long": {"Clonglong", "Int64"},
    "void": {"Cvoid", "Nothing"},
    "const char *": {"Cstring", "Ptr{UInt8}", "Ptr{Cchar}"},
    "char *": {"Ptr{UInt8}", "Ptr{Cchar}"},
    "void *": {"Ptr{Cvoid}"},
    "vbmc_log_joint_fn": {"Ptr{Cvoid}"},
    "vbmc_log_fn": {"Ptr{Cvoid}"},
    "vbmc_log_prior_fn": {"Ptr{Cvoid}"},
}


def c_type(declaration):
    """The type part of a parameter declaration: "const double *x0" -> "const double *"; an array
    parameter is a pointer: "double kl[2]" -> "double *"."""
    declaration = declaration.strip()
    if declaration.endswith("]"):
        declaration = "*".join(declaration[:declaration.index("[")].rsplit(" ", 1))
    match = re.match(r"^(.*?)(\w+)$", declaration.strip())
    return " ".join(match.group(1).replace("*", " * ").split()).replace("* *", "**")


def julia_types_for(ctype):
    """The Julia types that pass a C value of type ctype correctly."""
    normal = " ".join(ctype.replace("*", " * ").split()).replace("* *", "**")
    if normal in SCALARS:
        return SCALARS[normal]
    if normal in ("double *", "const double *"):
        return DOUBLE_POINTER
    if normal == "int *":
        return {"Ptr{Cint}", "Ref{Cint}"}
    if re.fullmatch(r"(const )?vbmc(_opts|_post|_diag)? \*", normal):
        return {"Ptr{Cvoid}"}
    if re.fullmatch(r"(const )?vbmc \* ?const \*", normal):
        return {"Ptr{Ptr{Cvoid}}"}  # an array of run handles
    if re.fullmatch(r"vbmc(_opts|_post|_diag)? \*\*", normal):
        return HANDLE_OUTPUT
    raise ValueError("no Julia type known for C type %r" % ctype)


def split_top_level(text):
    """Split at commas outside (), {} and []."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def closing(text, start):
    """Index of the parenthesis closing the one at text[start]."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise ValueError("unbalanced parentheses")


def ccalls(text):
    """(symbol, return type, [argument types]) of every ccall into libvbmc."""
    found = []
    for match in re.finditer(r"ccall\(\(:(\w+),\s*libvbmc\)\s*,", text):
        rest = text[match.end():]
        call_end = closing("(" + rest, 0)
        fields = split_top_level(rest[:call_end - 1])
        return_type, argument_tuple = fields[0], fields[1]
        if not (argument_tuple.startswith("(") and argument_tuple.endswith(")")):
            raise ValueError("ccall of %s: argument types are not a tuple literal" % match.group(1))
        found.append((match.group(1), return_type, split_top_level(argument_tuple[1:-1])))
    return found


# Functions other packages own: the binding adds methods to them and never exports its own.
OWNED_ELSEWHERE = {"sample", "logpdf", "pdf", "moments", "save", "load", "mean", "cov", "var",
                   "std", "rand", "fit"}


def exported_names(text):
    """Every name in the file's `export` statements (which may continue over lines)."""
    names = []
    for match in re.finditer(r"^export\s+((?:[^\n]*,\s*\n)*[^\n]*)", text, flags=re.M):
        names += [n.strip() for n in match.group(1).replace("\n", " ").split(",") if n.strip()]
    return names


def extension_problems(project):
    """What is wrong with the package extensions declared in Project.toml."""
    text = open(project, encoding="utf-8").read()
    section = re.search(r"^\[extensions\]\n((?:[^\[\n][^\n]*\n?)*)", text, flags=re.M)
    weak = re.search(r"^\[weakdeps\]\n((?:[^\[\n][^\n]*\n?)*)", text, flags=re.M)
    weak_names = set(re.findall(r"^(\w+)\s*=", weak.group(1), flags=re.M)) if weak else set()
    problems = []
    for name, dependency in re.findall(r'^(\w+)\s*=\s*"(\w+)"', section.group(1) if section else "",
                                       flags=re.M):
        path = os.path.join(os.path.dirname(project), "ext", name + ".jl")
        if dependency not in weak_names:
            problems.append("extension %s: %s is not a [weakdeps] entry" % (name, dependency))
        if not os.path.exists(path):
            problems.append("extension %s: %s does not exist" % (name, path))
            continue
        source = open(path, encoding="utf-8").read()
        if not re.search(r"^module %s\b" % name, source, flags=re.M):
            problems.append("extension %s: no `module %s` in %s" % (name, name, path))
        if not re.search(r"^import %s\b" % dependency, source, flags=re.M):
            problems.append("extension %s: it does not import %s" % (name, dependency))
        for defined in re.findall(r"^([\w.]+)\(.*?\)\s*=", source, flags=re.M):
            if not defined.startswith(dependency + "."):
                problems.append("extension %s: defines %s, not a method of %s's functions"
                                % (name, defined, dependency))
    return problems


def exported_symbols(library):
    listing = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
    return {line.split()[-1] for line in listing.splitlines() if " T " in line}


def main():
    arguments = sys.argv[1:]
    project = None
    if arguments[:1] == ["--project"]:
        project, arguments = arguments[1], arguments[2:]
    if len(arguments) < 3:
        sys.exit(__doc__)
    library, header_path, sources = arguments[0], arguments[1], arguments[2:]
    exported = exported_symbols(library)
    declared = {f.name: f for f in header.functions(header.read(header_path))}
    problems, checked, called = [], 0, set()
    if project is not None:
        problems += extension_problems(project)
    for source in sources:
        text = open(source, encoding="utf-8").read()
        clashing = sorted(set(exported_names(text)) & OWNED_ELSEWHERE)
        if clashing:
            problems.append("%s exports %s, owned by StatsBase, Distributions, FileIO, "
                            "Statistics or Base: extend those functions instead"
                            % (os.path.basename(source), ", ".join(clashing)))
        for name, return_type, arguments in ccalls(open(source, encoding="utf-8").read()):
            checked += 1
            called.add(name)
            where = "%s: ccall of %s" % (os.path.basename(source), name)
            if name not in exported:
                problems.append("%s: not exported by %s" % (where, library))
            if name not in declared:
                problems.append("%s: not declared in the header" % where)
                continue
            function = declared[name]
            if len(arguments) != len(function.params):
                problems.append("%s: %d argument types, the header declares %d"
                                % (where, len(arguments), len(function.params)))
                continue
            if return_type not in julia_types_for(function.return_type):
                problems.append("%s: returns %s for C %s"
                                % (where, return_type, function.return_type))
            for position, (julia, declaration) in enumerate(zip(arguments, function.params)):
                if julia not in julia_types_for(c_type(declaration)):
                    problems.append("%s: argument %d is %s for C '%s'"
                                    % (where, position + 1, julia, declaration))
    for problem in problems:
        print("FAIL " + problem)
    print("%d ccalls of %d distinct functions checked against %s and %s; %d problems"
          % (checked, len(called), os.path.basename(library), os.path.basename(header_path),
             len(problems)))
    unused = sorted(set(declared) - called)
    if unused:
        print("header functions the Julia binding does not call: " + ", ".join(unused))
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
