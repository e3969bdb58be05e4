import ArgumentParser
import Foundation
import Logging
import TandemHTTP
import TandemServer

/// `tandem serve`: runs the server until SIGTERM or SIGINT, then shuts down gracefully.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Tandem server.",
        discussion: "Defaults: port 8080, a SQLite file under ./data, the browser client from ./Public."
    )

    @Option(help: "Address to listen on; '::' is IPv6 and IPv4 (env: TANDEM_HOST, default: ::).")
    var host: String?

    @Option(help: "TCP port (env: TANDEM_PORT, default: 8080).")
    var port: Int?

    @Option(name: .customLong("public"), help: "Folder served at / (env: TANDEM_PUBLIC, default: ./Public).")
    var publicDirectory: String?

    @Option(name: .customLong("data"), help: "Folder for the SQLite store (env: TANDEM_DATA, default: ./data).")
    var dataDirectory: String?

    @Option(help: "PEM certificate chain; with --tls-key serves HTTPS (env: TANDEM_TLS_CERT).")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert (env: TANDEM_TLS_KEY).")
    var tlsKey: String?

    @Option(help: """
        full: fsync every commit group, nothing acknowledged is lost; normal: survives a crash \
        of the process but may lose the last commits on power loss; off: no fsync \
        (env: TANDEM_DURABILITY, default: full).
        """)
    var durability: String?

    @Option(help: "Event-loop threads, 0 = one per core (env: TANDEM_EVENT_LOOPS, default: 0).")
    var eventLoops: Int?

    @Option(help: "Seconds before an idle session ends (env: TANDEM_SESSION_TIMEOUT, default: 3600).")
    var sessionTimeout: Double?

    @Option(help: "Seconds of pause that end a Typing undo group (env: TANDEM_TYPING_PAUSE, default: 1).")
    var typingPause: Double?

    @Option(help: "Testing: keep only this many changes of each document's log in memory (env: TANDEM_LOG_KEPT, default: 10,000 or more).")
    var logKept: Int?

    @Option(help: "Seconds between keep-alive comments on event streams (env: TANDEM_KEEP_ALIVE_INTERVAL, default: 15).")
    var keepAliveInterval: Double?

    @Option(name: .customLong("event-coalescing-ms"), help: "Milliseconds an event may wait to go out with others while earlier writes to subscribers are pending; an event finds them idle goes out at once. Higher trades fan-out latency for CPU under load (env: TANDEM_EVENT_COALESCING_MS, default: 3).")
    var eventCoalescing: Double?

    @Option(help: "trace, debug, info, notice, warning, error or critical (env: TANDEM_LOG_LEVEL, default: info).")
    var logLevel: String?

    @Option(name: .customLong("database"), help: "A PostgreSQL URL (postgres://user@host:port/db): documents, sessions and pasteboards live there instead of the SQLite file under --data (env: TANDEM_DATABASE_URL, default: none).")
    var databaseURL: String?

    @Option(help: "The PostgreSQL schema to use, created if absent (env: TANDEM_DATABASE_SCHEMA, default: the URL's).")
    var databaseSchema: String?

    @Option(help: "How nodes on one PostgreSQL share documents: sequenced (every node applies every change) or leases (each document has one owner node; the others forward to it) (env: TANDEM_CLUSTER, default: leases).")
    var cluster: String?

    @Option(help: "host:port where the other nodes of a cluster with leases reach this one (env: TANDEM_ADVERTISE, default: 127.0.0.1 and the bound port).")
    var advertise: String?

    @Option(help: "Access mode of new documents that ask for none: open, editable, locked or private (env: TANDEM_DEFAULT_ACCESS, default: private for a signed-in user's, open for a guest's).")
    var defaultAccess: String?

    @Option(help: "Operator key: sent as Tandem-Admin-Key, it may list, reassign and delete any document and end any session; at least 16 bytes with 8 distinct non-whitespace characters (env: TANDEM_ADMIN_KEY, default: none).")
    var adminKey: String?

    @Option(help: "Bytes of one page of GET …/edits; a client may ask for 1,024 up to the largest body with maxBytes (env: TANDEM_EDITS_PAGE_BYTES, default: 1048576).")
    var editsPageBytes: Int?

    @Option(help: "Bytes of missed changes an event stream resumed with Last-Event-ID may replay; more sends a reset event and the client reloads (env: TANDEM_CATCH_UP_BYTES, default: 4194304).")
    var catchUpBytes: Int?

    @Option(help: "Bytes of changed text a document's change log may hold in memory (deleted and inserted text, 2 bytes a UTF-16 unit); past it the oldest changes are dropped from memory, keeping the newest half, and a base or since older than what is kept is 410 revision_trimmed (env: TANDEM_LOG_BUDGET_BYTES, default: 134217728).")
    var logBudgetBytes: Int?

    @Option(help: "Bytes of changed text all documents' change logs may hold in memory together; past it the largest logs are cut back first, each to an equal share of it, keeping its newest half (env: TANDEM_LOG_TOTAL_BYTES, default: 1073741824).")
    var logTotalBytes: Int?

    @Option(help: "Bytes (gzipped) of changes that left memory the store keeps per document, for GET …/edits to page through; past it the oldest go, and a since older than what is kept is 410 revision_trimmed; 0 keeps none (env: TANDEM_ARCHIVE_BYTES, default: 67108864).")
    var archiveBytes: Int?

    @Option(help: "Bytes a document's saved versions may hold together (their texts, who wrote them, and 256 a version); past it a save drops the oldest autosave checkpoints, and is 507 versions_full if that is not enough (env: TANDEM_VERSION_BYTES, default: 268435456).")
    var versionBytes: Int?

    @Option(help: "Bytes of archived changes all documents may hold together; past it the largest archives are cut back first, each to an equal share (env: TANDEM_ARCHIVE_TOTAL_BYTES, default: 4294967296).")
    var archiveTotalBytes: Int?

    @Option(help: "What guests (no signed-in user, no share link) may do: edit (what each document's mode allows), read (read only), or off (only sign in) (env: TANDEM_GUESTS, default: edit).")
    var guests: String?

    @Option(help: "Whether people may make their own local account with POST /users: off (only the operator adds accounts, with tandem user add) or open (env: TANDEM_SIGNUP, default: off).")
    var signup: String?

    @Option(help: "Bytes one person's pasteboards may hold together; a write past it is 413 pasteboard_session_budget (env: TANDEM_PASTEBOARD_SESSION_BYTES, default: 67108864).")
    var pasteboardSessionBytes: Int?

    @Option(help: "Bytes all pasteboards may hold together; a write past it is 507 pasteboard_storage_full (env: TANDEM_PASTEBOARD_TOTAL_BYTES, default: 1073741824).")
    var pasteboardTotalBytes: Int?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("A proxy (CIDR, IPv4 or IPv6, repeatable) whose X-Forwarded-For names the client for the per-client limits; its own connections are not capped (env: TANDEM_TRUSTED_PROXIES, comma-separated, default: none).", valueName: "cidr"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("auth-header"), help: ArgumentHelp("A header in which a --trusted-proxy that signs people in (oauth2-proxy, Authelia) names the user: POST /sessions from it starts that user's session, and a session used with it must be that user's; from any other peer it is ignored (env: TANDEM_AUTH_HEADER, default: none).", valueName: "name"))
    var authHeader: String?

    @Option(name: .customLong("auth-jwt-key"), help: ArgumentHelp("An embedding application's public key, a PEM file (or the PEM text itself): Ed25519 (tokens with alg EdDSA) or P-256 (ES256). POST /sessions {\"jwt\"} then starts a session of the user its signed token names (env: TANDEM_AUTH_JWT_KEY, default: none).", valueName: "pem"))
    var authJWTKey: String?

    @Option(name: .customLong("auth-jwt-secret"), help: ArgumentHelp("Instead of --auth-jwt-key: an HS256 secret shared with the application, at least 32 bytes; better passed by TANDEM_AUTH_JWT_SECRET or --auth-jwt-secret-file than on the command line, where other users can read it (default: none).", valueName: "secret"))
    var authJWTSecret: String?

    @Option(name: .customLong("auth-jwt-secret-file"), help: ArgumentHelp("A file holding the HS256 secret (one trailing newline is dropped) (env: TANDEM_AUTH_JWT_SECRET_FILE, default: none).", valueName: "path"))
    var authJWTSecretFile: String?

    @Option(name: .customLong("auth-jwt-issuer"), help: ArgumentHelp("The iss every application token must carry (env: TANDEM_AUTH_JWT_ISSUER, default: not checked).", valueName: "iss"))
    var authJWTIssuer: String?

    @Option(name: .customLong("auth-jwt-audience"), help: ArgumentHelp("A value every application token's aud must be or hold (env: TANDEM_AUTH_JWT_AUDIENCE, default: not checked).", valueName: "aud"))
    var authJWTAudience: String?

    @Option(name: .customLong("auth-jwt-leeway"), help: ArgumentHelp("Seconds of clock difference forgiven on an application token's exp, nbf and iat, 0 to 300; a session it starts ends at exp plus this (env: TANDEM_AUTH_JWT_LEEWAY, default: 30).", valueName: "seconds"))
    var authJWTLeeway: Double?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp("NAME=COUNT/SECONDS, repeatable: each client address may make COUNT at once and gets them back over SECONDS; NAME is sessions, documents, pasteboards, links (created) or auth (refused credentials); COUNT 0 turns one off; past it, 429 rate_limited with Retry-After (env: TANDEM_RATE_LIMITS, comma-separated, default: \(RateLimits().description.replacingOccurrences(of: " ", with: ","))).", valueName: "limit"))
    var rateLimits: [String] = []

    @Option(help: "Connections one client address (IPv6: one /64) may hold; one more is answered 429 and closed; 0 = no cap (env: TANDEM_MAX_CONNECTIONS_PER_ADDRESS, default: 1000).")
    var maxConnectionsPerAddress: Int?

    mutating func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if let d = durability, !["full", "normal", "off"].contains(d) {
            throw ValidationError("--durability must be full, normal or off")
        }
        if let p = port, !(0...65535).contains(p) { throw ValidationError("--port must be 0...65535") }
    }

    func resolvedConfiguration() throws -> ServerConfiguration {
        var c = ServerConfiguration()
        c.host = host ?? Environment.string("TANDEM_HOST") ?? c.host
        c.port = try port ?? Environment.int("TANDEM_PORT") ?? c.port
        c.publicDirectory = publicDirectory ?? Environment.string("TANDEM_PUBLIC") ?? c.publicDirectory
        c.dataDirectory = dataDirectory ?? Environment.string("TANDEM_DATA") ?? c.dataDirectory
        c.tlsCertificatePath = tlsCert ?? Environment.string("TANDEM_TLS_CERT")
        c.tlsKeyPath = tlsKey ?? Environment.string("TANDEM_TLS_KEY")
        c.durability = durability ?? Environment.string("TANDEM_DURABILITY") ?? c.durability
        c.eventLoops = try eventLoops ?? Environment.int("TANDEM_EVENT_LOOPS") ?? c.eventLoops
        c.sessionTimeout = try sessionTimeout ?? Environment.double("TANDEM_SESSION_TIMEOUT") ?? c.sessionTimeout
        c.typingPause = try typingPause ?? Environment.double("TANDEM_TYPING_PAUSE") ?? c.typingPause
        c.keepAliveInterval = try keepAliveInterval ?? Environment.double("TANDEM_KEEP_ALIVE_INTERVAL") ?? c.keepAliveInterval
        c.eventCoalescingMilliseconds = try eventCoalescing ?? Environment.double("TANDEM_EVENT_COALESCING_MS") ?? c.eventCoalescingMilliseconds
        c.logKept = try logKept ?? Environment.int("TANDEM_LOG_KEPT")
        if let kept = c.logKept, kept < 1 { throw ValidationError("--log-kept must be 1 or more") }
        c.defaultAccess = defaultAccess ?? Environment.string("TANDEM_DEFAULT_ACCESS") ?? c.defaultAccess
        if let access = c.defaultAccess, !["open", "editable", "locked", "private"].contains(access) {
            throw ValidationError("the default access must be open, editable, locked or private, not \(access)")
        }
        c.adminKey = adminKey ?? Environment.string("TANDEM_ADMIN_KEY")
        c.databaseURL = databaseURL ?? Environment.string("TANDEM_DATABASE_URL")
        c.databaseSchema = databaseSchema ?? Environment.string("TANDEM_DATABASE_SCHEMA")
        if let schema = c.databaseSchema, schema.isEmpty || schema.utf8.count > 63
            || !schema.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (48...57).contains($0) || (97...122).contains($0) }) {
            throw ValidationError("the database schema must be 1 to 63 of a-z, 0-9 and _")
        }
        if let key = c.adminKey, let problem = OperatorKeyRule.problem(with: key) { throw ValidationError(problem) }
        let mode = cluster ?? Environment.string("TANDEM_CLUSTER") ?? c.clusterMode.rawValue
        guard let clusterMode = ClusterMode(rawValue: mode) else { throw ValidationError("--cluster must be sequenced or leases, not \(mode)") }
        c.clusterMode = clusterMode
        c.advertise = advertise ?? Environment.string("TANDEM_ADVERTISE")
        if let address = c.advertise {
            let parts = address.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 253, let port = Int(parts[1]), (1...65535).contains(port) else {
                throw ValidationError("--advertise must be host:port, not \(address)")
            }
        }
        guard (0...1000).contains(c.eventCoalescingMilliseconds) else {
            throw ValidationError("the event coalescing must be 0 to 1000 milliseconds")
        }
        guard c.keepAliveInterval > 0 else { throw ValidationError("the keep-alive interval must be more than 0 seconds") }
        guard ["full", "normal", "off"].contains(c.durability) else {
            throw ValidationError("durability must be full, normal or off, not \(c.durability)")
        }
        if (c.tlsCertificatePath == nil) != (c.tlsKeyPath == nil) {
            throw ValidationError("a TLS certificate and key go together")
        }
        c.editsPageBytes = try editsPageBytes ?? Environment.int("TANDEM_EDITS_PAGE_BYTES") ?? c.editsPageBytes
        guard c.editsPageBytes >= 1024 else { throw ValidationError("--edits-page-bytes must be 1024 or more") }
        c.catchUpBytes = try catchUpBytes ?? Environment.int("TANDEM_CATCH_UP_BYTES") ?? c.catchUpBytes
        guard c.catchUpBytes >= 0 else { throw ValidationError("--catch-up-bytes must be 0 or more") }
        c.logBudgetBytes = try logBudgetBytes ?? Environment.int("TANDEM_LOG_BUDGET_BYTES") ?? c.logBudgetBytes
        guard c.logBudgetBytes >= 1 << 20 else { throw ValidationError("--log-budget-bytes must be 1048576 or more") }
        c.logTotalBytes = try logTotalBytes ?? Environment.int("TANDEM_LOG_TOTAL_BYTES") ?? c.logTotalBytes
        guard c.logTotalBytes >= 1 << 20 else { throw ValidationError("--log-total-bytes must be 1048576 or more") }
        let guestPolicy = guests ?? Environment.string("TANDEM_GUESTS") ?? c.guests.rawValue
        guard let policy = GuestPolicy(rawValue: guestPolicy) else { throw ValidationError("--guests must be edit, read or off, not \(guestPolicy)") }
        c.guests = policy
        let signupPolicy = signup ?? Environment.string("TANDEM_SIGNUP") ?? c.signup.rawValue
        guard let signupPolicy = SignupPolicy(rawValue: signupPolicy) else { throw ValidationError("--signup must be off or open, not \(signupPolicy)") }
        c.signup = signupPolicy
        c.archiveBytes = try archiveBytes ?? Environment.int("TANDEM_ARCHIVE_BYTES") ?? c.archiveBytes
        guard c.archiveBytes == 0 || c.archiveBytes >= 1 << 20 else { throw ValidationError("--archive-bytes must be 0 or 1048576 or more") }
        c.versionBytes = try versionBytes ?? Environment.int("TANDEM_VERSION_BYTES") ?? c.versionBytes
        guard c.versionBytes >= 1 << 12 else { throw ValidationError("--version-bytes must be 4096 or more") }
        c.archiveTotalBytes = try archiveTotalBytes ?? Environment.int("TANDEM_ARCHIVE_TOTAL_BYTES") ?? c.archiveTotalBytes
        guard c.archiveTotalBytes >= 1 << 20 else { throw ValidationError("--archive-total-bytes must be 1048576 or more") }
        c.pasteboardBudget.sessionBytes = try pasteboardSessionBytes ?? Environment.int("TANDEM_PASTEBOARD_SESSION_BYTES")
            ?? c.pasteboardBudget.sessionBytes
        c.pasteboardBudget.totalBytes = try pasteboardTotalBytes ?? Environment.int("TANDEM_PASTEBOARD_TOTAL_BYTES")
            ?? c.pasteboardBudget.totalBytes
        guard c.pasteboardBudget.sessionBytes >= 0, c.pasteboardBudget.totalBytes >= 0 else {
            throw ValidationError("--pasteboard-session-bytes and --pasteboard-total-bytes must be 0 or more")
        }
        let proxies = trustedProxies.isEmpty ? Environment.list("TANDEM_TRUSTED_PROXIES") : trustedProxies
        c.trustedProxies = try proxies.map { text in
            guard let cidr = CIDR(text) else { throw ValidationError("--trusted-proxy \(text): not an IPv4 or IPv6 address or CIDR range") }
            return cidr
        }
        if let header = authHeader ?? Environment.string("TANDEM_AUTH_HEADER") {
            guard !header.isEmpty, header.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw ValidationError("--auth-header \(header): a header name is letters, digits and '-'")
            }
            guard !c.trustedProxies.isEmpty else {
                throw ValidationError("--auth-header needs --trusted-proxy: the header is believed only from the proxy that sets it")
            }
            c.authHeader = header
        }
        c.authJWT = try resolvedJWT()
        if c.authHeader != nil, c.authJWT != nil {
            // Behind such a proxy every session must be the user it names: a token's user never is.
            throw ValidationError("--auth-header and --auth-jwt-…: choose one way for people to sign in through the front door")
        }
        for spec in rateLimits.isEmpty ? Environment.list("TANDEM_RATE_LIMITS") : rateLimits {
            do { try c.rateLimits.set(spec) } catch { throw ValidationError("--rate-limit \(error)") }
        }
        c.maxConnectionsPerAddress = try maxConnectionsPerAddress ?? Environment.int("TANDEM_MAX_CONNECTIONS_PER_ADDRESS") ?? c.maxConnectionsPerAddress
        guard (0...1_000_000).contains(c.maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address must be 0 to 1,000,000")
        }
        return c
    }

    func run() throws {
        let levelName = logLevel ?? Environment.string("TANDEM_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("unknown log level \(levelName)")
        }
        let config = try resolvedConfiguration()
        // Before any thread starts, so that only the watcher ever sees SIGTERM and SIGINT.
        SignalWatcher.block()
        LoggingSystem.bootstrap { LineLogHandler(label: $0, level: level) }
        let logger = Logger(label: "tandem")

        let app = try TandemApp(configuration: config, logger: logger)
        try app.start()
        let scheme = config.tlsCertificatePath == nil ? "http" : "https"
        logger.notice("Tandem listening on \(scheme)://\(config.host):\(app.boundPort) (data: \(config.dataDirectory), durability: \(config.durability))")

        let signal = SignalWatcher.wait()
        logger.notice("received signal \(signal), shutting down")
        app.shutdown(gracePeriod: config.shutdownGrace)
        logger.notice("stopped")
        LogSink.shared.flush()
    }
}
