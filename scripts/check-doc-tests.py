#!/usr/bin/env python3
"""Every test a document names must exist (run by `make lint`).

The documents back their claims with test names, `SuiteTests` or `SuiteTests.testName`; a test
renamed or removed leaves a claim pointing at nothing. This looks each name up among what
Tests/ declares (suites and the test folders; a member among the declarations of the files that
declare or extend its suite: test functions, nested types, properties; for `Name.swift`, the
files), and
prints every name it cannot find with its document and line. A name written with a trailing
"…" stands for any declaration it begins. History that names a test since removed says so on
the same line ("removed"), and is not checked.
"""
import pathlib
import re
import sys

repo = pathlib.Path(__file__).resolve().parent.parent
declared = {folder.name for folder in (repo / "Tests").iterdir() if folder.is_dir()}
declaration = re.compile(r"\b(?:struct|class|enum|extension|func|let|var|case)\s+`?(\w+)")
suite_declaration = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|final|private|fileprivate|internal)\s+)*(?:struct|class|enum|extension)\s+(\w+Tests)\b", re.M)
# What each suite holds: the declarations of every file that declares or extends it.
members = {}
files = set()
for source in (repo / "Tests").rglob("*.swift"):
    text = source.read_text(encoding="utf-8")
    names = declaration.findall(text)
    declared.update(names)
    for suite in suite_declaration.findall(text):
        members.setdefault(suite, set()).update(names)
    files.add(source.stem)

documents = [repo / "README.md", repo / "PROVENANCE.md", *sorted((repo / "docs").glob("*.md")),
             *sorted((repo / "bench").rglob("*.md")), *sorted((repo / "man").glob("*.[0-9]"))]
reference = re.compile(r"\b(\w+Tests)(?:\.(\w+)(…)?)?")
missing = []
for document in documents:
    for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
        if "removed" in line:
            continue
        for suite, member, ellipsis in reference.findall(line):
            if member == "swift":
                found = suite in files
            elif ellipsis:
                found = any(name.startswith(member) for name in members.get(suite, ()))
            else:
                found = suite in declared and (not member or member in members.get(suite, ()))
            if not found:
                missing.append(f"{document.relative_to(repo)}:{number}: {suite}{'.' + member if member else ''} is not in Tests/")
if missing:
    print("\n".join(missing), file=sys.stderr)
    print(f"check-doc-tests: {len(missing)} test name(s) in the documents name nothing; rename them with the test", file=sys.stderr)
    sys.exit(1)
