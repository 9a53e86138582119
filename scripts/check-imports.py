#!/usr/bin/env python3
"""Declare what you import, import what you declare: Package.swift against the imports of every Swift target.

Usage: python3 scripts/check-imports.py  (from anywhere; it runs `swift package dump-package` at the repository root
and in Fuzz/)

For each Swift target of the root package (Sources/*, Tests/*, the example's test target) and of the fuzz package
(Fuzz/Package.swift) it reads the modules its files import and the dependencies the manifest declares for it, and
prints one line per mismatch:

    HeraldCLI: imports NIOCore, not declared
    HeraldCLI: declares Prometheus, imports it nowhere

then exits 1; with no mismatch it prints a one-line summary and exits 0. Why it matters: an import that is not declared
builds only because another dependency happens to bring the module along (and breaks when that one goes); a dependency
that is not imported is built and linked for nothing, and reads as a layer that is not there.
"""

import json
import os
import re
import subprocess
import sys

# The toolchain's own modules: imported freely, never declared.
TOOLCHAIN_MODULES = {
    "_Concurrency",
    "_StringProcessing",
    "CoreFoundation",
    "Darwin",
    "Dispatch",
    "Foundation",
    "FoundationEssentials",
    "FoundationInternationalization",
    "FoundationNetworking",
    "FoundationXML",
    "Glibc",
    "Musl",
    "Observation",
    "os",
    "RegexBuilder",
    "Swift",
    "Synchronization",
    "Testing",
    "WinSDK",
    "XCTest",
}

# Products whose module is not named after the product (product name → module name). None today: every product Herald
# depends on is named after its one module (checked in .build/checkouts/*/Package.swift, 2026-11-28).
PRODUCT_MODULES: dict[str, str] = {}

# Dependencies a target declares without importing them, each with its reason (Package.swift says the same beside it).
# (target, module) → why. Empty today; add one only with a reason a reader can check.
NOT_IMPORTED: dict[tuple[str, str], str] = {}

IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"  # @testable, @_exported, @preconcurrency, @_implementationOnly, @_spi(X)
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"  # access-level imports
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var|actor)\s+)?"  # import struct X.Y
    r"([A-Za-z_][A-Za-z0-9_]*)"
)
CONDITION = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")
CAN_IMPORT = re.compile(r"canImport\(\s*([A-Za-z_][A-Za-z0-9_]*)")


def imports_of(path):
    """The modules a Swift file imports, as {module: optional}.

    An import is optional when an enclosing `#if canImport(X)` names the same module: the file itself says it builds
    without it (the example's tests, which import OrderNotifier only in the example's own package). Comments and
    multi-line string literals (a Python script inside a test, say) are skipped.
    """
    found = {}
    conditions = []  # one list of canImport names per open #if
    in_block_comment = False
    in_string = False
    with open(path, encoding="utf-8") as source:
        for line in source:
            if in_block_comment:
                if "*/" not in line:
                    continue
                line = line.split("*/", 1)[1]
                in_block_comment = False
            if line.count('"""') % 2 == 1:
                in_string = not in_string
                continue
            if in_string:
                continue
            code = line.split("//", 1)[0]
            if "/*" in code:
                before, _, after = code.partition("/*")
                if "*/" not in after:
                    in_block_comment = True
                code = before
            condition = CONDITION.match(code)
            if condition:
                keyword, expression = condition.groups()
                if keyword == "if":
                    conditions.append(CAN_IMPORT.findall(expression))
                elif keyword == "elseif" and conditions:
                    conditions[-1] = CAN_IMPORT.findall(expression)
                elif keyword == "else" and conditions:
                    conditions[-1] = []
                elif keyword == "endif" and conditions:
                    conditions.pop()
                continue
            match = IMPORT.match(code)
            if match:
                module = match.group(1)
                optional = any(module in names for names in conditions)
                found[module] = found.get(module, True) and optional
    return found


def swift_files(root, target):
    """The Swift files of a target: its path (explicit, or SwiftPM's default), narrowed by `sources`, less `exclude`."""
    default = "Tests" if target["type"] == "test" else "Sources"
    base = os.path.join(root, target.get("path") or os.path.join(default, target["name"]))
    tops = [os.path.join(base, source) for source in target.get("sources") or [""]]
    excluded = [os.path.normpath(os.path.join(base, item)) for item in target.get("exclude", [])]
    files = []
    for top in tops:
        candidates = [top] if os.path.isfile(top) else []
        for directory, subdirectories, names in os.walk(top):
            subdirectories.sort()
            candidates += [os.path.join(directory, name) for name in sorted(names)]
        for candidate in candidates:
            candidate = os.path.normpath(candidate)
            if not candidate.endswith(".swift"):
                continue
            if any(candidate == item or candidate.startswith(item + os.sep) for item in excluded):
                continue
            files.append(candidate)
    return files


def declared_modules(dependency, target_names):
    """The module a dependency of the dump brings: a target's name, or a product's module."""
    kind, value = next(iter(dependency.items()))
    name = value[0]
    if kind == "target" or (kind == "byName" and name in target_names):
        return name
    return PRODUCT_MODULES.get(name, name)


def check(root, mismatches):
    """Checks the package at `root`, appending to `mismatches`; returns how many targets it checked, None on failure."""
    try:
        dump = subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.stderr.write(getattr(error, "stderr", "") or f"{error}\n")
        print(f"check-imports: `swift package dump-package` failed in {root}", file=sys.stderr)
        return None
    package = json.loads(dump.stdout)
    target_names = {target["name"] for target in package["targets"]}

    checked = 0
    for target in package["targets"]:
        if target["type"] not in ("regular", "executable", "test", "macro"):
            continue
        files = swift_files(root, target)
        if not files:
            continue  # a C target: its #includes are not imports
        checked += 1
        name = target["name"]
        declared = {declared_modules(dependency, target_names) for dependency in target["dependencies"]}
        imported = {}
        for path in files:
            for module, optional in imports_of(path).items():
                imported[module] = imported.get(module, True) and optional
        for module in sorted(imported):
            if module in declared or module in TOOLCHAIN_MODULES or module == name or imported[module]:
                continue
            mismatches.append(f"{name}: imports {module}, not declared")
        for module in sorted(declared):
            if module in imported or (name, module) in NOT_IMPORTED:
                continue
            mismatches.append(f"{name}: declares {module}, imports it nowhere")
    return checked


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mismatches = []
    checked = 0
    # The root package, then the fuzz targets' own package (which names the root's products).
    for package_root in (root, os.path.join(root, "Fuzz")):
        count = check(package_root, mismatches)
        if count is None:
            return 2
        checked += count

    for line in mismatches:
        print(line)
    if mismatches:
        print(f"check-imports: {len(mismatches)} mismatches between Package.swift and the imports (above)", file=sys.stderr)
        return 1
    print(f"check-imports: {checked} targets, every import declared and every dependency imported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
