/// The run's raw figures, computed once both loops are done, as one JSON object.
enum Figures {
    /// The same rank as the orchestrator always used: sorted, index round(p/100·(n−1)),
    /// rounding half to even as Python's `round` does.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = (p / 100 * Double(sorted.count - 1)).rounded(.toNearestOrEven)
        return sorted[min(sorted.count - 1, Int(rank))]
    }

    static func report(sessions: EditSessions, subscribers: Subscribers, plan: Plan) -> JSON {
        var phases: [(String, JSON)] = []
        var generatorSessions: [(String, JSON)] = []
        var generatorProcess: [(String, JSON)] = []
        // Phases of one kind (the rounds of an alternating timetable) count as one: their
        // answers pooled, their CPU weighted by their length.
        for kind in PhaseKind.allCases {
            let records = sessions.records.filter { $0.phase.kind == kind }
            guard !records.isEmpty else { continue }
            let ms = records.flatMap { $0.latencies.map { Double($0) / 1e6 } }.sorted()
            let lengths = records.map { Double($0.phase.end - $0.phase.start) / 1e9 }
            let seconds = lengths.reduce(0, +)
            let errors = records.reduce(into: [String: Int]()) { all, r in all.merge(r.errors, uniquingKeysWith: +) }
            let weighted = { (value: (CPUWindow) -> Double) in
                zip(records, lengths).reduce(0) { $0 + value($1.0.cpu) * $1.1 } / max(seconds, 1e-9)
            }
            phases.append((kind.rawValue, .object([
                ("answered", .int(ms.count)),
                ("seconds", .number(seconds)),
                ("rounds", .int(records.count)),
                // Each window's own count, in timetable order, for per-window cost figures.
                ("answered_by_round", .array(records.map { .int($0.latencies.count) })),
                ("p50_ms", .number(percentile(ms, 50))),
                ("p99_ms", .number(percentile(ms, 99))),
                ("errors", .object(errors.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ])))
            generatorSessions.append((kind.rawValue, .number(weighted(\.threadShare))))
            generatorProcess.append((kind.rawValue, .number(weighted(\.processCores))))
        }

        // One acknowledgement per revision of a document, as a map from revision to time would
        // keep; the session that got it tells its node.
        let documents = plan.documents.count
        var acks: [Int: (time: UInt64, session: Int32)] = [:]
        acks.reserveCapacity(sessions.ackRevisions.count)
        var duplicateAcks = 0
        for k in sessions.ackRevisions.indices {
            let key = Int(sessions.ackDocuments[k]) &<< 40 | sessions.ackRevisions[k]
            if acks.updateValue((sessions.ackTimes[k], sessions.ackSessions[k]), forKey: key) != nil { duplicateAcks += 1 }
        }
        // Each document's audience: the subscribers whose stream started (a refused one is
        // counted apart; one lost later still counts, and what it missed is a miss).
        var audience = Array(repeating: [Subscriber](), count: documents)
        for s in subscribers.subscribers where s.started {
            audience[plan.subscribers[s.index].document].append(s)
        }
        var fanout: [Double] = []
        fanout.reserveCapacity(acks.count)
        var missed: [(document: Int, revision: Int)] = []
        var missedDeliveries = 0
        var missedByPort: [UInt16: Int] = [:]
        var missedCrossNode = 0
        var unwatched = 0
        for (key, ack) in acks {
            let document = key >> 40, rev = key & (1 << 40 - 1)
            let table = subscribers.tables[document], all = audience[document].count
            guard all > 0 else { unwatched += 1; continue }
            let n = table.deliveries(of: rev)
            if n >= all {
                // Signed: a subscriber may read the frame before the session reads its answer.
                let latest = table.latestArrival(of: rev)
                fanout.append(Double(Int64(bitPattern: latest &- ack.time)) / 1e6)
            } else {
                missed.append((document, rev))
                missedDeliveries += all - n
                let origin = sessions.sessions[Int(ack.session)].port
                for s in audience[document] where !table.delivered(rev, to: s.slot) {
                    missedByPort[s.port, default: 0] += 1
                    if s.port != origin { missedCrossNode += 1 }
                }
            }
        }
        let delivered = fanout.count
        // A miss is infinitely late: it weighs on the percentiles instead of vanishing.
        fanout.append(contentsOf: repeatElement(Double.infinity, count: missed.count))
        fanout.sort()
        missed.sort { ($0.document, $0.revision) < ($1.document, $1.revision) }
        let firstMissed: [JSON] = missed.prefix(5).map {
            documents == 1 ? .int($0.revision) : .string("\(plan.documents[$0.document].id)@\($0.revision)")
        }

        // Every revision, acknowledged or not: for cross-checks against the server's own.
        var seenByAll = 0, seenBySome = 0
        for d in 0..<documents where !audience[d].isEmpty {
            let table = subscribers.tables[d], all = audience[d].count
            guard table.highestIndex > 0 else { continue }
            for rev in (table.startRevision + 1)...(table.startRevision + table.highestIndex) {
                let n = table.deliveries(of: rev)
                if n > 0 { seenBySome += 1 }
                if n >= all { seenByAll += 1 }
            }
        }
        let first = subscribers.tables[0]

        return .object([
            ("start_revision", .int(first.startRevision)),
            ("documents", .int(documents)),
            ("documents_watched", .int(audience.filter { !$0.isEmpty }.count)),
            ("sessions", .int(sessions.sessions.count)),
            ("subscribers", .int(plan.subscribers.count)),
            ("subscribers_connected", .int(audience.reduce(0) { $0 + $1.count })),
            ("subscribers_refused", .object(subscribers.refused.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("phases", .object(phases)),
            ("acknowledged", .int(acks.count)),
            ("acknowledged_unwatched", .int(unwatched)),
            ("duplicate_acknowledgements", .int(duplicateAcks)),
            ("newest_acknowledged", .object([("revision", .int(sessions.newest[0].revision)), ("length", .int(sessions.newest[0].length))])),
            ("newest_by_document", .array(sessions.newest.map { .array([.int($0.revision), .int($0.length)]) })),
            ("idle_reconnects", .int(sessions.idleReconnects)),
            ("delivered_to_all", .int(delivered)),
            ("fanout_p50_ms", .number(percentile(fanout, 50))),
            ("fanout_p99_ms", .number(percentile(fanout, 99))),
            ("fanout_max_ms", .number(fanout.max() ?? 0)),
            ("fanout_missed_revisions", .int(missed.count)),
            ("fanout_missed_deliveries", .int(missedDeliveries)),
            ("fanout_missed_deliveries_by_port", .object(missedByPort.sorted { $0.key < $1.key }.map { (String($0.key), .int($0.value)) })),
            ("fanout_missed_deliveries_cross_node", .int(missedCrossNode)),
            ("fanout_first_missed", .array(firstMissed)),
            ("duplicate_deliveries", .int(subscribers.tables.reduce(0) { $0 + $1.duplicates })),
            ("unexpected_revisions", .int(subscribers.tables.reduce(0) { $0 + $1.unexpected })),
            ("highest_revision_seen", .int(first.startRevision + first.highestIndex)),
            ("revisions_seen_by_all", .int(seenByAll)),
            ("revisions_seen_by_some", .int(seenBySome)),
            ("stream_bytes", .int(subscribers.bytesRead)),
            ("stream_gzip_pieces", .object([("inflated", .int(subscribers.piecesInflated)), ("shared", .int(subscribers.piecesShared))])),
            ("subscribers_resumed", .int(subscribers.resumed)),
            ("subscribers_lost", .object(subscribers.lost.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("generator", .object([
                ("sessions_thread", .object(generatorSessions)),
                ("subscribers_thread", .object([("edit", .number(subscribers.cpu.threadShare))])),
                ("process_cores", .object(generatorProcess)),
                ("longest_turn_ms", .object([("sessions_thread", .number(Double(sessions.longestTurn.nanos) / 1e6)),
                                             ("subscribers_thread", .number(Double(subscribers.longestTurn.nanos) / 1e6))])),
            ])),
        ])
    }
}

/// Just enough JSON to print the figures; non-finite numbers come out as Python's json
/// module writes and reads them (`Infinity`, `NaN`), since a missed revision is infinitely late.
indirect enum JSON {
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    var text: String {
        switch self {
        case .int(let v): return String(v)
        case .number(let v):
            if v.isNaN { return "NaN" }
            if v.isInfinite { return v > 0 ? "Infinity" : "-Infinity" }
            return "\(v)"
        case .string(let s): return JSON.quote(s)
        case .array(let items): return "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + fields.map { JSON.quote($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
