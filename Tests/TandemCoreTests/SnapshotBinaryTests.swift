import Foundation
import TandemTestSupport
import Testing
@testable import TandemCore

/// The binary snapshot must hold exactly what the Codable one holds, for every part of the
/// undo state, and refuse damaged bytes instead of reading past them.
@Suite struct SnapshotBinaryTests {
    static let sessions: [SessionID?] = ["a", "b", "c", nil]

    /// A document after a seeded walk through everything its state can hold: edits by several
    /// sessions (emoji included, so the text has surrogate pairs), named and nested groups,
    /// groups left open, undo and redo in both scopes (undoing what others edited since maps
    /// inverses), discardable actions, disabled registration, levels of undo, and trims.
    static func walked(seed: UInt64, steps: Int = 600) throws -> Document {
        var rng = SplitMix64(seed: seed)
        let doc = Document(text: "The start 😀 of it.\n")
        let um = doc.undoManager
        var disabled = false
        for step in 0..<steps {
            let session = sessions[Int(rng.next() % 4)]
            let scope: UndoScope = session.map { .session($0) } ?? .document
            let time = 1_800_000_000 + Double(step) * (rng.next() % 3 == 0 ? 3 : 0.1)
            switch rng.next() % 20 {
            case 0..<9:
                let at = Int(rng.next() % UInt64(doc.length + 1))
                let piece = ["x", " ", "😀", "word", "é"][Int(rng.next() % 5)]
                guard let op = try? ins(doc, piece, at: at) else { continue }
                let base = rng.next() % 4 == 0 ? max(doc.log.firstAvailableRevision - 1, doc.revision - 3) : nil
                _ = try? doc.apply(op, base: base, session: session, options: .init(actionName: rng.next() % 5 == 0 ? "Bold" : nil), time: time)
            case 9..<11 where doc.length > 2:
                let from = Int(rng.next() % UInt64(doc.length - 1))
                guard let op = try? del(doc, from, from + 1) else { continue }
                _ = try? doc.apply(op, session: session, time: time)
            case 11..<13: _ = try? doc.undo(scope: scope, time: time)
            case 13: _ = try? doc.redo(scope: scope, time: time)
            case 14: _ = um.beginUndoGrouping(session: session)
            case 15: _ = try? um.endUndoGrouping(session: session)
            case 16: um.setActionName(["Paste", "Typing", "Cut"][Int(rng.next() % 3)], scope: scope)
            case 17:
                if disabled { try um.enableUndoRegistration() } else { um.disableUndoRegistration() }
                disabled.toggle()
            case 18: um.setActionIsDiscardable(rng.next() % 2 == 0, scope: scope)
            default:
                if rng.next() % 3 == 0 { um.setLevelsOfUndo(Int(rng.next() % 40), scope: scope) }
                if doc.revision - doc.log.firstAvailableRevision > 100 { doc.trimLog(through: doc.revision - 60) }
            }
        }
        return doc
    }

    static func json(_ snapshot: DocumentSnapshot) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(snapshot)
    }

    @Test(arguments: 0..<12 as Range<UInt64>)
    func holdsWhatTheCodableFormHolds(seed: UInt64) throws {
        let doc = try Self.walked(seed: seed)
        let snapshot = doc.snapshot()
        let decoded = try DocumentSnapshot(binary: snapshot.binary())
        #expect(try Self.json(decoded) == Self.json(snapshot))
        let restored = try Document(snapshot: decoded)
        try CompactionChecks.expectSame(restored, doc, scopes: [.document] + Self.sessions.compactMap { $0.map { .session($0) } })
        // Both close their open groups alike, then undo to the bottom alike.
        for session in Self.sessions {
            let scope: UndoScope = session.map { .session($0) } ?? .document
            while doc.undoManager.groupingLevel(scope) > 0 {
                #expect(try restored.undoManager.endUndoGrouping(session: session) == doc.undoManager.endUndoGrouping(session: session))
            }
            #expect(restored.undoManager.groupingLevel(scope) == 0)
        }
        try CompactionChecks.undoEverything(restored, doc, scopes: [.document], time: 1_900_000_000)
    }

    /// `snapshot` in binary version 2, as servers wrote it before the log had its `group` and
    /// `context` columns: the same bytes with one `owner` column in their place (a group id,
    /// or -(context + 1) for a change with no group).
    static func version2(of snapshot: DocumentSnapshot) -> [UInt8] {
        var bytes = snapshot.binary(version: 3)
        bytes[3] = 2
        let log = snapshot.log, n = log.group.count
        // Magic, revision, change count, editing disabled, the text, trimmed, start length,
        // then the spliceEnd and textStart columns (a count and 4 bytes an entry).
        let start = 4 + 8 + 8 + 1 + 8 + snapshot.text.utf8.count + 8 + 8 + (8 + 4 * log.spliceEnd.count) + (8 + 4 * log.textStart.count)
        var owner: [UInt8] = []
        PackedCoding.append(Int64(n), to: &owner)
        for (g, c) in zip(log.group, log.context) { PackedCoding.append(g == ChangeLog.noGroup ? -c - 1 : g, to: &owner) }
        bytes.replaceSubrange(start..<start + 2 * (8 + 4 * n), with: owner)
        return bytes
    }

    /// `snapshot` without what versions 4 and 5 added (unit identities, each session's
    /// registration count, discarded steps; authorship): what a version 2 or 3 snapshot of it
    /// loads as.
    static func withoutVersion4(_ snapshot: DocumentSnapshot) -> DocumentSnapshot {
        var s = snapshot
        s.authorship = nil
        for i in s.undo.contexts.indices { s.undo.contexts[i].registrationDisabled = 0 }
        s.changeCounts?.document.discarded = 0
        for key in s.changeCounts?.contexts.keys.map({ $0 }) ?? [] { s.changeCounts?.contexts[key]?.discarded = 0 }
        s.units = nil
        s.nextUnit = nil
        s.log.unitEnd = []; s.log.unitRuns = []
        for i in s.undo.mapped.indices {
            s.undo.mapped[i].inserted = nil; s.undo.mapped[i].lostUnits = nil; s.undo.mapped[i].belowUnits = nil
            s.undo.mapped[i].carried = nil
        }
        return s
    }

    /// A version 2 snapshot loads into the same state, and is written again as the current
    /// version, byte for byte what the document itself writes.
    @Test(arguments: 0..<6 as Range<UInt64>)
    func version2StillLoads(seed: UInt64) throws {
        let doc = try Self.walked(seed: seed)
        // What version 4 adds (registration counts, discarded steps) a version 2 snapshot never held.
        var snapshot = doc.snapshot()
        for i in snapshot.undo.contexts.indices { snapshot.undo.contexts[i].registrationDisabled = 0 }
        snapshot.changeCounts?.document.discarded = 0
        for session in snapshot.changeCounts?.contexts.keys.map({ $0 }) ?? [] { snapshot.changeCounts?.contexts[session]?.discarded = 0 }
        let old = Self.version2(of: snapshot)
        #expect(DocumentSnapshot.isBinary(old) && !DocumentSnapshot.isCurrentBinary(old))
        let decoded = try DocumentSnapshot(binary: old)
        // Version 2 kept no unit identities.
        let known = Self.withoutVersion4(snapshot)
        #expect(try Self.json(decoded) == Self.json(known))
        #expect(decoded.binary() == known.binary())
        let restored = try Document(snapshot: decoded)
        try CompactionChecks.expectSame(restored, doc, scopes: [.document] + Self.sessions.compactMap { $0.map { .session($0) } })
        // An owner naming a group past the last is damage.
        var damaged = snapshot
        damaged.log.group[damaged.log.group.count - 1] = Int32(snapshot.undo.groups.count)
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: Self.version2(of: damaged)) }
    }

    /// Each change's context is its group's, whatever the walk did (compactions included).
    @Test(arguments: 0..<12 as Range<UInt64>)
    func aGroupedChangesContextIsItsGroups(seed: UInt64) throws {
        let s = try Self.walked(seed: seed).snapshot()
        for (g, c) in zip(s.log.group, s.log.context) where g != ChangeLog.noGroup {
            #expect(s.undo.groups[Int(g)].context == c)
        }
        #expect(s.log.context.allSatisfy { Int($0) < s.undo.contexts.count })
    }

    /// The walks reach every optional part of the state, so the test above covers them.
    @Test func theWalksReachEveryPartOfTheState() throws {
        var seen = Set<String>()
        for seed in 0..<12 as Range<UInt64> {
            let s = try Self.walked(seed: seed).snapshot()
            if s.log.trimmed > 0 { seen.insert("trimmed") }
            if !s.undo.mapped.isEmpty { seen.insert("mapped") }
            if s.undo.mapped.contains(where: { $0.below != nil }) { seen.insert("below") }
            if s.undo.contexts.contains(where: { $0.typing != nil }) { seen.insert("typing") }
            if s.undo.contexts.contains(where: { $0.nestedStarts != nil }) { seen.insert("nested") }
            if s.undo.contexts.contains(where: { $0.openDiscardable != nil }) { seen.insert("openDiscardable") }
            if s.undo.contexts.contains(where: { $0.openGroup >= 0 }) { seen.insert("open") }
            if s.undo.contexts.contains(where: { !$0.redo.isEmpty }) { seen.insert("redo") }
            if s.undo.contexts.contains(where: { $0.levels > 0 }) || s.undo.documentLevels > 0 { seen.insert("levels") }
            if s.undo.registrationDisabled > 0 { seen.insert("disabled") }
            if s.undo.names.count > 1 { seen.insert("names") }
            if s.log.group.contains(ChangeLog.noGroup) { seen.insert("ungrouped") }
        }
        #expect(seen == ["trimmed", "mapped", "below", "typing", "nested", "openDiscardable", "open", "redo", "levels", "disabled", "names", "ungrouped"])
    }

    /// Cut anywhere, or with bytes after it, the form is refused, never read past its end.
    @Test func damagedBytesAreRefused() throws {
        let bytes = try Self.walked(seed: 3, steps: 200).snapshot().binary()
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
            #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: Array(bytes[..<length])) }
        }
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: bytes + [0]) }
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: Array("{\"text\":\"\"}".utf8)) }
        // A count larger than the bytes left is refused before anything is allocated for it.
        var huge = bytes
        let countOffset = DocumentSnapshot.magic.count + 17
        for k in 0..<8 { huge[countOffset + k] = 0x7F }
        #expect(throws: SnapshotFormatError.self) { try DocumentSnapshot(binary: huge) }
    }

    /// Flipped bytes either fail to decode or decode to some state; none crashes the reader.
    @Test func flippedBytesNeverCrash() throws {
        let bytes = try Self.walked(seed: 5, steps: 200).snapshot().binary()
        var rng = SplitMix64(seed: 99)
        for _ in 0..<2_000 {
            var damaged = bytes
            let i = Int(rng.next() % UInt64(bytes.count))
            damaged[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            _ = try? DocumentSnapshot(binary: damaged)
        }
    }
}
