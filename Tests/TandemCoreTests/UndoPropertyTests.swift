import Testing
@testable import TandemCore
import TandemTestSupport

/// Issue 26's property test: 3–5 sessions (and anonymous requests) doing random edits, undos,
/// redos, selective undos, nested undos, group opens and closes, and saves. After every step,
/// for every scope, the offered titles equal what the next undo (redo) reverts; every undo or
/// redo changes only text of the group it reverted; and no change count says "clean" once the
/// save point is out of reach.
///
/// Issue 37 adds: the document scope is checked as every session scope is (what it offers is
/// what its next undo reverts, and "nothing to undo" stays true when asked again), and the
/// step mix deletes others' text and undoes that delete, after which the groups whose text
/// came back are revertible again: an undo takes out all its group put in, and no group whose
/// text is in the document is dropped as erased.
///
/// Every inserted character is a fresh one, so a character's identity says which group put
/// it in the text and which group took it out.
@Suite struct UndoPropertyTests {
    struct World {
        var rng: SplitMix64
        let doc: Document
        let sessions: [SessionID]
        var nextCharacter: UInt32 = 0x4E00
        var nextName = 0
        var time = 0.0
        /// For each group id: the characters its edits inserted and deleted.
        var inserted: [Int: Set<UInt16>] = [:]
        var deleted: [Int: Set<UInt16>] = [:]
        var levels: [SessionID: Int] = [:]
        var steps = 0

        init(seed: UInt64) {
            rng = SplitMix64(seed: seed)
            doc = Document(text: "", configuration: .init(typingPause: 1))
            sessions = (0..<Int.random(in: 3...5, using: &rng)).map { "s\($0)" }
        }

        mutating func fresh(_ n: Int) -> String {
            var s = ""
            for _ in 0..<n {
                s.unicodeScalars.append(Unicode.Scalar(nextCharacter)!)
                nextCharacter += 1
            }
            return s
        }

        mutating func edit(as session: SessionID?) throws {
            let length = doc.length
            let from = Int.random(in: 0...length, using: &rng)
            let to = min(length, from + (Bool.random(using: &rng) ? 0 : Int.random(in: 1...3, using: &rng)))
            let text = to > from && Bool.random(using: &rng) ? "" : fresh(Int.random(in: 1...3, using: &rng))
            guard to > from || !text.isEmpty else { return }
            var options = EditOptions()
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5: break                                   // typing, when it coalesces
            case 5..<9: nextName += 1; options.actionName = "g\(nextName)"
            default: options.undoable = false
            }
            let before = Array(doc.text.utf16)
            time += Double.random(in: 0...1.5, using: &rng)
            guard let change = try doc.apply(TextOperation.replace(from: from, to: to, with: text, length: length),
                                             session: session, options: options, time: time) else { return }
            guard change.group >= 0 else { return }
            let id = Int(doc.undoManager.groups[change.group].id)
            inserted[id, default: []].formUnion(text.utf16)
            deleted[id, default: []].formUnion(before[from..<to])
        }

        /// A delete of 1–6 characters around a random place (others' text, mostly), named, and
        /// an undo of it by the same session, at once or after someone else's undo or edit.
        mutating func deleteAndUndoTheDelete(as session: SessionID) throws {
            let length = doc.length
            guard length > 0 else { return }
            let from = Int.random(in: 0..<length, using: &rng)
            let to = min(length, from + Int.random(in: 1...6, using: &rng))
            nextName += 1
            let before = Array(doc.text.utf16)
            time += 0.1
            guard let change = try doc.apply(TextOperation.replace(from: from, to: to, with: "", length: length),
                                             session: session, options: .init(actionName: "d\(nextName)"), time: time),
                  change.group >= 0 else { return }
            let id = Int(doc.undoManager.groups[change.group].id)
            deleted[id, default: []].formUnion(before[from..<to])
            time += 0.1
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: try revert(UndoRequest(.undo, scope: .document, requester: sessions.randomElement(using: &rng)!, time: time))
            case 1: try edit(as: sessions.randomElement(using: &rng)!)
            default: break
            }
            try revert(UndoRequest(.undo, scope: .session(session), requester: session, time: time))
        }

        /// The ids on every context's undo (or redo) stack.
        func stackIDs(redo: Bool) -> Set<Int> {
            let um = doc.undoManager
            var ids = Set<Int>()
            for c in um.contexts {
                for g in redo ? c.redo[...] : c.undo[c.undoBottom...] { ids.insert(Int(um.groups[Int(g)].id)) }
            }
            return ids
        }

        /// What undoing (redoing) the group `id` would still take out of `text`.
        func wouldTakeOut(_ id: Int, redo: Bool, from text: Set<UInt16>) -> Set<UInt16> {
            let (takes, gives) = redo ? (deleted[id] ?? [], inserted[id] ?? []) : (inserted[id] ?? [], deleted[id] ?? [])
            return takes.subtracting(gives).intersection(text)
        }

        /// An undo or redo as asked; checks it touched only its group's characters, took out
        /// all of them, and dropped as erased only groups with nothing left to take out.
        mutating func revert(_ request: UndoRequest) throws {
            let before = Array(doc.text.utf16)
            let redo = request.kind == .redo
            let stacked = stackIDs(redo: redo)
            let change = try Self.performing(request, on: doc)
            let textBefore = Set(before)
            for dropped in stacked.subtracting(stackIDs(redo: redo)) where dropped != change?.reverts?.group {
                let left = wouldTakeOut(dropped, redo: redo, from: textBefore)
                #expect(left.isEmpty, "step \(steps): \(request) dropped group \(dropped) as erased while \(left.count) of its characters are in the text")
            }
            guard let change, let id = change.reverts?.group else { return }
            #expect(change.session == request.requester)
            let left = wouldTakeOut(id, redo: redo, from: Set(doc.text.utf16))
            #expect(left.isEmpty, "step \(steps): \(request) of group \(id) left \(left.count) of its characters in the text")
            // An undo takes out what the group put in and puts back what it took out; a redo
            // the other way round. Nothing else.
            let (mayDelete, mayInsert) = request.kind == .redo ? (deleted[id] ?? [], inserted[id] ?? [])
                                                               : (inserted[id] ?? [], deleted[id] ?? [])
            change.operation.forEachSplice { splice in
                let removed = Set(before[splice.position..<splice.position + splice.deleted])
                #expect(removed.isSubset(of: mayDelete), "step \(steps): \(request) removed text of another group")
                #expect(Set(splice.inserted.utf16).isSubset(of: mayInsert), "step \(steps): \(request) put back text of another group")
            }
        }

        /// The change, or nil when there was nothing to do (or nested groups are open).
        static func performing(_ request: UndoRequest, on doc: Document) throws -> Change? {
            do {
                return try doc.perform(request)
            } catch {
                switch error {
                case .nothingToUndo, .nothingToRedo, .groupOpen, .groupAlreadyUndone: return nil
                default: throw error
                }
            }
        }

        mutating func step() throws {
            steps += 1
            let s = sessions.randomElement(using: &rng)!
            let scope = UndoScope.session(s)
            let um = doc.undoManager
            time += 0.1
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40: try edit(as: s)
            case 40..<45: try deleteAndUndoTheDelete(as: s)
            case 45..<50: try edit(as: nil)
            case 50..<60: try revert(UndoRequest(.undo, scope: scope, requester: s, time: time))
            case 60..<67: try revert(UndoRequest(.redo, scope: scope, requester: s, time: time))
            case 67..<72:
                let stack = um.history(scope).undoStack
                if let entry = stack.randomElement(using: &rng) {
                    try revert(UndoRequest(.undo, scope: scope, requester: s, group: entry.id, time: time))
                }
            case 72..<77: try revert(UndoRequest(.undo, scope: .document, requester: Bool.random(using: &rng) ? s : nil, time: time))
            case 77..<80: try revert(UndoRequest(.redo, scope: .document, requester: s, time: time))
            case 80..<84 where um.groupingLevel(scope) < 2:
                um.beginUndoGrouping(session: s)
            case 84..<89 where um.groupingLevel(scope) > 0:
                try um.endUndoGrouping(session: s)
            case 89..<91:
                try revert(UndoRequest(.undoNestedGroup, scope: scope, requester: s, time: time))
            case 91..<95: doc.updateChangeCount(.cleared)
            case 95..<97: um.setLevelsOfUndo(Int.random(in: 0...4, using: &rng), scope: scope)
            default: try deleteAndUndoTheDelete(as: s)
            }
        }

        /// What each scope offers is what its next undo (redo) reverts: tried on a copy.
        func expectTitlesTellTheTruth() throws {
            let snapshot = doc.snapshot()
            let scopes = [UndoScope.document] + sessions.map { .session($0) }
            for scope in scopes {
                for redo in [false, true] {
                    let um = doc.undoManager
                    let offered = redo ? um.redoActionName(scope) : um.undoActionName(scope)
                    let can = redo ? um.canRedo(scope) : um.canUndo(scope)
                    #expect(um.undoMenuItemTitle(scope) == um.undoMenuTitle(forUndoActionName: um.undoActionName(scope)))
                    let copy = try Document(snapshot: snapshot)
                    let request = UndoRequest(redo ? .redo : .undo, scope: scope, requester: scope.sessionID, time: time + 1)
                    // Nested groups open refuse the undo, whatever is offered.
                    if !redo && scope != .document && um.groupingLevel(scope) > 1 { continue }
                    if let change = try Self.performing(request, on: copy) {
                        #expect(can && change.actionName == offered, "step \(steps): \(scope) offers \(can ? offered : "nothing"), \(redo ? "redo" : "undo") reverted \(change.actionName)")
                    } else {
                        #expect(!can, "step \(steps): \(scope) offers \(offered) but \(redo ? "redo" : "undo") found nothing")
                        // Nothing to undo stays true when asked again.
                        let again = redo ? copy.undoManager.canRedo(scope) : copy.undoManager.canUndo(scope)
                        #expect(!again, "step \(steps): \(scope) found nothing to \(redo ? "redo" : "undo"), then offers \(redo ? copy.undoManager.redoActionName(scope) : copy.undoManager.undoActionName(scope))")
                        if !again, let change = try Self.performing(request, on: copy) {
                            Issue.record("step \(steps): \(scope) found nothing, then reverted \(change.actionName)")
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: 1...12 as ClosedRange<UInt64>)
    func titlesUndoEffectsAndCountsHoldAfterEveryStep(seed: UInt64) throws {
        var world = World(seed: seed)
        print("SEED \(seed)")
        var lostSince: Bool = false
        for _ in 0..<300 {
            let countBefore = world.doc.changeCount
            let revisionBefore = world.doc.revision
            let savedBefore = world.doc.changeCounts == ChangeCounts()
            try world.step()
            // NSDocument's rule, seen from outside: a change made while the count was below
            // 0 keeps it at 1 or more until the next save.
            if world.doc.changeCounts == ChangeCounts() && !savedBefore { lostSince = false }
            if countBefore < 0, world.doc.revision > revisionBefore, world.doc.changeCount > countBefore + 1 { lostSince = true }
            if lostSince { #expect(world.doc.changeCount >= 1, "seed \(seed) step \(world.steps)") }
            try world.expectTitlesTellTheTruth()
        }
        #expect(world.doc.revision > 100)
    }
}
