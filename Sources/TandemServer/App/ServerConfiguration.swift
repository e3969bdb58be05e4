import TandemCore
import TandemHTTP

/// Everything `tandem serve` can be told, with the embedded defaults.
public struct ServerConfiguration: Sendable {
    public var host = "::"
    public var port = 8080
    public var publicDirectory = "./Public"
    public var dataDirectory = "./data"
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// `full`, `normal` or `off`: see TandemStore's `Durability`.
    public var durability = "full"
    /// 0 = one event loop per core.
    public var eventLoops = 0
    /// Seconds of inactivity after which a session ends.
    public var sessionTimeout: Double = 3600
    /// Testing knob: keep only this many changes of each document's log in memory (nil:
    /// the usual 10,000 or more), so stale bases reach `410 revision_trimmed` quickly.
    public var logKept: Int?
    /// Seconds between `: keep-alive` comments on idle event streams.
    public var keepAliveInterval: Double = 15
    /// Seconds of pause that end a "Typing" undo group.
    public var typingPause: Double = 1.0
    /// The longest an event waits to be written with others while earlier writes to the
    /// subscribers are still pending, in milliseconds (`EventChannel`); 0 writes every event
    /// at once.
    public var eventCoalescingMilliseconds: Double = 3
    public var maxBodyBytes = 8 << 20
    public var pasteboardLimits = PasteboardLimits()
    public var maxConnections = 10_000
    /// Seconds to finish in-flight requests on SIGTERM before closing.
    public var shutdownGrace: Double = 10

    /// The access mode of new documents that ask for none: open, editable, locked, private;
    /// nil for private for a signed-in user's and open for others' (`defaultAccess(owner:)`).
    public var defaultAccess: String?
    /// What callers with no user's session, link or operator key may do (`--guests`).
    public var guests: GuestPolicy = .edit
    /// Whether people may make their own local account (`--signup`).
    public var signup: SignupPolicy = .off
    /// The header in which a `trustedProxies` peer names the signed-in user (`--auth-header`).
    public var authHeader: String?
    /// How an embedding application's signed tokens are checked (`--auth-jwt-key` or
    /// `--auth-jwt-secret`, `--auth-jwt-issuer`, `--auth-jwt-audience`); nil takes none.
    public var authJWT: JWTVerifier?
    /// A PostgreSQL URL (`--database`): every durable thing lives there instead of the
    /// SQLite file under `dataDirectory`. Nil for the embedded SQLite store.
    public var databaseURL: String?
    /// The PostgreSQL schema to use (created if absent); nil for the URL's default.
    public var databaseSchema: String?
    /// How the nodes on one PostgreSQL share documents (`--cluster`, docs/scale-out.md).
    public var clusterMode = ClusterMode.leases
    /// `host:port` where the other nodes reach this one (`--advertise`); nil: 127.0.0.1 and
    /// the bound port.
    public var advertise: String?
    /// The operator key (`--admin-key`, `TANDEM_ADMIN_KEY`); nil for none.
    public var adminKey: String?
    /// Bytes of one page of `GET …/edits` unless the client asks for another size (`maxBytes`).
    public var editsPageBytes = 1 << 20
    /// Bytes of changes an event stream's `Last-Event-ID` catch-up may replay; more is a
    /// `reset` event and the client reloads the document.
    public var catchUpBytes = 4 << 20
    /// Bytes of changed text (2 a UTF-16 unit, deleted and inserted) a document's change log
    /// holds in memory; past it the oldest changes go, keeping the newest half.
    public var logBudgetBytes = 128 << 20
    /// The same for all documents' logs together: past it, the largest logs are cut back
    /// first, each to its share (`DocumentPersistence.logShare`).
    public var logTotalBytes = 1 << 30
    /// Bytes (compressed) of changes that left memory the store keeps per document for
    /// `GET …/edits`, the oldest going first; 0 keeps none.
    public var archiveBytes = 64 << 20
    /// The same for all documents together: past it the largest archives are cut back first.
    public var archiveTotalBytes = 4 << 30
    /// Bytes a document's saved versions may hold together (`StoredVersion.storedBytes`): past
    /// it a save drops the oldest automatic checkpoints, and is `507 versions_full` if that is
    /// not enough.
    public var versionBytes = 256 << 20
    /// Bytes one person's pasteboards, and all pasteboards, may hold together.
    public var pasteboardBudget = PasteboardBudget()
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`); their own
    /// connections are not capped per address.
    public var trustedProxies: [CIDR] = []
    /// Per-client rate limits (`--rate-limit`).
    public var rateLimits = RateLimits()
    /// Connections one client address may hold at once; 0 for no cap.
    public var maxConnectionsPerAddress = 1000

    public init() {}
}

/// How the nodes on one PostgreSQL share documents (docs/scale-out.md).
public enum ClusterMode: String, Sendable, CaseIterable {
    /// Every node applies every change, each in the document's one order in the database.
    case sequenced
    /// Each open document has one owner node at a time, by lease; the others forward to it.
    case leases
}
