/// The PostgreSQL schema: the tables of `SQLiteStore`'s (documents, the change log as runs,
/// snapshots, versions, sessions, pasteboards, meta) and the nodes' shared `idempotency_keys`
/// (`PostgresIdempotencyKeys`), created and migrated on open.
///
/// Migrations are numbered; `tandem_schema_version` holds the numbers applied. Each runs in
/// its own transaction with its number, under a session advisory lock taken for the schema's
/// name, so that two processes opening one database at once migrate it once: the second
/// waits for the lock, then finds the migrations applied.
///
/// Text keys are `COLLATE "C"`: compared and sorted by their UTF-8 bytes, as SQLite's BINARY
/// collation does, whatever the database's locale.
enum PostgresSchema {
    /// `pg_advisory_lock(key, hashtext(schema))`: the first half of the key says "Tandem
    /// migrations" ('TM').
    static let lockClass = 0x544D

    static let migrations: [(version: Int, sql: String)] = [
        (1, """
            CREATE TABLE documents (
                id TEXT COLLATE "C" PRIMARY KEY,
                title BYTEA NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                modified DOUBLE PRECISION NOT NULL,
                metadata BYTEA,
                revision BIGINT NOT NULL DEFAULT 0
            );
            CREATE TABLE change_runs (
                document TEXT COLLATE "C" NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                last BIGINT NOT NULL,
                first BIGINT NOT NULL,
                payload BYTEA NOT NULL,
                PRIMARY KEY (document, last)
            );
            CREATE TABLE snapshots (
                document TEXT COLLATE "C" PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
                revision BIGINT NOT NULL,
                payload BYTEA
            );
            CREATE TABLE versions (
                document TEXT COLLATE "C" NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                number BIGINT NOT NULL,
                revision BIGINT NOT NULL,
                time DOUBLE PRECISION NOT NULL,
                text BYTEA NOT NULL,
                name BYTEA,
                PRIMARY KEY (document, number)
            );
            CREATE TABLE sessions (
                id TEXT COLLATE "C" PRIMARY KEY,
                token_hash BYTEA,
                name BYTEA NOT NULL,
                color TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                last_seen DOUBLE PRECISION NOT NULL
            );
            CREATE TABLE pasteboards (
                name TEXT COLLATE "C" PRIMARY KEY,
                owner TEXT,
                persistent BOOLEAN NOT NULL,
                change_count BIGINT NOT NULL,
                payload BYTEA
            );
            CREATE TABLE meta (
                key TEXT COLLATE "C" PRIMARY KEY,
                value BYTEA
            );
            """),
        // The cluster's feed (docs/scale-out.md): every unit a node commits bumps the clock row
        // (taken last, held until COMMIT, so seq order is commit order) and names what it
        // touched, so other nodes know what to catch up on.
        (2, """
            CREATE TABLE cluster_clock (id INTEGER PRIMARY KEY, seq BIGINT NOT NULL);
            INSERT INTO cluster_clock (id, seq) VALUES (1, 0);
            CREATE TABLE cluster_log (
                seq BIGINT PRIMARY KEY,
                node TEXT NOT NULL,
                kind TEXT NOT NULL,
                key TEXT COLLATE "C" NOT NULL,
                time DOUBLE PRECISION NOT NULL
            );
            """),
        // The nodes' shared Idempotency-Key answers (`PostgresIdempotencyKeys`).
        (3, """
            CREATE TABLE idempotency_keys (
                key TEXT COLLATE "C" PRIMARY KEY,
                fingerprint BYTEA NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                node TEXT NOT NULL,
                started DOUBLE PRECISION NOT NULL,
                status INTEGER,
                headers BYTEA,
                body BYTEA,
                answered DOUBLE PRECISION
            );
            CREATE INDEX idempotency_keys_age ON idempotency_keys ((coalesce(answered, started)));
            """),
        // Keys are kept as digests and answers sealed from now on (`SealedAnswers`): rows kept
        // the old way (plain, at most a day's) go.
        (4, "DELETE FROM idempotency_keys"),
        // Changes that left the servers' memory, as `GET …/edits` serves them (`ArchivedRun`).
        // Nodes archive what they trim alone, so runs may overlap: one per first revision.
        (5, """
            CREATE TABLE change_archive (
                document TEXT COLLATE "C" NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                first BIGINT NOT NULL,
                last BIGINT NOT NULL,
                bytes BIGINT NOT NULL,
                payload BYTEA NOT NULL,
                PRIMARY KEY (document, first)
            );
            CREATE INDEX change_archive_last ON change_archive (document, last);
            """),
        // People who sign in (`StoredUser`), and the user each session belongs to.
        (6, """
            CREATE TABLE users (
                id TEXT COLLATE "C" PRIMARY KEY,
                name BYTEA NOT NULL UNIQUE,
                display_name BYTEA NOT NULL,
                password_hash TEXT,
                created DOUBLE PRECISION NOT NULL
            );
            ALTER TABLE sessions ADD COLUMN user_id TEXT COLLATE "C";
            """),
        // Pasteboards are private to their owner unless shared with everyone. Those of nobody
        // (an ended session's) were everyone's, and stay so.
        (7, """
            ALTER TABLE pasteboards ADD COLUMN shared BOOLEAN NOT NULL DEFAULT false;
            UPDATE pasteboards SET shared = true WHERE owner IS NULL;
            """),
        // What each person opened (`RecentDocument`), the grants and expiry of a session an
        // embedding application's token started, and the people a pasteboard is shared with. No foreign key to `documents`: a key-share
        // lock on a document's row would join the lock order `PostgresWriter.lockHeads` keeps.
        (8, """
            CREATE TABLE recent_documents (
                person TEXT COLLATE "C" NOT NULL,
                document TEXT COLLATE "C" NOT NULL,
                opened DOUBLE PRECISION NOT NULL,
                link TEXT COLLATE "C",
                PRIMARY KEY (person, document)
            );
            CREATE INDEX recent_documents_document ON recent_documents (document);
            ALTER TABLE sessions ADD COLUMN grants TEXT;
            ALTER TABLE sessions ADD COLUMN expires DOUBLE PRECISION;
            ALTER TABLE pasteboards ADD COLUMN shared_with TEXT;
            """),
        // Each open document is owned by one node at a time (`PostgresLeases`): the nodes
        // alive, on PostgreSQL's clock, and the epoch each document's owner commits under.
        (9, """
            CREATE TABLE cluster_nodes (
                node TEXT COLLATE "C" PRIMARY KEY,
                address TEXT NOT NULL,
                expires TIMESTAMPTZ NOT NULL
            );
            CREATE TABLE document_leases (
                document TEXT COLLATE "C" PRIMARY KEY,
                node TEXT COLLATE "C" NOT NULL,
                epoch BIGINT NOT NULL
            );
            """),
        // Each document's length (UTF-16 units) after its last change, for the lists of a
        // node that does not hold it (`PostgresStore.directory`); null until known.
        (10, """
            ALTER TABLE documents ADD COLUMN length BIGINT;
            """),
        // The key nodes present to each other (`PostgresLeases.clusterKey`): whoever can read
        // this table can do anything a node can, so knowing it proves a request is a node's.
        (11, """
            CREATE TABLE cluster_secret (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                key TEXT NOT NULL
            );
            """),
        // Automatic checkpoints (autosave's), which a later one may take the place of, apart
        // from named saves; who wrote each part of a version's text; its length in UTF-16
        // units, so that a list of versions need not read their texts (null before).
        (12, """
            ALTER TABLE versions ADD COLUMN automatic BOOLEAN NOT NULL DEFAULT false;
            ALTER TABLE versions ADD COLUMN since DOUBLE PRECISION;
            ALTER TABLE versions ADD COLUMN authorship BYTEA;
            ALTER TABLE versions ADD COLUMN length BIGINT;
            """),
    ]

    static var latestVersion: Int { migrations.last!.version }

    /// Creates the schema (if named) and applies the migrations not applied yet, under the
    /// advisory lock. Returns the version the schema is at.
    @discardableResult
    static func migrate(_ connection: PGConnection) throws(StoreError) -> Int {
        let schema = connection.schema ?? "public"
        try connection.query("SELECT pg_advisory_lock(\(lockClass), hashtext($1))", [.text(schema)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(lockClass), hashtext($1))", [.text(schema)]) }
        if let name = connection.schema {
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(PGConnection.identifier(name))")
        }
        try connection.execute("CREATE TABLE IF NOT EXISTS tandem_schema_version (version INTEGER PRIMARY KEY)")
        let applied = try connection.query("SELECT coalesce(max(version), 0)::bigint FROM tandem_schema_version")
        var version = applied.int(0, 0)
        guard version <= latestVersion else {
            throw .io("the database's schema is at version \(version), newer than this Tandem's \(latestVersion)")
        }
        for migration in migrations where migration.version > version {
            do {
                try connection.execute("BEGIN")
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO tandem_schema_version (version) VALUES ($1::bigint)", [.int(migration.version)])
                try connection.execute("COMMIT")
            } catch {
                if connection.inTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
            version = migration.version
        }
        return version
    }
}
