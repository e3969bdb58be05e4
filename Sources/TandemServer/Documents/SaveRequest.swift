import TandemStore

/// What a save is asked to write: a version someone saved on purpose (named or not), or
/// autosave's checkpoint.
///
/// Automatic checkpoints collapse, as in Google Docs' version history: a checkpoint takes the
/// place of the one before it while that one is automatic too and stands for less than
/// `checkpointSpan` of time, so a long session of typing leaves one checkpoint per span, not
/// one per pause. A named save is never replaced, and one in between starts a new span.
struct SaveRequest: Sendable, Equatable {
    /// The version's name, if someone gave it one.
    var name: String?
    /// Autosave's checkpoint (`StoredVersion.automatic`).
    var automatic = false

    /// The longest stretch of time one automatic checkpoint stands for.
    static let checkpointSpan: Double = 600

    /// The longest name a version may have, in Unicode scalars (as JSON Schema counts).
    static let maxNameLength = 200

    /// The most versions a document keeps, whatever they hold: bounds the list of them.
    static let maxVersions = 10_000

    /// Whether the version this request writes at `time` takes the place of `newest`.
    func replaces(_ newest: VersionLedger.Entry?, at time: Double) -> Bool {
        guard automatic, let newest, newest.automatic else { return false }
        return time - (newest.since ?? -.infinity) < Self.checkpointSpan
    }

    /// What writing a version of `bytes` (`StoredVersion.storedBytes`) at `time` does to the
    /// versions in `ledger`, within `budget` bytes and `maxCount` versions for all of them: the
    /// checkpoint it takes the place of, and the oldest other checkpoints it drops to make
    /// room (never a version saved on purpose). `versions_full` when those are not enough.
    func plan(_ ledger: VersionLedger, bytes: Int, at time: Double, budget: Int, maxCount: Int = maxVersions) throws(APIError) -> SavePlan {
        let replaced = replaces(ledger.newest, at: time) ? ledger.newest : nil
        var total = ledger.bytes - (replaced?.bytes ?? 0) + bytes
        var count = ledger.entries.count - (replaced == nil ? 0 : 1) + 1
        var dropped: [Int] = []
        for entry in ledger.entries where (total > budget || count > maxCount) && entry.automatic && entry.number != replaced?.number {
            dropped.append(entry.number)
            total -= entry.bytes
            count -= 1
        }
        guard total <= budget, count <= maxCount else {
            let what = total > budget ? "\(total) bytes, past the \(budget) a document's versions may hold" : "more than \(maxCount) versions"
            throw APIError(.insufficientStorage, "versions_full",
                           "this document's saved versions are full: this one would bring them to \(what). "
                           + "Its owner can delete older versions to make room.")
        }
        return SavePlan(replaced: replaced?.number, dropped: dropped, since: automatic ? (replaced?.since ?? time) : nil)
    }
}

/// What a save does besides storing its version (`SaveRequest.plan`).
struct SavePlan: Sendable, Equatable {
    /// The automatic checkpoint it takes the place of.
    var replaced: Int?
    /// The oldest checkpoints it removes to stay within the budget, oldest first.
    var dropped: [Int]
    /// The version's `since`: carried on from the checkpoint it replaces.
    var since: Double?
}

/// A change to one saved version (`DocumentService.editVersion`).
enum VersionEdit: Sendable {
    /// Names it (nil takes the name away) and keeps it: autosave never replaces it.
    case name(String?)
    case remove
}
