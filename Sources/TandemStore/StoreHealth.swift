import Foundation

/// Whether the store's writes are committing, as the last finished write transaction says:
/// failing from a commit (or WAL flush) that failed for a reason other than a conflict, such
/// as a full disk, until one commits again.
public enum StoreHealth: Sendable, Equatable {
    case ok
    /// `since`: seconds since 1970 of the first failure in a row.
    case failing(StoreError, since: Double)

    /// The health after a finished batch with these results: failing from its first failure
    /// that is not a conflict (a batch fails as a whole for anything else, so one tells for
    /// it), keeping the time of the first failing batch in a row; ok again once one commits.
    mutating func note(_ results: [Result<Void, StoreError>]) {
        var failure: StoreError?
        for case .failure(let error) in results where !error.isConflict {
            failure = error
            break
        }
        switch (failure, self) {
        case (nil, _): self = .ok
        case (_?, .failing): break
        case (let error?, .ok): self = .failing(error, since: Date().timeIntervalSince1970)
        }
    }
}

extension StoreError {
    /// Conflicts and missing records fail one operation; everything else means the store
    /// cannot write at all.
    public var isConflict: Bool {
        switch self {
        case .conflict, .notFound, .leaseLost: true
        default: false
        }
    }

    /// Why the store cannot write, for people (`/healthz`, logs).
    public var reason: String {
        switch self {
        case .full: "the disk is full"
        case .readOnly: "the data folder is read-only"
        case .io(let message): message
        case .conflict(let message), .notFound(let message): message
        case .corrupt(let message): "the database is damaged: \(message)"
        case .closed: "the store is closed"
        case .leaseLost(let document): "document \(document) is owned by another node now"
        }
    }
}
