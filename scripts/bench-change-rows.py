#!/usr/bin/env python3
"""Why the change log is stored as runs (Sources/TandemStore/SQLite/ChangeRun.swift): the same
schema through Python's sqlite3, 20 changes per transaction as a busy document's group commit
has them, stored as a row per change (schema v1) against one row per run (v2). Both in WAL
mode with foreign keys on, in one sitting, alternated; prints µs per change and the ratio.

Usage: scripts/bench-change-rows.py [--transactions 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time

PAYLOAD = (b'{"revision":1,"ops":[2,"x",3],"session":"s_h6aTRenFNsAR","kind":"edit",'
           b'"actionName":"Typing","time":1795507134.5596788,"undo":[1,2]}')


def run(mode: str, transactions: int, per: int, directory: str) -> float:
    path = os.path.join(directory, f"{mode}.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")  # the disk is not what is compared
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("CREATE TABLE documents (id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL)")
    db.execute("CREATE TABLE changes (document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, "
               "revision INTEGER NOT NULL, payload BLOB, PRIMARY KEY (document, revision)) WITHOUT ROWID")
    db.execute("CREATE TABLE change_runs (document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, "
               "last INTEGER NOT NULL, first INTEGER NOT NULL, payload BLOB NOT NULL, UNIQUE (document, last))")
    db.execute("INSERT INTO documents VALUES ('CMMKgwVLjd37', 0)")
    revision = 0
    started = time.perf_counter()
    for _ in range(transactions):
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE documents SET revision = ? WHERE id = ? AND revision = ?",
                   (revision + per, "CMMKgwVLjd37", revision))
        if mode == "rows":
            db.executemany("INSERT INTO changes VALUES (?, ?, ?)",
                           [("CMMKgwVLjd37", revision + i + 1, PAYLOAD) for i in range(per)])
        else:
            db.execute("INSERT INTO change_runs VALUES (?, ?, ?, ?)",
                       ("CMMKgwVLjd37", revision + per, revision + 1, (bytes([len(PAYLOAD)]) + PAYLOAD) * per))
        revision += per
        db.execute("COMMIT")
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed / (transactions * per) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transactions", type=int, default=3000)
    ap.add_argument("--per", type=int, default=20, help="changes per transaction")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tandem-change-rows-") as directory:
        for _ in range(args.rounds):
            rows = run("rows", args.transactions, args.per, directory)
            runs = run("runs", args.transactions, args.per, directory)
            print(f"row per change {rows:6.2f} µs/change   one run per commit {runs:6.2f} µs/change   ratio {rows / runs:4.1f}")


if __name__ == "__main__":
    main()
