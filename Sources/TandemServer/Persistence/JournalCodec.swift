import TandemCore

/// The stored form of a document's journal: each event a small JSON array, e.g.
/// `["edit",[5,"a",3],"s_1",null,true,false,true,1732000000.5]`. Written by hand because
/// every edit pays for it on the way to the store.
enum JournalCodec {
    struct DecodeError: Error, CustomStringConvertible {
        var description: String
    }

    static func encode(_ events: [DocumentEvent]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 * events.count)
        w.beginArray()
        for e in events { write(e, to: &w) }
        w.endArray()
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [DocumentEvent] {
        guard case .array(let items) = try JSONParser.parse(bytes, maxDepth: 8) else {
            throw DecodeError(description: "journal payload is not an array")
        }
        return try items.map(event)
    }

    private static func scope(_ s: UndoScope, to w: inout JSONWriter) {
        switch s {
        case .document: w.null()
        case .session(let id): w.string(id)
        }
    }

    private static func write(_ e: DocumentEvent, to w: inout JSONWriter) {
        w.beginArray()
        switch e {
        case let .edit(op, session, options, time):
            w.string("edit")
            CompactOperation.write(op, to: &w)
            w.int(op.baseLength)
            w.optionalString(session)
            w.optionalString(options.actionName)
            w.bool(options.undoable); w.bool(options.newGroup); w.bool(options.coalescing)
            w.double(time)
            // Only when set: edits written before it existed end at the time.
            if options.discardable { w.bool(true) }
        case let .revert(request):
            w.string("revert"); w.string(request.kind.rawValue); scope(request.scope, to: &w)
            w.optionalString(request.requester)
            if let group = request.group { w.int(group) } else { w.null() }
            w.double(request.time)
        case let .undo(s, time, nested):
            w.string("undo"); scope(s, to: &w); w.double(time); w.bool(nested)
        case let .redo(s, time):
            w.string("redo"); scope(s, to: &w); w.double(time)
        case let .beginUndoGrouping(session):
            w.string("begin"); w.optionalString(session)
        case let .endUndoGrouping(session):
            w.string("end"); w.optionalString(session)
        case let .setActionName(name, s):
            w.string("name"); w.string(name); scope(s, to: &w)
        case let .setLevelsOfUndo(n, s):
            w.string("levels"); w.int(n); scope(s, to: &w)
        case let .setGroupsByEvent(flag):
            w.string("groupsByEvent"); w.bool(flag)
        case let .removeAllActions(s):
            w.string("removeAll")
            if let s { w.bool(true); scope(s, to: &w) } else { w.bool(false) }
        case let .removeAllActionsWithTarget(session):
            w.string("removeAllWithTarget"); w.string(session)
        case let .setActionIsDiscardable(flag, s):
            w.string("discardable"); w.bool(flag); scope(s, to: &w)
        case .disableUndoRegistration:
            w.string("disable")
        case .enableUndoRegistration:
            w.string("enable")
        case let .disableSessionUndoRegistration(session):
            w.string("disableSession"); w.string(session)
        case let .enableSessionUndoRegistration(session):
            w.string("enableSession"); w.string(session)
        case let .updateChangeCount(kind):
            w.string("changeCount"); w.string(kind.rawValue)
        case let .setEditingDisabled(flag):
            w.string("editingDisabled"); w.bool(flag)
        case let .trimLog(through):
            w.string("trim"); w.int(through)
        }
        w.endArray()
    }

    private static func event(_ v: JSONValue) throws -> DocumentEvent {
        guard case .array(let a) = v, let tag = a.first?.stringValue else { throw DecodeError(description: "bad journal event") }
        func at(_ i: Int) throws -> JSONValue {
            guard i < a.count else { throw DecodeError(description: "journal event \(tag) is short") }
            return a[i]
        }
        // Stored by the server itself, so any Int reads back (`intValue` bounds what clients send).
        func int(_ i: Int) throws -> Int {
            guard case .integer(let n) = try at(i) else { throw DecodeError(description: "journal event \(tag): integer expected") }
            return n
        }
        func double(_ i: Int) throws -> Double {
            switch try at(i) {
            case .integer(let n): return Double(n)
            case .number(let d): return d
            default: throw DecodeError(description: "journal event \(tag): number expected")
            }
        }
        func bool(_ i: Int) throws -> Bool {
            guard let b = try at(i).boolValue else { throw DecodeError(description: "journal event \(tag): boolean expected") }
            return b
        }
        func optString(_ i: Int) throws -> String? {
            let v = try at(i)
            if v.isNull { return nil }
            guard let s = v.stringValue else { throw DecodeError(description: "journal event \(tag): string expected") }
            return s
        }
        func string(_ i: Int) throws -> String {
            guard let s = try optString(i) else { throw DecodeError(description: "journal event \(tag): string expected") }
            return s
        }
        func scope(_ i: Int) throws -> UndoScope {
            try optString(i).map { .session($0) } ?? .document
        }
        switch tag {
        case "edit":
            let components = try CompactOperation.decode(try at(1))
            let op: TextOperation
            if components.isEmpty {
                op = .identity(length: try int(2))
            } else {
                op = try TextOperation(components)
            }
            var options = EditOptions()
            options.actionName = try optString(4)
            options.undoable = try bool(5)
            options.newGroup = try bool(6)
            options.coalescing = try bool(7)
            options.discardable = a.count > 9 ? try bool(9) : false
            return .edit(OperationCoding(op), session: try optString(3), options: options, time: try double(8))
        case "revert":
            guard let raw = try optString(1), let kind = UndoRequest.Kind(rawValue: raw) else {
                throw DecodeError(description: "revert: unknown kind")
            }
            let group = try at(4).isNull ? nil : try int(4)
            return .revert(UndoRequest(kind, scope: try scope(2), requester: try optString(3), group: group, time: try double(5)))
        case "undo": return .undo(scope: try scope(1), time: try double(2), nested: try bool(3))
        case "redo": return .redo(scope: try scope(1), time: try double(2))
        case "begin": return .beginUndoGrouping(session: try optString(1))
        case "end": return .endUndoGrouping(session: try optString(1))
        case "name": return .setActionName(try string(1), scope: try scope(2))
        case "levels": return .setLevelsOfUndo(try int(1), scope: try scope(2))
        case "groupsByEvent": return .setGroupsByEvent(try bool(1))
        case "removeAll": return .removeAllActions(scope: try bool(1) ? try scope(2) : nil)
        case "removeAllWithTarget": return .removeAllActionsWithTarget(try string(1))
        case "discardable": return .setActionIsDiscardable(try bool(1), scope: try scope(2))
        case "disable": return .disableUndoRegistration
        case "enable": return .enableUndoRegistration
        case "disableSession": return .disableSessionUndoRegistration(try string(1))
        case "enableSession": return .enableSessionUndoRegistration(try string(1))
        case "changeCount":
            guard let raw = try optString(1), let kind = DocumentChangeKind(rawValue: raw) else {
                throw DecodeError(description: "changeCount: unknown kind")
            }
            return .updateChangeCount(kind)
        case "editingDisabled": return .setEditingDisabled(try bool(1))
        case "trim": return .trimLog(through: try int(1))
        default: throw DecodeError(description: "unknown journal event \(tag)")
        }
    }
}

