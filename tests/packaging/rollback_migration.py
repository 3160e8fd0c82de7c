#!/usr/bin/env python3
"""Usage: rollback_migration.py [--check] DB MIGRATION.sql

For the package test's upgrade check (package_runtime.sh).

Without --check: puts the collector database DB back to the schema before
MIGRATION (the newest one, NNNN_name.sql): drops the tables that migration
creates and removes its row from schema_version, so DB is what a release
without that migration left behind. Fails when the migration creates no
table (this check would then need another way back), or when DB is not at
that version.

With --check: passes when DB is at MIGRATION's version again and every table
it creates exists (the collector migrated the database on start).

Either way the file keeps its owner: the collector runs as its own user.
"""
import os
import re
import sqlite3
import sys


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
        tables = re.findall(r"CREATE TABLE\s+(?:IF NOT EXISTS\s+)?(\w+)", f.read(), re.I)
    if not tables:
        print(f"{migration} creates no table: the upgrade check cannot roll it back", file=sys.stderr)
        return 1
    owner = os.stat(db_path)
    db = sqlite3.connect(db_path)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    newest = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    print(f"{os.path.basename(db_path)}: schema version {newest}, tables of migration {version}: "
          + ", ".join(f"{t} ({'present' if t in have else 'missing'})" for t in tables))
    if check:
        ok = newest == version and all(t in have for t in tables)
        db.close()
        return 0 if ok else 1
    if newest != version:
        print(f"expected schema version {version}, found {newest}", file=sys.stderr)
        return 1
    with db:
        for t in tables:
            db.execute(f"DROP TABLE {t}")
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
