import Foundation
import Synchronization

/// Counters and a latency histogram, rendered in the Prometheus text format (0.0.4).
/// Gauges are read at scrape time from closures, so nothing is counted twice.
public final class Metrics: Sendable {
    /// A (method, route) pair registered once: requests are counted by its index, so the
    /// hot path hashes no strings.
    public struct Route: Sendable {
        let index: Int
    }

    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Status codes 100...599, one counter each per route.
    static let statusSlots = 500

    struct State {
        var requests: [Int] = []
        var buckets = [Int](repeating: 0, count: Metrics.bucketBounds.count)
        var latencyCount = 0
        var latencySum = 0.0
        var counters: [String: Int] = [:]

        mutating func fit(routes: Int) {
            let needed = routes * Metrics.statusSlots
            if requests.count < needed { requests += [Int](repeating: 0, count: needed - requests.count) }
        }
    }

    final class Shard: Sendable {
        let state = Mutex(State())
    }

    /// Every thread that answers requests (the event loops, the store's commit thread) counts
    /// into its own shard, picked by thread, so requests never contend for one shared lock.
    private let shards: [Shard] = (0..<8).map { _ in Shard() }
    private let routes = Mutex<[(method: String, route: String)]>([])
    private let gauges = Mutex<[(name: String, help: String, type: String, read: @Sendable () -> String)]>([])

    public init() {}

    private var shard: Shard {
        // pthread_t is the thread's control block address: page-aligned, megabytes apart.
        let t = UInt(pthread_self())
        let h = (t >> 12) ^ (t >> 21)
        return shards[Int(h % UInt(shards.count))]
    }

    /// Registers a route to count requests of; the same pair gives the same route.
    public func route(method: String, route: String) -> Route {
        routes.withLock { r in
            if let i = r.firstIndex(where: { $0.method == method && $0.route == route }) { return Route(index: i) }
            r.append((method, route))
            return Route(index: r.count - 1)
        }
    }

    public func observeRequest(_ route: Route, status: Int, seconds: Double) {
        let slot = route.index * Self.statusSlots + (min(max(status, 100), 599) - 100)
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 }
        let routeCount = route.index + 1
        shard.state.withLock { s in
            if s.requests.count <= slot { s.fit(routes: routeCount) }
            s.requests[slot] += 1
            s.latencyCount += 1
            s.latencySum += seconds
            if let bucket { s.buckets[bucket] += 1 }
        }
    }

    /// Adds to a named counter such as `tandem_changes_applied_total{kind="edit"}`.
    public func increment(_ series: String, by n: Int = 1) {
        shard.state.withLock { $0.counters[series, default: 0] += n }
    }

    public func counter(_ series: String) -> Int { merged().counters[series] ?? 0 }

    /// Every shard added up.
    private func merged() -> State {
        var total = State()
        for shard in shards {
            let s = shard.state.withLock { $0 }
            total.fit(routes: s.requests.count / Self.statusSlots)
            for (i, n) in s.requests.enumerated() where n != 0 { total.requests[i] += n }
            for (i, n) in s.buckets.enumerated() { total.buckets[i] += n }
            total.latencyCount += s.latencyCount
            total.latencySum += s.latencySum
            total.counters.merge(s.counters, uniquingKeysWith: +)
        }
        return total
    }

    public func registerGauge(_ name: String, help: String, _ read: @escaping @Sendable () -> Int) {
        gauges.withLock { $0.append((name, help, "gauge", { String(read()) })) }
    }

    /// A counter kept elsewhere (the store's), read when the metrics are rendered.
    public func registerCounter(_ name: String, help: String, _ read: @escaping @Sendable () -> Int) {
        gauges.withLock { $0.append((name, help, "counter", { String(read()) })) }
    }

    /// A counter of time kept elsewhere in nanoseconds, rendered in seconds as Prometheus wants.
    public func registerSecondsCounter(_ name: String, help: String, nanoseconds read: @escaping @Sendable () -> UInt64) {
        gauges.withLock { $0.append((name, help, "counter", { String(Double(read()) / 1e9) })) }
    }

    public func render() -> String {
        let s = merged()
        let names = routes.withLock { $0 }
        var out = ""
        out += "# HELP tandem_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE tandem_http_requests_total counter\n"
        var rows: [(route: String, method: String, status: Int, count: Int)] = []
        for (i, n) in s.requests.enumerated() where n != 0 {
            let name = names[i / Self.statusSlots]
            rows.append((name.route, name.method, 100 + i % Self.statusSlots, n))
        }
        for r in rows.sorted(by: { ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status) }) {
            out += "tandem_http_requests_total{method=\"\(r.method)\",route=\"\(escape(r.route))\",status=\"\(r.status)\"} \(r.count)\n"
        }
        out += "# HELP tandem_http_request_duration_seconds Time from a parsed request to its response.\n"
        out += "# TYPE tandem_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in Metrics.bucketBounds.enumerated() {
            cumulative += s.buckets[i]
            out += "tandem_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "tandem_http_request_duration_seconds_bucket{le=\"+Inf\"} \(s.latencyCount)\n"
        out += "tandem_http_request_duration_seconds_sum \(s.latencySum)\n"
        out += "tandem_http_request_duration_seconds_count \(s.latencyCount)\n"
        var seenFamilies = Set<String>()
        for (series, v) in s.counters.sorted(by: { $0.key < $1.key }) {
            let family = String(series.prefix { $0 != "{" })
            if seenFamilies.insert(family).inserted {
                out += "# TYPE \(family) counter\n"
            }
            out += "\(series) \(v)\n"
        }
        for g in gauges.withLock({ $0 }) {
            out += "# HELP \(g.name) \(g.help)\n# TYPE \(g.name) \(g.type)\n\(g.name) \(g.read())\n"
        }
        return out
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
