#!/usr/bin/env python3
"""Fails when a room README's file table does not match the room's folder.

Usage: check-room-readmes.py [--source-dir DIR]

Applies to every room of doc/rooms.txt whose folder has a README.md with the
heading line "## Files in this folder" (the file table's heading; a README
without it is not checked, and one with a plain "## Files" heading is named in
the summary as not checked yet). Every source file (.cpp .h .c .js .mjs) directly in the room's
folder must appear in the README as a table cell ("| name.cpp |") or in
backquotes ("`name.cpp`"); and every such file name in the first column of a
table under that heading must exist in the folder (names with a "/" are left
alone: they point elsewhere).

Prints every file missing from a table and every row naming no file, then a
summary; exit status 1 when there is one, 2 when doc/rooms.txt cannot be
read, else 0.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rooms as roomlib  # noqa: E402

FILES_HEADING = re.compile(r"^##\s+Files in this folder\s*$")
OLD_HEADING = re.compile(r"^##\s+Files\s*$")
FILE_NAME = re.compile(r"^[\w.+-]+(" + "|".join(re.escape(e) for e in roomlib.SOURCE_EXTENSIONS) + r")$")


def mentioned(readme, name):
    n = re.escape(name)
    return re.search(rf"\|\s*{n}\s*\||`{n}`", readme) is not None


def files_section_rows(lines):
    """First cells of the table rows under the file table's heading, up to the next heading."""
    inside, cells = False, []
    for line in lines:
        if FILES_HEADING.match(line):
            inside = True
        elif inside and line.startswith("#"):
            inside = False
        elif inside and line.lstrip().startswith("|"):
            cells.append(line.strip().strip("|").split("|")[0])
    return cells


def check_room(source_dir, room, unchecked):
    readme_path = os.path.join(source_dir, room.dir, "README.md")
    if not os.path.isfile(readme_path):
        return None
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    lines = readme.splitlines()
    if not any(FILES_HEADING.match(line) for line in lines):
        if any(OLD_HEADING.match(line) for line in lines):
            unchecked.append(f"{room.dir}/README.md")
        return None
    folder = os.path.join(source_dir, room.dir)
    present = sorted(n for n in os.listdir(folder)
                     if n.endswith(roomlib.SOURCE_EXTENSIONS) and os.path.isfile(os.path.join(folder, n)))
    problems = [f"{room.dir}/README.md: no row for {room.dir}/{n}" for n in present if not mentioned(readme, n)]
    for cell in files_section_rows(lines):
        for word in re.findall(r"[^\s`,;()]+", cell):
            if FILE_NAME.match(word) and word not in present:
                problems.append(f"{room.dir}/README.md: lists {word}, which {room.dir}/ does not hold")
    return problems


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="Fails when a room README's file table misses a file of its room.")
    ap.add_argument("--source-dir", default=here)
    args = ap.parse_args()
    try:
        rooms = roomlib.load(args.source_dir)
    except (OSError, ValueError) as e:
        print(f"check-room-readmes: {e}", file=sys.stderr)
        return 2
    problems, checked, unchecked = [], [], []
    for room in rooms:
        found = check_room(args.source_dir, room, unchecked)
        if found is not None:
            checked.append(room.dir)
            problems += found
    for p in problems:
        print(p)
    verdict = f"{len(problems)} problems" if problems else "every file in its table"
    print(f"check-room-readmes: file tables of {', '.join(checked) or 'no room'} "
          f"({len(rooms) - len(checked)} rooms have none yet): {verdict}")
    if unchecked:
        print(f"check-room-readmes: not checked, a \"## Files\" heading instead of \"## Files in this folder\": "
              f"{', '.join(unchecked)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
