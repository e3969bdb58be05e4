/// Archive writes submitted but not yet stored, per document. Changes leave memory before
/// their archive write lands (it is not waited for), so a page of `GET …/edits` that finds
/// no archived run for a revision that left this node's memory waits for those writes
/// before it answers `410`, instead of reporting a change as gone that is about to be there.
///
/// `begin` is called under the document's executor, in the same step that trims the log, so
/// any request that sees the shorter log also sees the write as in flight.
final class ArchivesInFlight: Sendable {
    private struct Entry {
        var count = 0
        var waiters: [@Sendable () -> Void] = []
    }

    private let entries = SharedValue<[String: Entry]>([:])

    /// One more archive write of `id` is on its way (`end` follows when it lands or fails).
    func begin(_ id: String) {
        entries.withLock { $0[id, default: Entry()].count += 1 }
    }

    /// One archive write of `id` landed or failed; the last one out runs the waiters.
    func end(_ id: String) {
        let ready: [@Sendable () -> Void] = entries.withLock { entries in
            guard var entry = entries[id] else { return [] }
            entry.count -= 1
            guard entry.count <= 0 else {
                entries[id] = entry
                return []
            }
            entries[id] = nil
            return entry.waiters
        }
        for waiter in ready { waiter() }
    }

    /// Runs `then` once every archive write of `id` in flight now has landed, and answers
    /// true; answers false (and never runs `then`) when none is in flight.
    func whenLanded(_ id: String, then: @escaping @Sendable () -> Void) -> Bool {
        entries.withLock { entries in
            guard entries[id] != nil else { return false }
            entries[id]!.waiters.append(then)
            return true
        }
    }
}
