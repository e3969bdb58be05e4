import CLinux
import Foundation
import TandemCore

// tandem-bench trace <path.json.gz>: replays an editing trace into a Document with undo
// tracking (every patch its own group), then undoes and redoes 1,000 groups while a second
// session keeps editing, and prints one JSON line.

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tandem-bench: \(message)\n".utf8))
    exit(1)
}

func peakRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return kb / 1024
    }
    return 0
}

/// Bytes malloc has handed out and not taken back: unlike RSS, this does not keep the
/// decoded trace's freed memory on the books, so a delta around the replay is what the
/// document, its log and its undo history really hold.
func heapInUseBytes() -> Int {
    let info = mallinfo2()
    return Int(info.uordblks) + Int(info.hblkhd)
}

struct Patch {
    var position: Int
    var deleted: Int
    var inserted: String
}

func loadTrace(_ path: String) -> (start: String, end: String, patches: [Patch]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exec gzip -dc \"$0\"", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fail("cannot run gzip: \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
          let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
          let txns = root["txns"] as? [[String: Any]] else { fail("cannot read trace \(path)") }
    var patches: [Patch] = []
    for txn in txns {
        for case let p as [Any] in (txn["patches"] as? [Any]) ?? [] {
            guard p.count == 3, let pos = (p[0] as? NSNumber)?.intValue, let del = (p[1] as? NSNumber)?.intValue,
                  let ins = p[2] as? String else { fail("bad patch \(p)") }
            patches.append(Patch(position: pos, deleted: del, inserted: ins))
        }
    }
    return ((root["startContent"] as? String) ?? "", (root["endContent"] as? String) ?? "", patches)
}

let options = EditOptions(newGroup: true)

func replay(_ patches: ArraySlice<Patch>, into doc: Document, snapshotAt: Int = -1) -> String? {
    var snap: String?
    for (i, p) in zip(patches.indices, patches) {
        if i == snapshotAt { snap = doc.text }
        do {
            let op = try TextOperation.replace(from: p.position, to: p.position + p.deleted, with: p.inserted, length: doc.length)
            try doc.apply(op, session: "author", options: options, time: Double(i))
        } catch { fail("patch \(i): \(error)") }
    }
    return snap
}

/// Median time of one undo (redone after each measurement so the state is unchanged).
func oneUndoMicros(_ doc: Document) -> Double {
    var samples: [Double] = []
    for _ in 0..<7 {
        let t0 = now()
        do { try doc.undo(scope: .session("author"), time: 1e9) } catch { fail("undo: \(error)") }
        samples.append((now() - t0) * 1e6)
        do { try doc.redo(scope: .session("author"), time: 1e9) } catch { fail("redo: \(error)") }
    }
    return samples.sorted()[samples.count / 2]
}

func runTrace(_ path: String) {
    let (start, end, patches) = loadTrace(path)
    let steps = 1000
    let n = patches.count

    // One undo after 1k edits, in a document of its own.
    let early = Document(text: start)
    _ = replay(patches[0..<min(1000, n)], into: early)
    let undoEarly = oneUndoMicros(early)

    if ProcessInfo.processInfo.environment["TANDEM_BENCH_PROFILE"] != nil {
        for _ in 0..<8 { let d = Document(text: start); let t = now(); _ = replay(patches[...], into: d); print("replay", now() - t) }
    }
    let heapBefore = heapInUseBytes()
    let doc = Document(text: start)
    let t0 = now()
    let expectedAfterUndo = replay(patches[...], into: doc, snapshotAt: n - steps)
    let replaySeconds = now() - t0
    guard doc.text == end else { fail("final text differs from endContent") }
    let historyMiB = Double(doc.historyBytes) / 1_048_576
    let heapMiB = Double(heapInUseBytes() - heapBefore) / 1_048_576
    let undoLate = oneUndoMicros(doc)

    // 1,000 undos, a foreign insert every 10, then 1,000 redos the same way.
    let marker = "\u{1}"
    var foreign = 0
    func foreignInsert() {
        foreign += 1
        let at = (foreign * 7919) % (doc.length + 1)
        do {
            try doc.apply(TextOperation.insert(marker, at: at, length: doc.length), session: "guest", time: 2e9)
        } catch { fail("foreign insert: \(error)") }
    }
    let t1 = now()
    for i in 0..<steps {
        if i % 10 == 5 { foreignInsert() }
        do { try doc.undo(scope: .session("author"), time: 3e9) } catch { fail("undo \(i): \(error)") }
    }
    let undoSeconds = now() - t1
    guard doc.text.replacingOccurrences(of: marker, with: "") == expectedAfterUndo else { fail("text after undos is wrong") }
    let t2 = now()
    for i in 0..<steps {
        if i % 10 == 5 { foreignInsert() }
        do { try doc.redo(scope: .session("author"), time: 4e9) } catch { fail("redo \(i): \(error)") }
    }
    let redoSeconds = now() - t2
    guard doc.text.replacingOccurrences(of: marker, with: "") == end else { fail("text after redos is wrong") }

    func f(_ x: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", x) }
    print("{\"lib\":\"tandem\",\"patches\":\(n),\"final_ok\":true,\"replay_s\":\(f(replaySeconds, 4)),"
        + "\"replay_us_per_edit\":\(f(replaySeconds / Double(n) * 1e6)),\"undo_s\":\(f(undoSeconds, 5)),"
        + "\"redo_s\":\(f(redoSeconds, 5)),\"undo_steps\":\(steps),\"foreign_edits\":\(foreign),"
        + "\"undo_early_us\":\(f(undoEarly, 2)),\"undo_late_us\":\(f(undoLate, 2)),"
        + "\"history_mb\":\(f(historyMiB, 2)),\"heap_mb\":\(f(heapMiB, 2)),\"revision\":\(doc.revision),\"peak_rss_mb\":\(f(peakRSSMiB(), 1))}")
}

/// Issue 42's goals on the trace: the authorship of the final text, its upkeep against the
/// replay, its memory against the text's, a diff between the first and last of 100 versions.
/// Two people take turns every `turn` patches, so authorship has a mark per turn.
func runAuthorship(_ path: String) {
    let (start, end, patches) = loadTrace(path)
    let n = patches.count, turn = 100
    let heapBefore = heapInUseBytes()
    let doc = Document(text: start, author: "ada")
    // Each version as a save keeps it: text, unit identities, and its authors encoded.
    var versions: [(text: [UInt16], units: UnitRuns, revision: Int, authors: [UInt8])] = []
    let every = max(1, n / 99)
    var replaySeconds = 0.0
    for (i, p) in patches.enumerated() {
        if i % every == 0 || i == n - 1 {
            versions.append((Array(doc.text.utf16), try! doc.unitRuns(), doc.revision, Authorship.Run.encode(try! doc.authors())))
        }
        let t = now()
        do {
            let op = try TextOperation.replace(from: p.position, to: p.position + p.deleted, with: p.inserted, length: doc.length)
            try doc.apply(op, session: (i / turn) % 2 == 0 ? "ada" : "bob", options: options, time: Double(i))
        } catch { fail("patch \(i): \(error)") }
        replaySeconds += now() - t
    }
    guard doc.text == end else { fail("final text differs from endContent") }
    versions.append((Array(doc.text.utf16), try! doc.unitRuns(), doc.revision, Authorship.Run.encode(try! doc.authors())))
    let heapMiB = Double(heapInUseBytes() - heapBefore) / 1_048_576

    // The upkeep: the same insertions noted again into marks of their own, timed alone.
    var inserts: [(first: Int64, count: Int, author: String)] = []
    var next: Int64 = Int64(start.utf16.count) + 1
    for (i, p) in patches.enumerated() where !p.inserted.isEmpty {
        let count = p.inserted.utf16.count
        inserts.append((next, count, (i / turn) % 2 == 0 ? "ada" : "bob"))
        next += Int64(count)
    }
    var marks = Authorship()
    let t0 = now()
    for e in inserts { marks.inserted(first: e.first, count: e.count, by: e.author) }
    let upkeepSeconds = now() - t0
    guard marks.firsts.count <= doc.authorship.firsts.count + 1 else { fail("the marks differ") }

    var authorSamples: [Double] = []
    var runs = 0
    for _ in 0..<9 {
        let t = now()
        runs = (try? doc.authors().count) ?? 0
        authorSamples.append(now() - t)
    }
    let first = versions[0], last = versions[versions.count - 1]
    var diffSamples: [Double] = []
    var stretches = 0
    for _ in 0..<5 {
        let t = now()
        guard let d = TextChanges.between((first.text, first.units), (last.text, last.units), authorship: doc.authorship) else { fail("no identity diff") }
        stretches = d.stretches.count
        diffSamples.append(now() - t)
    }
    let tl = now()
    let lineDiff = TextChanges.lines(from: first.text, to: last.text)
    let lineSeconds = now() - tl
    // Past the log: the line diff named by the authors the two versions stored.
    let ta = now()
    guard let authorsOfA = Authorship.Run.decode(first.authors), let authorsOfB = Authorship.Run.decode(last.authors) else { fail("stored authors unreadable") }
    let named = lineDiff.attributed(from: first.text, to: last.text, authorsOfA: authorsOfA, authorsOfB: authorsOfB)
    let namedSeconds = now() - ta + lineSeconds
    let textBytes = doc.text.utf8.count
    func median(_ x: [Double]) -> Double { x.sorted()[x.count / 2] }
    func f(_ x: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", x) }
    print("{\"patches\":\(n),\"replay_s\":\(f(replaySeconds, 4)),\"authorship_runs\":\(runs),\"marks\":\(doc.authorship.firsts.count),"
        + "\"authorship_ms\":\(f(median(authorSamples) * 1e3)),\"upkeep_ms\":\(f(upkeepSeconds * 1e3)),"
        + "\"upkeep_share\":\(f(upkeepSeconds / replaySeconds, 4)),\"marks_bytes\":\(doc.authorship.allocatedBytes),"
        + "\"text_bytes\":\(textBytes),\"marks_per_text\":\(f(Double(doc.authorship.allocatedBytes) / Double(textBytes), 4)),"
        + "\"versions\":\(versions.count),\"diff_ms\":\(f(median(diffSamples) * 1e3)),\"diff_stretches\":\(stretches),"
        + "\"line_diff_ms\":\(f(lineSeconds * 1e3)),\"line_diff_stretches\":\(lineDiff.stretches.count),"
        + "\"line_diff_named_ms\":\(f(namedSeconds * 1e3)),\"line_diff_named_stretches\":\(named.stretches.count),"
        + "\"stored_authors_bytes\":\(last.authors.count),"
        + "\"heap_mb\":\(f(heapMiB, 2)),\"history_mb\":\(f(Double(doc.historyBytes) / 1_048_576, 2))}")
}

/// Baseline for comparison: the same patches applied to a bare Rope.
func runRope(_ path: String) {
    let (start, end, patches) = loadTrace(path)
    var rope = Rope(start)
    let t0 = now()
    for p in patches { rope.replace(p.position..<p.position + p.deleted, with: p.inserted) }
    let seconds = now() - t0
    guard rope.description == end else { fail("rope text differs") }
    print("{\"lib\":\"rope\",\"replay_s\":\(seconds),\"replay_us_per_edit\":\(seconds / Double(patches.count) * 1e6)}")
}

let args = CommandLine.arguments
if args.count == 3 && args[1] == "rope" {
    runRope(args[2])
} else if args.count == 3 && args[1] == "trace" {
    runTrace(args[2])
} else if args.count == 3 && args[1] == "authorship" {
    runAuthorship(args[2])
} else {
    fail("usage: tandem-bench trace|authorship|rope <path.json.gz>")
}
