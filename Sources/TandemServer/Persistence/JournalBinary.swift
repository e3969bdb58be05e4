import TandemCore
import TandemStore

/// Journal events as bytes, the form a stored change's payload takes (`ChangeCodec`): a
/// keystroke takes a fraction of its JSON size (which spelled out its session, a
/// shortest-round-trip time and the field punctuation; see docs/performance.md), so a group
/// commit's run of changes shares its B-tree page with the runs around it instead of claiming
/// a new page (and the database header and the freelist with it) every transaction or two:
/// fewer WAL frames written, checksummed and flushed per commit. Encoding is a few appends
/// instead of JSON escaping and double printing.
///
/// Layout: `version` (a byte JSON never starts with), then the events, each a tag byte and its
/// fields in declaration order. Integers are unsigned LEB128 varints (a negative one, which
/// no event has, would take ten bytes and still round-trip), a Double its 8-byte
/// little-endian bit pattern (bit for bit, so a replay sees the very time the edit had), a
/// String its UTF-8 byte count then the bytes, an optional String its count plus one (0 for
/// nil), a Bool one byte. An undo scope is an optional String: nil for the document's.
enum JournalBinary {
    static let version: UInt8 = 0x01

    static func isBinary(_ bytes: [UInt8]) -> Bool { bytes.first == version }

    static func encode(_ events: [DocumentEvent]) -> [UInt8] {
        var w = Writer()
        w.bytes.reserveCapacity(1 + 48 * events.count)
        w.bytes.append(version)
        for e in events { w.event(e) }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(JournalCodec.DecodeError) -> [DocumentEvent] {
        guard isBinary(bytes) else { throw .init(description: "journal payload: not the binary form") }
        var r = Reader(bytes: bytes, at: 1)
        var events: [DocumentEvent] = []
        while !r.atEnd { events.append(try r.event()) }
        return events
    }

    /// Tags, each spelled out and never renumbered: stored payloads keep them, and an event
    /// added in the middle of an implicitly numbered list would shift the ones after it.
    enum Tag: UInt8 {
        case edit = 1, undo = 2, redo = 3, begin = 4, end = 5, name = 6, levels = 7, groupsByEvent = 8,
             removeAll = 9, removeAllWithTarget = 10, discardable = 11, disable = 12, enable = 13,
             changeCount = 14, editingDisabled = 15, trim = 16, revert = 17,
             disableSession = 18, enableSession = 19
    }

    /// By the byte `Writer` stores for each.
    static let undoKinds: [UndoRequest.Kind] = [.undo, .redo, .undoNestedGroup]

    /// By the byte `Writer` stores for each.
    static let changeKinds: [DocumentChangeKind] = [.done, .undone, .redone, .cleared]

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func event(_ e: DocumentEvent) {
            switch e {
            case let .edit(op, session, options, time):
                tag(.edit)
                varint(op.baseLength)
                varint(op.positions.count)
                for i in op.positions.indices {
                    varint(op.positions[i]); varint(op.deleted[i]); string(op.inserted[i])
                }
                optionalString(session)
                optionalString(options.actionName)
                bytes.append((options.undoable ? 1 : 0) | (options.newGroup ? 2 : 0) | (options.coalescing ? 4 : 0)
                             | (options.discardable ? 8 : 0))
                double(time)
            case let .revert(request):
                // Kind, scope, requester, group (its id plus one, 0 for none), time.
                tag(.revert)
                bytes.append(UInt8(JournalBinary.undoKinds.firstIndex(of: request.kind)!))
                scope(request.scope); optionalString(request.requester)
                varint(request.group.map { $0 + 1 } ?? 0); double(request.time)
            case let .undo(s, time, nested):
                tag(.undo); scope(s); double(time); bool(nested)
            case let .redo(s, time):
                tag(.redo); scope(s); double(time)
            case let .beginUndoGrouping(session):
                tag(.begin); optionalString(session)
            case let .endUndoGrouping(session):
                tag(.end); optionalString(session)
            case let .setActionName(name, s):
                tag(.name); string(name); scope(s)
            case let .setLevelsOfUndo(n, s):
                tag(.levels); varint(n); scope(s)
            case let .setGroupsByEvent(flag):
                tag(.groupsByEvent); bool(flag)
            case let .removeAllActions(s):
                tag(.removeAll)
                if let s { bool(true); scope(s) } else { bool(false) }
            case let .removeAllActionsWithTarget(session):
                tag(.removeAllWithTarget); string(session)
            case let .setActionIsDiscardable(flag, s):
                tag(.discardable); bool(flag); scope(s)
            case .disableUndoRegistration:
                tag(.disable)
            case .enableUndoRegistration:
                tag(.enable)
            case let .disableSessionUndoRegistration(session):
                tag(.disableSession); string(session)
            case let .enableSessionUndoRegistration(session):
                tag(.enableSession); string(session)
            case let .updateChangeCount(kind):
                tag(.changeCount)
                switch kind {
                case .done: bytes.append(0)
                case .undone: bytes.append(1)
                case .redone: bytes.append(2)
                case .cleared: bytes.append(3)
                }
            case let .setEditingDisabled(flag):
                tag(.editingDisabled); bool(flag)
            case let .trimLog(through):
                tag(.trim); varint(through)
            }
        }

        mutating func tag(_ t: Tag) { bytes.append(t.rawValue) }
        mutating func bool(_ b: Bool) { bytes.append(b ? 1 : 0) }

        mutating func varint(_ n: Int) { LEB128.append(UInt64(bitPattern: Int64(n)), to: &bytes) }

        mutating func double(_ d: Double) {
            var v = d.bitPattern.littleEndian
            withUnsafeBytes(of: &v) { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ s: String) { utf8(s, countPlus: 0) }

        mutating func optionalString(_ s: String?) {
            guard let s else { bytes.append(0); return }
            utf8(s, countPlus: 1)
        }

        /// The byte count (stored `countPlus` more, as `Reader.count` reads it), then the bytes.
        private mutating func utf8(_ s: String, countPlus: Int) {
            var s = s
            s.withUTF8 { utf8 in
                varint(utf8.count + countPlus)
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func scope(_ s: UndoScope) {
            switch s {
            case .document: optionalString(nil)
            case .session(let id): optionalString(id)
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var at: Int
        var atEnd: Bool { at >= bytes.count }

        func failure(_ what: String) -> JournalCodec.DecodeError {
            .init(description: "journal payload, byte \(at): \(what)")
        }

        mutating func byte(_ what: String) throws(JournalCodec.DecodeError) -> UInt8 {
            guard at < bytes.count else { throw failure("ends where \(what) was expected") }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func bool() throws(JournalCodec.DecodeError) -> Bool {
            switch try byte("a boolean") {
            case 0: return false
            case 1: return true
            default: throw failure("a boolean is 0 or 1")
            }
        }

        mutating func varint() throws(JournalCodec.DecodeError) -> Int {
            do throws(LEB128.ReadError) {
                return Int(Int64(bitPattern: try LEB128.read(bytes, at: &at)))
            } catch .truncated {
                throw failure("ends where an integer was expected")
            } catch {
                throw failure("an integer longer than 64 bits")
            }
        }

        /// A count or a length (stored `plus` more): not negative, and not more than the
        /// bytes left could hold.
        mutating func count(_ what: String, plus: Int = 0) throws(JournalCodec.DecodeError) -> Int {
            let n = try varint() &- plus
            guard n >= 0, n <= bytes.count - at else { throw failure("\(what) \(n) is beyond the payload") }
            return n
        }

        mutating func double() throws(JournalCodec.DecodeError) -> Double {
            guard bytes.count - at >= 8 else { throw failure("ends where a time was expected") }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            at += 8
            return Double(bitPattern: v)
        }

        mutating func utf8(_ n: Int) throws(JournalCodec.DecodeError) -> String {
            let range = at..<(at + n)
            at += n
            // A stored string was valid UTF-8 when written: one that is not is damage, never
            // to be replayed with replacement characters in it.
            guard let s = String(validating: bytes[range], as: UTF8.self) else { throw failure("a string is not UTF-8") }
            return s
        }

        mutating func string() throws(JournalCodec.DecodeError) -> String {
            try utf8(try count("a string of"))
        }

        mutating func optionalString() throws(JournalCodec.DecodeError) -> String? {
            if at < bytes.count && bytes[at] == 0 { at += 1; return nil }
            return try utf8(try count("a string of", plus: 1))
        }

        mutating func scope() throws(JournalCodec.DecodeError) -> UndoScope {
            try optionalString().map { .session($0) } ?? .document
        }

        mutating func event() throws(JournalCodec.DecodeError) -> DocumentEvent {
            let raw = try byte("an event")
            guard let tag = Tag(rawValue: raw) else { throw failure("unknown journal event \(raw)") }
            switch tag {
            case .edit:
                let baseLength = try varint()
                let splices = try count("a splice count of")
                var list: [TextOperation.Splice] = []
                list.reserveCapacity(splices)
                for _ in 0..<splices {
                    list.append(.init(position: try varint(), deleted: try varint(), inserted: try string()))
                }
                let op: TextOperation
                do throws(OperationError) {
                    op = try TextOperation(splices: list, baseLength: baseLength)
                } catch {
                    throw failure("an edit that is no operation: \(error)")
                }
                let session = try optionalString()
                let actionName = try optionalString()
                let flags = try byte("the edit's options")
                guard flags < 16 else { throw failure("unknown edit options \(flags)") }
                let options = EditOptions(actionName: actionName, undoable: flags & 1 != 0, newGroup: flags & 2 != 0, coalescing: flags & 4 != 0,
                                          discardable: flags & 8 != 0)
                return .edit(OperationCoding(op), session: session, options: options, time: try double())
            case .revert:
                let k = Int(try byte("an undo kind"))
                guard k < JournalBinary.undoKinds.count else { throw failure("unknown undo kind \(k)") }
                let scope = try scope(), requester = try optionalString(), group = try varint()
                guard group >= 0 else { throw failure("a negative undo group") }
                return .revert(UndoRequest(JournalBinary.undoKinds[k], scope: scope, requester: requester,
                                           group: group == 0 ? nil : group - 1, time: try double()))
            case .undo: return .undo(scope: try scope(), time: try double(), nested: try bool())
            case .redo: return .redo(scope: try scope(), time: try double())
            case .begin: return .beginUndoGrouping(session: try optionalString())
            case .end: return .endUndoGrouping(session: try optionalString())
            case .name: return .setActionName(try string(), scope: try scope())
            case .levels: return .setLevelsOfUndo(try varint(), scope: try scope())
            case .groupsByEvent: return .setGroupsByEvent(try bool())
            case .removeAll: return .removeAllActions(scope: try bool() ? try scope() : nil)
            case .removeAllWithTarget: return .removeAllActionsWithTarget(try string())
            case .discardable: return .setActionIsDiscardable(try bool(), scope: try scope())
            case .disable: return .disableUndoRegistration
            case .enable: return .enableUndoRegistration
            case .disableSession: return .disableSessionUndoRegistration(try string())
            case .enableSession: return .enableSessionUndoRegistration(try string())
            case .changeCount:
                let k = Int(try byte("a change kind"))
                guard k < JournalBinary.changeKinds.count else { throw failure("unknown change kind \(k)") }
                return .updateChangeCount(JournalBinary.changeKinds[k])
            case .editingDisabled: return .setEditingDisabled(try bool())
            case .trim: return .trimLog(through: try varint())
            }
        }
    }
}
