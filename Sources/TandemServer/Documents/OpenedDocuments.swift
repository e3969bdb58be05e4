import Logging
import Synchronization
import TandemStore

/// Notes in the store which documents each person opens (`RecentDocument`): what their
/// `GET /documents` lists besides what they own or were given. Opening is reading a document
/// (`GET /documents/{id}`) or its events with a session. A node writes one person's opening of
/// one document at most once a `interval`, so a client that polls costs no write per request;
/// the store keeps each person's latest `RecentDocument.limit`.
final class OpenedDocuments: Sendable {
    static let interval: Double = 60
    /// The openings a node remembers having written; past it, it forgets them all (and at
    /// worst writes some again).
    static let remembered = 10_000

    private let store: any DocumentStore
    private let logger: Logger
    /// "person NUL document" → when this node last wrote it.
    private let written = Mutex<[String: Double]>([:])

    init(store: any DocumentStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// `caller` opened `document`: with its person's own rights, or with the link it presented.
    func note(_ caller: Caller, opened document: String, at now: Double) {
        guard let person = caller.session?.person else { return }
        let link = caller.link.flatMap { $0.documentID == document ? $0.linkID : nil }
        let key = person + "\u{0}" + document + "\u{0}" + (link ?? "")
        let due = written.withLock { written -> Bool in
            if let last = written[key], now - last < Self.interval { return false }
            if written.count >= Self.remembered { written.removeAll(keepingCapacity: true) }
            written[key] = now
            return true
        }
        guard due else { return }
        store.submit([.recordOpened(person: person, RecentDocument(documentID: document, opened: now, link: link))]) { [logger] result in
            if case .failure(let error) = result { logger.warning("could not note an opened document: \(error)") }
        }
    }
}
