/// What a history entry's group did, in a few words: the start of what it inserted and of what
/// it deleted, and where (docs/API.md, "History").
extension UndoHistory {
    public struct Preview: Sendable, Equatable {
        /// Where its first change began, in the text of that moment.
        public var position: Int
        /// The first `UndoHistory.previewUnits` UTF-16 units of what it inserted (its own
        /// backspaces over its own typing taken back), never cutting a character in two.
        public var inserted: String
        public var deleted: String
        /// How many units it inserted and deleted in all (counted over at most
        /// `previewChanges` of its changes).
        public var insertedCount: Int
        public var deletedCount: Int

        public init(position: Int, inserted: String, deleted: String, insertedCount: Int, deletedCount: Int) {
            self.position = position
            self.inserted = inserted
            self.deleted = deleted
            self.insertedCount = insertedCount
            self.deletedCount = deletedCount
        }
    }

    public static let previewUnits = 40
    /// Changes of one group a preview reads, at most: a long typing run's first ones say enough.
    public static let previewChanges = 512
    /// Entries of each stack (the newest) that carry a preview: a history request stays bounded.
    public static let previewedEntries = 100
}

extension UndoManager {
    /// What group `g` did, read from its changes in the log; for an entry on a redo stack (an
    /// undo's group) what redoing does, the other way round. Nil when its changes left the log.
    func preview(of g: Int32, redo: Bool) -> UndoHistory.Preview? {
        let group = groups[Int(g)]
        let first = max(Int(group.first), log.firstAvailableRevision), last = Int(group.last)
        guard first <= last, last <= log.revision else { return nil }
        var position: Int?
        var inserted: [UInt16] = [], deleted: [UInt16] = []
        var insertedCount = 0, deletedCount = 0
        // Where the group's own typing ends, while it is one stretch: a backspace there takes
        // back what it typed rather than deleting.
        var typingEnd: Int?
        let keep = 4096
        var read = 0
        var r = first
        while r <= last, read < UndoHistory.previewChanges {
            defer { r += 1 }
            guard log.group(r) == g else { continue }
            read += 1
            log.forEachSplice(r) { p, d, n, o in
                if position == nil { position = p }
                if d > 0 {
                    if let end = typingEnd, p + d == end, d <= inserted.count, insertedCount <= keep {
                        inserted.removeLast(d)
                        insertedCount -= d
                        typingEnd = p
                    } else {
                        if deleted.count < keep { deleted += log.state.text[o..<o + min(d, keep)] }
                        deletedCount += d
                        typingEnd = nil
                    }
                }
                if n > 0 {
                    if inserted.count < keep { inserted += log.state.text[(o + d)..<(o + d + min(n, keep))] }
                    insertedCount += n
                    // What it typed last is the buffer's tail: a backspace at its end takes it back.
                    typingEnd = p + n
                }
            }
        }
        if redo { swap(&inserted, &deleted); swap(&insertedCount, &deletedCount) }
        return UndoHistory.Preview(position: position ?? 0, inserted: Self.start(of: inserted), deleted: Self.start(of: deleted),
                                   insertedCount: insertedCount, deletedCount: deletedCount)
    }

    /// The first `previewUnits` units, never ending on half a surrogate pair.
    static func start(of units: [UInt16]) -> String {
        var n = min(units.count, UndoHistory.previewUnits)
        if n > 0, n < units.count, UTF16.isLeadSurrogate(units[n - 1]) { n -= 1 }
        return String(decoding: units[..<n], as: UTF16.self)
    }
}
