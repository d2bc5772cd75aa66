#!/usr/bin/env python3
"""The module rules of docs/ARCHITECTURE.md, checked over the sources.

SwiftPM lets a target import a module it only reaches through another dependency
(`--explicit-target-dependency-import-check` accepts transitive ones), so a target's real
dependencies drift away from Package.swift. This reads the package as SwiftPM sees it
(`swift package dump-package`) and every `import` line, and fails when:
  - a target imports a module of this package it does not declare directly;
  - a shipped target imports Foundation (tens of MB in a static binary);
  - a game's rules (`*Model.swift`, `*Autoplayer.swift`) import more than the standard
    library and GameCore: rules stay plain values, testable and replayable.
Prints one line per problem and exits 1; prints the count checked and exits 0 when clean.
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the C library: any target may import them.
SYSTEM = {"Glibc", "Foundation", "XCTest", "Dispatch", "Synchronization", "Testing", "_Concurrency"}
RULES_ALLOWED = {"GameCore", "Glibc"}
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+)?import\s+(?:(?:class|struct|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dump = subprocess.run([os.environ.get("SWIFT", "swift"), "package", "dump-package"], cwd=root,
                          check=True, capture_output=True, text=True).stdout
    targets = json.loads(dump)["targets"]
    names = {t["name"] for t in targets}
    problems = []
    files = 0
    for target in targets:
        if target["type"] == "system":
            continue
        declared = set()
        for dep in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dep:
                    declared.add(dep[kind][0])
        path = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
        shipped = target["type"] in ("regular", "executable") and not path.startswith("Tests")
        for folder, _, entries in os.walk(os.path.join(root, path)):
            for entry in sorted(entries):
                if not entry.endswith(".swift"):
                    continue
                files += 1
                file = os.path.relpath(os.path.join(folder, entry), root)
                is_rules = entry.endswith("Model.swift") or entry.endswith("Autoplayer.swift")
                with open(os.path.join(root, file), encoding="utf-8") as source:
                    for number, line in enumerate(source, 1):
                        match = IMPORT.match(line)
                        if not match:
                            continue
                        module = match.group(1)
                        where = f"{file}:{number}: {target['name']}"
                        if module in names and module != target["name"] and module not in declared:
                            problems.append(f"{where} imports {module} without declaring it in Package.swift")
                        if shipped and module == "Foundation":
                            problems.append(f"{where} imports Foundation (shipped modules must not link it)")
                        if is_rules and module not in RULES_ALLOWED:
                            problems.append(f"{where}: a game's rules import only the standard library and GameCore, not {module}")
                        if module not in names and module not in SYSTEM:
                            problems.append(f"{where} imports {module}, which is neither in the package nor a system module")
    for problem in problems:
        print(problem)
    print(f"check-imports: {len(targets)} targets, {files} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
