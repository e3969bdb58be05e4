import GRDB

/// The schema, as GRDB migrations so that later versions can add to it.
/// `documents.revision` is the last stored revision: appends move it forward only by
/// compare-and-set, which is what makes revisions gap-free. Changes are stored as runs
/// (`change_runs`, v2), one per document per group commit; changes that left the server's
/// memory are archived in `change_archive` (v3).
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE documents (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL,
                    created REAL NOT NULL,
                    modified REAL NOT NULL,
                    metadata BLOB,
                    revision INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE changes (
                    document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    revision INTEGER NOT NULL,
                    payload BLOB,
                    PRIMARY KEY (document, revision)
                ) WITHOUT ROWID;
                CREATE TABLE snapshots (
                    document TEXT PRIMARY KEY NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    revision INTEGER NOT NULL,
                    payload BLOB
                );
                CREATE TABLE versions (
                    document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    number INTEGER NOT NULL,
                    revision INTEGER NOT NULL,
                    time REAL NOT NULL,
                    text TEXT NOT NULL,
                    name TEXT,
                    PRIMARY KEY (document, number)
                );
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    token_hash BLOB,
                    name TEXT NOT NULL,
                    color TEXT NOT NULL,
                    created REAL NOT NULL,
                    last_seen REAL NOT NULL
                );
                CREATE TABLE pasteboards (
                    name TEXT PRIMARY KEY NOT NULL,
                    owner TEXT,
                    persistent INTEGER NOT NULL,
                    change_count INTEGER NOT NULL,
                    payload BLOB
                );
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value BLOB
                );
                """)
        }
        // The change log as runs of consecutive changes (see `ChangeRun`). The rows of v1
        // become runs of one, so a store written by an older server opens with its history.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE change_runs (
                    document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    last INTEGER NOT NULL,
                    first INTEGER NOT NULL,
                    payload BLOB NOT NULL,
                    UNIQUE (document, last)
                );
                """)
            let rows = try Row.fetchCursor(db, sql: "SELECT document, revision, payload FROM changes")
            let insert = try db.makeStatement(sql: "INSERT INTO change_runs (document, last, first, payload) VALUES (?, ?, ?, ?)")
            while let row = try rows.next() {
                let document: String = row[0]
                let revision: Int = row[1]
                let change = StoredChange(documentID: document, revision: revision, payload: [UInt8](blob: row, 2))
                try insert.execute(arguments: [document, revision, revision, ChangeRun.encode([change]).blob])
            }
            try db.execute(sql: "DROP TABLE changes")
        }
        // Changes that left the server's memory, as `GET …/edits` serves them (`ArchivedRun`).
        // Runs of different nodes may overlap: one per first revision, read by last.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE change_archive (
                    document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    first INTEGER NOT NULL,
                    last INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    payload BLOB NOT NULL,
                    UNIQUE (document, first)
                );
                CREATE INDEX change_archive_last ON change_archive (document, last);
                """)
        }
        // People who sign in (`StoredUser`), and the user each session belongs to.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY NOT NULL,
                    name BLOB NOT NULL UNIQUE,
                    display_name BLOB NOT NULL,
                    password_hash TEXT,
                    created REAL NOT NULL
                );
                ALTER TABLE sessions ADD COLUMN user_id TEXT;
                """)
        }
        // Pasteboards are private to their owner unless shared with everyone. Those of nobody
        // (an ended session's) were everyone's, and stay so.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: """
                ALTER TABLE pasteboards ADD COLUMN shared BOOLEAN NOT NULL DEFAULT 0;
                UPDATE pasteboards SET shared = 1 WHERE owner IS NULL;
                """)
        }
        // What each person opened (`RecentDocument`), the grants and expiry of a session an
        // embedding application's token started, and the people a pasteboard is shared with.
        migrator.registerMigration("v6") { db in
            try db.execute(sql: """
                CREATE TABLE recent_documents (
                    person TEXT NOT NULL,
                    document TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                    opened REAL NOT NULL,
                    link TEXT,
                    PRIMARY KEY (person, document)
                );
                CREATE INDEX recent_documents_document ON recent_documents (document);
                ALTER TABLE sessions ADD COLUMN grants TEXT;
                ALTER TABLE sessions ADD COLUMN expires REAL;
                ALTER TABLE pasteboards ADD COLUMN shared_with TEXT;
                """)
        }
        // Automatic checkpoints (autosave's), which a later one may take the place of, apart
        // from named saves; who wrote each part of a version's text; its length in UTF-16
        // units, so that a list of versions need not read their texts (null before).
        migrator.registerMigration("v7") { db in
            try db.execute(sql: """
                ALTER TABLE versions ADD COLUMN automatic BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE versions ADD COLUMN since REAL;
                ALTER TABLE versions ADD COLUMN authorship BLOB;
                ALTER TABLE versions ADD COLUMN length INTEGER;
                """)
        }
        return migrator
    }
}
