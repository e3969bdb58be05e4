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

    /// Whether the version this request writes at `time` takes the place of `newest`.
    func replaces(_ newest: NewestVersion?, at time: Double) -> Bool {
        guard automatic, let newest, newest.automatic else { return false }
        return time - (newest.since ?? -.infinity) < Self.checkpointSpan
    }
}
