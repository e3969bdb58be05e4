import Testing
@testable import TandemCore
import TandemTestSupport

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

/// A server document and its clients: sends and deliveries happen one at a time, in random
/// order, so clients edit on stale bases while others' changes are still on the way.
struct SimNetwork {
    let doc: Document
    var clients: [SimClient]

    init(text: String, sessions: [SessionID], configuration: Document.Configuration) {
        doc = Document(text: text, configuration: configuration)
        clients = sessions.map { SimClient(id: $0, text: text, revision: 0) }
    }

    /// Sends client k's operation in flight, made at the revision it last received.
    mutating func send(_ k: Int, time: Double) throws {
        guard let op = clients[k].outstanding, !clients[k].sent else { return }
        clients[k].sent = true
        clients[k].outstandingBase = clients[k].revision
        if try doc.apply(op, base: clients[k].outstandingBase, session: clients[k].id, time: time) == nil {
            clients[k].nilAckAt = doc.revision
            if clients[k].revision >= doc.revision { clients[k].acknowledge() }
        }
    }

    /// Delivers the next change client k has not received yet.
    mutating func deliver(_ k: Int) throws {
        guard clients[k].revision < doc.revision else { return }
        try clients[k].receive(doc.changes(since: clients[k].revision)[0])
    }

    /// Sends everything and delivers everything.
    mutating func flush(time: Double) throws {
        var progress = true
        while progress {
            progress = false
            for k in clients.indices {
                if clients[k].outstanding != nil && !clients[k].sent {
                    try send(k, time: time)
                    progress = true
                }
                while clients[k].revision < doc.revision {
                    try deliver(k)
                    progress = true
                }
            }
        }
    }

    func expectConverged() {
        for client in clients {
            #expect(client.text == doc.text)
            #expect(client.outstanding == nil && client.buffer == nil)
        }
        #expect(doc.rope.utf16Count == doc.length)
    }
}

/// Seeds for the random simulations: thousands of cases in all, each short enough that
/// the debug build runs the suite in seconds. A failing case names its seed.
enum SimulationSeeds {
    static let converge = 0..<4_000
    static let disjoint = 0..<3_000
}

@Suite struct SimulationTests {
    /// Clients edit with stale bases and network delays while undoing and redoing their
    /// own groups on the server; every client ends with the server's text.
    @Test(arguments: SimulationSeeds.converge)
    func clientsConverge(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919 &+ 1)
        var net = SimNetwork(text: "shared", sessions: ["s0", "s1", "s2"], configuration: .init(typingPause: 0.5))
        var time = 0.0
        for _ in 0..<40 {
            time += Double.random(in: 0...0.4, using: &rng)
            let k = Int.random(in: 0..<net.clients.count, using: &rng)
            let id = net.clients[k].id
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...3:
                let op = try randomEdit(net.clients[k].text, &rng)
                if !op.isIdentity { try net.clients[k].localEdit(op) }
            case 4...5: try net.send(k, time: time)
            case 6...7: try net.deliver(k)
            case 8: _ = try? net.doc.undo(scope: .session(id), time: time)
            default: _ = try? net.doc.redo(scope: Bool.random(using: &rng) ? .session(id) : .document, time: time)
            }
        }
        try net.flush(time: time)
        net.expectConverged()
    }

    /// Sessions edit their own regions (between separators of the starting text) through
    /// clients with stale bases and delays, and undo and redo at random on the server;
    /// once everything arrived, each session undoing all its groups restores its region
    /// and leaves everyone else's text exactly as they made it.
    @Test(arguments: SimulationSeeds.disjoint)
    func disjointRegionsUndoExactly(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &+ 0xABCDEF)
        let start = "|one|two|three|"
        var net = SimNetwork(text: start, sessions: ["p", "q", "r"], configuration: .init(typingPause: 1))
        func region(_ text: String, _ i: Int) -> Range<Int> {
            let units = Array(text.utf16)
            let bars = units.indices.filter { units[$0] == 124 }
            return (bars[i] + 1)..<bars[i + 1]
        }
        var time = 0.0
        for _ in 0..<50 {
            time += Double.random(in: 0...0.7, using: &rng)
            let k = Int.random(in: 0..<3, using: &rng)
            let id = net.clients[k].id
            let roll = Int.random(in: 0..<14, using: &rng)
            if roll < 6 {
                // Made on the client's own view, which may lag the server's.
                let text = net.clients[k].text
                let r = region(text, k)
                let length = text.utf16.count
                let op: TextOperation
                if r.count > 0 && roll < 2 {
                    let from = Int.random(in: r.lowerBound..<r.upperBound, using: &rng)
                    op = try TextOperation.delete(from: from, to: min(r.upperBound, from + Int.random(in: 1...3, using: &rng)), length: length)
                } else {
                    let at = Int.random(in: r.lowerBound...r.upperBound, using: &rng)
                    op = try TextOperation.insert(["x", "yz", "é"].randomElement(using: &rng)!, at: at, length: length)
                }
                try net.clients[k].localEdit(op)
            } else if roll < 9 {
                try net.send(k, time: time)
            } else if roll < 12 {
                try net.deliver(k)
            } else if roll < 13 {
                _ = try? net.doc.undo(scope: .session(id), time: time)
            } else {
                _ = try? net.doc.redo(scope: .session(id), time: time)
            }
        }
        try net.flush(time: time)
        net.expectConverged()
        let doc = net.doc
        let startRegions = (0..<3).map { region(start, $0) }.map { Array(start.utf16)[$0] }
        for (i, client) in net.clients.enumerated() {
            let s = client.id
            let before = (0..<3).map { Array(doc.text.utf16)[region(doc.text, $0)] }
            while doc.undoManager.canUndo(.session(s)) { try doc.undo(scope: .session(s), time: time) }
            let after = (0..<3).map { Array(doc.text.utf16)[region(doc.text, $0)] }
            for j in 0..<3 {
                if j == i { #expect(after[j] == startRegions[j], "seed \(seed), session \(s)") }
                else { #expect(after[j] == before[j], "seed \(seed), session \(s)") }
            }
        }
        #expect(doc.text == start)
    }
}

