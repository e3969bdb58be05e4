/// Reads a stream of Server-Sent Events that another node wrote (`StreamMirror`,
/// `MirrorJoin`): whole events, each one's `event:` and `id:`, and the bytes it holds. Byte
/// scans over one array, no strings and no slices: a mirror reads every event of a busy
/// document.
enum EventStreamReader {

    /// The whole events of `bytes` (each with its `\n\n`), in order; a tail without one last.
    static func events(_ bytes: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0, i = 1
        while i < bytes.count {
            if bytes[i] == 0x0A && bytes[i - 1] == 0x0A {
                out.append(start..<i + 1)
                start = i + 1
                i += 2
            } else {
                i += 1
            }
        }
        if start < bytes.count { out.append(start..<bytes.count) }
        return out
    }

    /// What an event is, as far as a mirror cares.
    enum Name: Equatable {
        case change, history, presence, relayJoined, other
    }

    static let changeName = Array("change".utf8), historyName = Array("history".utf8), presenceName = Array("presence".utf8)
    static let relayName = Array(ServerSentEvents.relayEvent.utf8)

    /// The `event:` and `id:` of the event at `range`, from its lines before the first `data:`.
    static func header(_ bytes: [UInt8], _ range: Range<Int>) -> (name: Name, id: Int?) {
        var name = Name.other
        var id: Int?
        var line = range.lowerBound
        while line < range.upperBound {
            var end = line
            while end < range.upperBound, bytes[end] != 0x0A { end += 1 }
            if starts(bytes, line..<end, with: "data:") { break }
            if starts(bytes, line..<end, with: "event: ") {
                let value = (line + 7)..<end
                name = equals(bytes, value, changeName) ? .change
                    : equals(bytes, value, historyName) ? .history
                    : equals(bytes, value, presenceName) ? .presence
                    : equals(bytes, value, relayName) ? .relayJoined : .other
            } else if starts(bytes, line..<end, with: "id: ") {
                id = integer(bytes, (line + 4)..<end)
            }
            line = end + 1
        }
        return (name, id)
    }

    /// Whether `needle` occurs within `range` of `bytes`.
    static func contains(_ bytes: [UInt8], _ range: Range<Int>, _ needle: [UInt8]) -> Bool {
        find(bytes, range, needle) != nil
    }

    /// Where `needle` first occurs within `range` of `bytes`.
    static func find(_ bytes: [UInt8], _ range: Range<Int>, _ needle: [UInt8]) -> Int? {
        guard let first = needle.first, range.count >= needle.count else { return nil }
        var i = range.lowerBound
        let last = range.upperBound - needle.count
        while i <= last {
            if bytes[i] == first {
                var k = 1
                while k < needle.count, bytes[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// The integer value of a field `"key":n` in the event's data.
    static func intField(_ bytes: [UInt8], _ range: Range<Int>, _ key: String) -> Int? {
        let needle = Array("\"\(key)\":".utf8)
        guard let at = find(bytes, range, needle) else { return nil }
        var end = at + needle.count
        while end < range.upperBound, (48...57).contains(bytes[end]) { end += 1 }
        return integer(bytes, (at + needle.count)..<end)
    }

    private static func starts(_ bytes: [UInt8], _ range: Range<Int>, with prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard range.count >= n else { return false }
        return prefix.withUTF8Buffer { p in
            for k in 0..<n where bytes[range.lowerBound + k] != p[k] { return false }
            return true
        }
    }

    private static func equals(_ bytes: [UInt8], _ range: Range<Int>, _ word: [UInt8]) -> Bool {
        guard range.count == word.count else { return false }
        for k in 0..<word.count where bytes[range.lowerBound + k] != word[k] { return false }
        return true
    }

    private static func integer(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 18 else { return nil }
        var n = 0
        for i in range {
            guard (48...57).contains(bytes[i]) else { return nil }
            n = n * 10 + Int(bytes[i] - 48)
        }
        return n
    }
}

extension ServerSentEvents {
    /// Finds a `relayJoined` event in whole events: the bytes before it, its revision, the bytes after.
    static func relayJoined(in events: [UInt8]) -> (before: ArraySlice<UInt8>, revision: Int, after: ArraySlice<UInt8>)? {
        let marker = Array("event: \(relayEvent)\n".utf8)
        guard EventStreamReader.find(events, 0..<events.count, marker) != nil else { return nil }
        for range in EventStreamReader.events(events) where EventStreamReader.header(events, range).name == .relayJoined {
            guard let revision = EventStreamReader.intField(events, range, "revision") else { return nil }
            return (events[..<range.lowerBound], revision, events[range.upperBound...])
        }
        return nil
    }
}
