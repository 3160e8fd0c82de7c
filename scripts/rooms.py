"""The room declaration (doc/rooms.txt), read once for the room scripts.

Contract: load(source_dir) returns the rooms in file order; a malformed line
raises ValueError naming it. room_of(rooms, path) is the room holding a
repository-relative path (the longest ROOM_DIR that contains it), or None.
"""
import os
from dataclasses import dataclass, field

SOURCE_EXTENSIONS = (".cpp", ".h", ".c", ".js", ".mjs")


@dataclass
class Room:
    dir: str
    layer: int
    targets: list = field(default_factory=list)
    line: int = 0


def load(source_dir):
    path = os.path.join(source_dir, "doc", "rooms.txt")
    rooms = []
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            words = text.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) < 2 or not words[1].isdigit():
                raise ValueError(f"{path}:{number}: expected ROOM_DIR LAYER TARGETS..., got: {text.strip()}")
            room_dir = words[0].strip("/")
            if not os.path.isdir(os.path.join(source_dir, room_dir)):
                raise ValueError(f"{path}:{number}: {room_dir}/ is no folder of the repository")
            rooms.append(Room(room_dir, int(words[1]), words[2:], number))
    dirs = [r.dir for r in rooms]
    for d in set(dirs):
        if dirs.count(d) > 1:
            raise ValueError(f"{path}: {d} is declared {dirs.count(d)} times")
    return rooms


def room_of(rooms, path):
    best = None
    for room in rooms:
        if path == room.dir or path.startswith(room.dir + "/"):
            if best is None or len(room.dir) > len(best.dir):
                best = room
    return best
