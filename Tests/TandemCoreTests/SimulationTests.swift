import Testing
@testable import TandemCore

/// An ot.js-style client: one operation in flight, later local edits buffered, server
/// changes received in order with delays.
struct SimClient {
    let id: SessionID
    var text: String
    var revision: Int
    var outstanding: TextOperation?
    var outstandingBase = 0
    var buffer: TextOperation?
    var sent = false
    /// The op in flight became nothing on the server: acknowledged once the client has
    /// received everything up to this revision.
    var nilAckAt: Int?

    mutating func localEdit(_ op: TextOperation) throws {
        text = try op.apply(to: text)
        if outstanding == nil {
            outstanding = op
            outstandingBase = revision
            sent = false
        } else {
            buffer = try buffer.map { try $0.compose(op) } ?? op
        }
    }

    mutating func acknowledge() {
        outstanding = buffer
        outstandingBase = revision
        buffer = nil
        sent = false
        nilAckAt = nil
    }

    mutating func receive(_ change: Change) throws {
        revision = change.revision
        if change.session == id && change.kind == .edit && outstanding != nil && sent {
            acknowledge()
        } else {
            var op = change.operation
            if let o = outstanding {
                let (o2, op2) = try TextOperation.transform(o, op)
                outstanding = o2
                op = op2
            }
            if let b = buffer {
                let (b2, op3) = try TextOperation.transform(b, op)
                buffer = b2
                op = op3
            }
            text = try op.apply(to: text)
        }
        if let at = nilAckAt, revision >= at { acknowledge() }
    }
}

func randomEdit(_ text: String, _ rng: inout SplitMix64) throws -> TextOperation {
    let n = text.utf16.count
    let alphabet = ["a", "b", "c", "d", "é", "😀", "xy", "\n"]
    if n > 0 && Int.random(in: 0..<3, using: &rng) == 0 {
        let from = Int.random(in: 0..<n, using: &rng)
        let to = min(n, from + Int.random(in: 1...4, using: &rng))
        let op = try TextOperation.delete(from: from, to: to, length: n)
        if (try? op.apply(to: text)) != nil { return op }
        return .identity(length: n)
    }
    let at = Int.random(in: 0...n, using: &rng)
    let op = try TextOperation.insert(alphabet.randomElement(using: &rng)!, at: at, length: n)
    if (try? op.apply(to: text)) != nil { return op }
    return .identity(length: n)
}

@Suite struct SimulationTests {
    /// Clients edit with stale bases and network delays while undoing and redoing their
    /// own groups on the server; every client ends with the server's text.
    @Test(arguments: 0..<400)
    func clientsConverge(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919 &+ 1)
        let doc = Document(text: "shared", configuration: .init(typingPause: 0.5))
        var clients = (0..<3).map { SimClient(id: "s\($0)", text: "shared", revision: 0) }
        var time = 0.0
        for _ in 0..<40 {
            time += Double.random(in: 0...0.4, using: &rng)
            let k = Int.random(in: 0..<clients.count, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...3:
                let op = try randomEdit(clients[k].text, &rng)
                if !op.isIdentity { try clients[k].localEdit(op) }
            case 4...5:
                if let op = clients[k].outstanding, !clients[k].sent {
                    clients[k].sent = true
                    clients[k].outstandingBase = clients[k].revision
                    let change = try doc.apply(op, base: clients[k].outstandingBase, session: clients[k].id, time: time)
                    if change == nil { clients[k].nilAckAt = doc.revision }
                    if let at = clients[k].nilAckAt, clients[k].revision >= at { clients[k].acknowledge() }
                }
            case 6...7:
                if clients[k].revision < doc.revision {
                    try clients[k].receive(doc.changes(since: clients[k].revision)[0])
                }
            case 8:
                _ = try? doc.undo(scope: .session(clients[k].id), time: time)
            default:
                _ = try? doc.redo(scope: Bool.random(using: &rng) ? .session(clients[k].id) : .document, time: time)
            }
        }
        // Flush: send everything, deliver everything.
        var progress = true
        while progress {
            progress = false
            for k in clients.indices {
                if let op = clients[k].outstanding, !clients[k].sent {
                    clients[k].sent = true
                    clients[k].outstandingBase = clients[k].revision
                    if try doc.apply(op, base: clients[k].outstandingBase, session: clients[k].id, time: time) == nil {
                        clients[k].nilAckAt = doc.revision
                        if clients[k].revision >= doc.revision { clients[k].acknowledge() }
                    }
                    progress = true
                }
                while clients[k].revision < doc.revision {
                    try clients[k].receive(doc.changes(since: clients[k].revision)[0])
                    progress = true
                }
            }
        }
        for client in clients {
            #expect(client.text == doc.text)
            #expect(client.outstanding == nil && client.buffer == nil)
        }
        #expect(doc.rope.utf16Count == doc.length)
    }

    /// Sessions edit their own regions (between separators of the starting text), undo and
    /// redo at random; each session undoing all its groups restores its region and leaves
    /// everyone else's text exactly as they made it.
    @Test(arguments: 0..<300)
    func disjointRegionsUndoExactly(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &+ 0xABCDEF)
        let sessions = ["p", "q", "r"]
        let start = "|one|two|three|"
        let doc = Document(text: start, configuration: .init(typingPause: 1))
        func region(_ text: String, _ i: Int) -> Range<Int> {
            let units = Array(text.utf16)
            let bars = units.indices.filter { units[$0] == 124 }
            return (bars[i] + 1)..<bars[i + 1]
        }
        var time = 0.0
        for _ in 0..<60 {
            time += Double.random(in: 0...0.7, using: &rng)
            let i = Int.random(in: 0..<3, using: &rng)
            let s = sessions[i]
            let roll = Int.random(in: 0..<10, using: &rng)
            if roll < 7 {
                let r = region(doc.text, i)
                let op: TextOperation
                if r.count > 0 && roll < 3 {
                    let from = Int.random(in: r.lowerBound..<r.upperBound, using: &rng)
                    op = try TextOperation.delete(from: from, to: min(r.upperBound, from + Int.random(in: 1...3, using: &rng)), length: doc.length)
                } else {
                    let at = Int.random(in: r.lowerBound...r.upperBound, using: &rng)
                    op = try TextOperation.insert(["x", "yz", "é"].randomElement(using: &rng)!, at: at, length: doc.length)
                }
                try doc.apply(op, session: s, options: .init(newGroup: Bool.random(using: &rng)), time: time)
            } else if roll < 9 {
                _ = try? doc.undo(scope: .session(s), time: time)
            } else {
                _ = try? doc.redo(scope: .session(s), time: time)
            }
        }
        let startRegions = (0..<3).map { region(start, $0) }.map { Array(start.utf16)[$0] }
        for (i, s) in sessions.enumerated() {
            let before = (0..<3).map { Array(doc.text.utf16)[region(doc.text, $0)] }
            while doc.undoManager.canUndo(.session(s)) { try doc.undo(scope: .session(s), time: time) }
            let after = (0..<3).map { Array(doc.text.utf16)[region(doc.text, $0)] }
            for j in 0..<3 {
                if j == i { #expect(after[j] == startRegions[j]) }
                else { #expect(after[j] == before[j]) }
            }
        }
        #expect(doc.text == start)
    }
}
