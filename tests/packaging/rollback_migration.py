#!/usr/bin/env python3
"""Usage: rollback_migration.py [--check] DB MIGRATION.sql

For the package test's upgrade check (package_runtime.sh).

Without --check: puts the collector database DB back to the schema before
MIGRATION (the newest one, NNNN_name.sql): drops the tables that migration
creates (under their final names, when it renames them), creates again
(empty, with their indexes, as the earlier migration in the same directory
that made them wrote them) the tables it drops, and
removes its row from schema_version, so DB has the schema a release without
that migration left behind; a migration that adds columns (ALTER TABLE ...
ADD COLUMN) and indexes gets them dropped again. Fails when the migration
creates no table and adds no column (this check would then need another way
back), or when DB is not at that version.

With --check: passes when DB is at MIGRATION's version again and every table
and column it creates exists (the collector migrated the database on start).

Either way the file keeps its owner: the collector runs as its own user.
"""
import os
import re
import sqlite3
import sys


def earlier_definition(migration, version, table):
    """The CREATE TABLE and CREATE INDEX statements of table in the newest
    migration before version (same directory) that creates it."""
    folder = os.path.dirname(os.path.abspath(migration))
    for name in sorted(os.listdir(folder), reverse=True):
        m = re.match(r"(\d+)_.*\.sql$", name)
        if not m or int(m.group(1)) >= version:
            continue
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        create = re.search(rf"CREATE TABLE\s+{table}\s*\(.*?\n\)[^;]*;", text, re.S | re.I)
        if create:
            indexes = re.findall(rf"CREATE (?:UNIQUE )?INDEX\s+\w+\s+ON\s+{table}\s*\([^;]*\);", text, re.I)
            return [create.group(0)] + indexes
    raise SystemExit(f"{migration} drops {table}, which no earlier migration creates")


def main(argv):
    check = argv[:1] == ["--check"]
    if check:
        argv = argv[1:]
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    db_path, migration = argv
    version = int(re.match(r"(\d+)_", os.path.basename(migration)).group(1))
    with open(migration) as f:
        text = f.read()
    created = re.findall(r"CREATE TABLE\s+(?:IF NOT EXISTS\s+)?(\w+)", text, re.I)
    dropped = re.findall(r"DROP TABLE\s+(?:IF EXISTS\s+)?(\w+)", text, re.I)
    # A table rebuilt under a new name and renamed back: the migration leaves
    # the final name, which an earlier migration created.
    renames = re.findall(r"ALTER TABLE\s+(\w+)\s+RENAME TO\s+(\w+)", text, re.I)
    renamed = {old for old, _ in renames}
    tables = [t for t in created if t not in renamed] + [new for _, new in renames]
    columns = re.findall(r"ALTER TABLE\s+(\w+)\s+ADD COLUMN\s+(\w+)", text, re.I)
    indexes = re.findall(r"CREATE (?:UNIQUE )?INDEX\s+(?:IF NOT EXISTS\s+)?(\w+)", text, re.I)
    if not tables and not columns:
        print(f"{migration} creates no table and adds no column: the upgrade check cannot roll it back",
              file=sys.stderr)
        return 1
    owner = os.stat(db_path)
    db = sqlite3.connect(db_path)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    newest = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    def has_column(table, column):
        return table in have and any(r[1] == column for r in db.execute(f"PRAGMA table_info({table})"))
    print(f"{os.path.basename(db_path)}: schema version {newest}, tables and columns of migration {version}: "
          + ", ".join([f"{t} ({'present' if t in have else 'missing'})" for t in tables]
                      + [f"{t}.{c} ({'present' if has_column(t, c) else 'missing'})" for t, c in columns]))
    if check:
        ok = newest == version and all(t in have for t in tables) and all(has_column(t, c) for t, c in columns)
        db.close()
        return 0 if ok else 1
    if newest != version:
        print(f"expected schema version {version}, found {newest}", file=sys.stderr)
        return 1
    restore = [sql for t in dropped for sql in earlier_definition(migration, version, t)]
    with db:
        for i in indexes:  # an indexed column cannot be dropped
            db.execute(f"DROP INDEX IF EXISTS {i}")
        for t in tables:
            db.execute(f"DROP TABLE {t}")
        for t, c in columns:
            db.execute(f"ALTER TABLE {t} DROP COLUMN {c}")
        for sql in restore:
            db.execute(sql)
        db.execute("DELETE FROM schema_version WHERE version = ?", (version,))
    newest = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    db.close()
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db_path + suffix):
            os.chown(db_path + suffix, owner.st_uid, owner.st_gid)
    print(f"rolled back to schema version {newest} (as a release before migration {version} left it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
