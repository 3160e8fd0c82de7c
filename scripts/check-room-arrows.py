#!/usr/bin/env python3
"""Fails when an arrow between rooms (doc/rooms.txt) does not point down.

Usage: check-room-arrows.py [--source-dir DIR] --build-dir DIR [--cmake PATH]

An arrow is a target linking another target, or depending on it for build
order (add_dependencies) -- the real graph: CMake's --graphviz output,
produced by re-running CMake on the configured build dir into a temporary
directory -- or a source file including another folder's header
(#include "dir/file.h"). An arrow from room A to room B is a violation
when B's layer is not lower than A's; arrows inside a room, and arrows to
anything in no room (tests/, system and external libraries), are not judged.
Also a violation: a library or executable built in a room's folder that
doc/rooms.txt does not declare (found by its CMakeFiles/TARGET.dir in the
build tree; interface libraries have none), and a declared target the build
does not have.

(The graph does not tell a public link from a build-order dependency, so
both are printed as "needs".)

Prints every violation (room, file or target, the arrow), then a summary;
exit status 1 when there is one, 2 when the check itself cannot run, else 0.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rooms as roomlib  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
NODE = re.compile(r'^\s*"(node\d+)"\s*\[\s*label\s*=\s*"([^"]+)"')
EDGE = re.compile(r'^\s*"(node\d+)"\s*->\s*"(node\d+)"')
C_FAMILY = (".cpp", ".h", ".c", ".cc", ".hpp")


def link_graph(cmake, build_dir):
    """(targets, edges) of the configured build: target names, (from, to) pairs."""
    with tempfile.TemporaryDirectory(prefix="room-arrows.") as tmp:
        dot = os.path.join(tmp, "g.dot")
        run = subprocess.run([cmake, f"--graphviz={dot}", build_dir], capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(dot):
            raise RuntimeError(f"cmake --graphviz on {build_dir} failed ({run.returncode}): {run.stderr.strip()}")
        names, edges = {}, []
        with open(dot, encoding="utf-8") as f:
            for line in f:
                if m := NODE.match(line):
                    names[m.group(1)] = m.group(2)
                elif m := EDGE.match(line):
                    edges.append((m.group(1), m.group(2)))
    return set(names.values()), [(names[a], names[b]) for a, b in edges if a in names and b in names]


def target_dirs(build_dir):
    """{target: folder relative to the build dir} from every CMakeFiles/TARGET.dir."""
    found = {}
    for parent, dirs, _ in os.walk(build_dir):
        if os.path.basename(parent) == "CMakeFiles":
            where = os.path.relpath(os.path.dirname(parent), build_dir)
            for d in dirs:
                if d.endswith(".dir"):
                    found[d[:-4]] = "" if where == "." else where
            dirs[:] = []
    return found


def check_links(rooms, cmake, build_dir):
    targets, edges = link_graph(cmake, build_dir)
    declared = {t: r for r in rooms for t in r.targets}
    problems = []
    for target, room in declared.items():
        if target not in targets:
            problems.append(f"{room.dir}/: declares {target}, which the build has no library or executable of")
    for target, where in sorted(target_dirs(build_dir).items()):
        room = roomlib.room_of(rooms, where)
        if target in targets and room and target not in declared:
            problems.append(f"{room.dir}/: target {target} (built in {where}/) is not declared in doc/rooms.txt")
    for source, dest in edges:
        a, b = declared.get(source), declared.get(dest)
        if a and b and a is not b and b.layer >= a.layer:
            problems.append(f"{a.dir}/: target {source} needs {dest}: {a.dir} (layer {a.layer}) -> "
                            f"{b.dir} (layer {b.layer}), {'same' if b.layer == a.layer else 'higher'} layer")
    return problems, len(edges)


def check_includes(rooms, source_dir):
    problems, count = [], 0
    for top in rooms:
        for parent, dirs, files in os.walk(os.path.join(source_dir, top.dir)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(C_FAMILY):
                    continue
                path = os.path.relpath(os.path.join(parent, name), source_dir)
                room = roomlib.room_of(rooms, path)
                if room is not top:
                    continue  # a file of a subfolder that is a room of its own: checked there
                with open(os.path.join(source_dir, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or "/" not in m.group(1):
                            continue
                        count += 1
                        other = roomlib.room_of(rooms, m.group(1))
                        if other and other is not room and other.layer >= room.layer:
                            problems.append(
                                f"{room.dir}/: {path}:{number} includes \"{m.group(1)}\": {room.dir} (layer {room.layer})"
                                f" -> {other.dir} (layer {other.layer}), "
                                f"{'same' if other.layer == room.layer else 'higher'} layer")
    return problems, count


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="Fails when an arrow between rooms does not point down.")
    ap.add_argument("--source-dir", default=here)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake", default="cmake")
    args = ap.parse_args()
    try:
        rooms = roomlib.load(args.source_dir)
        link_problems, edges = check_links(rooms, args.cmake, os.path.abspath(args.build_dir))
    except (OSError, ValueError, RuntimeError) as e:
        print(f"check-room-arrows: {e}", file=sys.stderr)
        return 2
    include_problems, includes = check_includes(rooms, args.source_dir)
    problems = link_problems + include_problems
    for p in problems:
        print(p)
    verdict = f"{len(problems)} arrows not pointing down" if problems else "every arrow points down"
    print(f"check-room-arrows: {len(rooms)} rooms, {edges} link edges, {includes} project includes: {verdict}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
