#!/usr/bin/env python3
"""Prints the room table: where the product's lines live.

Usage: room-table.py [--source-dir DIR] [--functions-under DIR] [--top N]

Product code: every file git tracks, except those under tests/, bench/,
debian/, doc/, packaging/, schemas/ and scripts/, whose name ends in .cpp .h
.c .js .mjs .css or .html. Lines are newline-terminated lines, blank and
comment lines included.

Prints: lines per top-level folder and per room (doc/rooms.txt; a file
belongs to the longest room folder holding it), each with its share of the
product's total; the product files over 500 lines; the N (5) longest
functions under --functions-under (collector/), measured from each
definition's first to last line as universal-ctags reports them
(ctags --fields=+ne --kinds-c++=f). A tool, not a test: exit status 0, or 2
when the tree cannot be listed.
"""
import argparse
import os
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rooms as roomlib  # noqa: E402

NOT_PRODUCT = ("tests", "bench", "debian", "doc", "packaging", "schemas", "scripts")
PRODUCT_EXTENSIONS = (".cpp", ".h", ".c", ".js", ".mjs", ".css", ".html")
LONG_FILE = 500


def product_files(source_dir):
    listed = subprocess.run(["git", "-C", source_dir, "ls-files", "-z"], capture_output=True, check=True).stdout
    return sorted(p for p in listed.decode().split("\0")
                  if p.endswith(PRODUCT_EXTENSIONS) and p.split("/", 1)[0] not in NOT_PRODUCT
                  and os.path.isfile(os.path.join(source_dir, p)))


def count_lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def longest_functions(source_dir, files, top):
    """[(lines, path, start, end, name)] of the `top` longest C++ function definitions in files."""
    cxx = [f for f in files if f.endswith((".cpp", ".h"))]
    if not cxx:
        return []
    tags = subprocess.run(["ctags", "--fields=+ne", "--kinds-c++=f", "--language-force=C++", "-o", "-"] + cxx,
                          cwd=source_dir, capture_output=True, text=True, check=True).stdout
    found = []
    for line in tags.splitlines():
        cols = line.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" in fields and "end" in fields:
            start, end = int(fields["line"]), int(fields["end"])
            name = cols[0] if "class" not in fields else f"{fields['class']}::{cols[0]}"
            found.append((end - start + 1, cols[1], start, end, name))
    found.sort(key=lambda t: (-t[0], t[1], t[2]))
    return found[:top]


def share(n, total):
    return f"{100.0 * n / total:5.1f} %" if total else "    - %"


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="Prints the room table: where the product's lines live.")
    ap.add_argument("--source-dir", default=here)
    ap.add_argument("--functions-under", default="collector")
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    try:
        rooms = roomlib.load(args.source_dir)
        files = product_files(args.source_dir)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"room-table: {e}", file=sys.stderr)
        return 2
    lines = {f: count_lines(os.path.join(args.source_dir, f)) for f in files}
    total = sum(lines.values())
    print(f"product code: {total} lines in {len(files)} files (tracked .cpp .h .c .js .mjs .css .html outside "
          f"{' '.join(d + '/' for d in NOT_PRODUCT)})")

    per_folder, per_folder_files = defaultdict(int), defaultdict(int)
    per_room, per_room_files = defaultdict(int), defaultdict(int)
    for f, n in lines.items():
        folder = f.split("/", 1)[0] + "/" if "/" in f else "(top level)"
        per_folder[folder] += n
        per_folder_files[folder] += 1
        room = roomlib.room_of(rooms, f)
        key = room.dir + "/" if room else "(in no room)"
        per_room[key] += n
        per_room_files[key] += 1

    print("\nlines per top-level folder")
    for folder, n in sorted(per_folder.items(), key=lambda kv: -kv[1]):
        print(f"  {folder:<24} {n:>7}  {share(n, total)}  {per_folder_files[folder]:>4} files")

    print("\nlines per room (doc/rooms.txt)")
    layers = {r.dir + "/": r.layer for r in rooms}
    for key, n in sorted(per_room.items(), key=lambda kv: (-layers.get(kv[0], -1), kv[0])):
        layer = f"layer {layers[key]}" if key in layers else "       "
        print(f"  {key:<24} {layer}  {n:>7}  {share(n, total)}  {per_room_files[key]:>4} files")

    long_files = sorted(((n, f) for f, n in lines.items() if n > LONG_FILE), reverse=True)
    print(f"\nproduct files over {LONG_FILE} lines: {len(long_files) or 'none'}")
    for n, f in long_files:
        print(f"  {n:>7}  {f}")

    under = args.functions_under.strip("/") + "/"
    try:
        longest = longest_functions(args.source_dir, [f for f in files if f.startswith(under)], args.top)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"\nlongest functions in {under}: ctags failed: {e}")
        return 0
    print(f"\nthe {args.top} longest functions in {under} (lines, first to last)")
    for n, path, start, end, name in longest:
        print(f"  {n:>5}  {path}:{start}-{end}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
