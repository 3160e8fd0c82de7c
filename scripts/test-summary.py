#!/usr/bin/env python3
"""Prints one line per test label from the JUnit files CTest wrote.

Usage: test-summary.py PHASE_FILE
PHASE_FILE has one line per phase: LABEL WALL_SECONDS JUNIT_PATH|-  (`-`: the
phase did not run, e.g. RDMASCOPE_SKIP_LAB=1). Each test runs in exactly one
phase (scripts/test-all.sh), so a label's counts and wall time are its phase's.
The last line is the plain total "test-all: N passed, N failed, N skipped".
Exit status 0; a JUnit file that cannot be read is reported as such.
"""
import os
import sys
import xml.etree.ElementTree as ET


def count(path):
    """(run, passed, failed, skipped, failed_names) from one CTest JUnit file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    run = passed = failed = skipped = 0
    failed_names = []
    for suite in suites:
        for case in suite.findall("testcase"):
            status = case.get("status", "run")
            if case.find("skipped") is not None or status in ("notrun", "disabled"):
                skipped += 1
                continue
            run += 1
            if case.find("failure") is not None or case.find("error") is not None or status == "fail":
                failed += 1
                failed_names.append(case.get("name", "?"))
            else:
                passed += 1
    return run, passed, failed, skipped, failed_names


def main():
    totals = [0, 0, 0]
    with open(sys.argv[1]) as phases:
        for line in phases:
            parts = line.split()
            if len(parts) != 3:
                continue
            label, wall, junit = parts
            if junit == "-":
                print(f"label {label:<12} not run (skipped by request), wall {wall} s")
                continue
            if not os.path.exists(junit):  # CTest writes none when no test has the label
                print(f"label {label:<12}    0 run (no test has this label), wall {wall} s")
                continue
            try:
                run, ok, bad, skip, names = count(junit)
            except (OSError, ET.ParseError) as e:
                print(f"label {label:<12} no results ({e}), wall {wall} s")
                totals[1] += 1
                continue
            totals[0] += ok
            totals[1] += bad
            totals[2] += skip
            extra = f"  failed: {' '.join(names)}" if names else ""
            print(f"label {label:<12} {run:4d} run, {ok:4d} passed, {bad:3d} failed, {skip:3d} skipped, "
                  f"wall {wall} s{extra}")
    print(f"test-all: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
