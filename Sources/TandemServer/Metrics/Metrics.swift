import Foundation
import Synchronization

/// Counters and a latency histogram, rendered in the Prometheus text format (0.0.4).
/// Gauges are read at scrape time from closures, so nothing is counted twice.
public final class Metrics: Sendable {
    struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct State {
        var requests: [RequestKey: Int] = [:]
        var buckets = [Int](repeating: 0, count: Metrics.bucketBounds.count)
        var latencyCount = 0
        var latencySum = 0.0
        var counters: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let gauges = Mutex<[(name: String, help: String, read: @Sendable () -> Int)]>([])

    public init() {}

    public func observeRequest(method: String, route: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            s.latencyCount += 1
            s.latencySum += seconds
            for (i, bound) in Metrics.bucketBounds.enumerated() where seconds <= bound {
                s.buckets[i] += 1
                break
            }
        }
    }

    /// Adds to a named counter such as `tandem_changes_applied_total{kind="edit"}`.
    public func increment(_ series: String, by n: Int = 1) {
        state.withLock { $0.counters[series, default: 0] += n }
    }

    public func counter(_ series: String) -> Int { state.withLock { $0.counters[series] ?? 0 } }

    public func registerGauge(_ name: String, help: String, _ read: @escaping @Sendable () -> Int) {
        gauges.withLock { $0.append((name, help, read)) }
    }

    public func render() -> String {
        let s = state.withLock { $0 }
        var out = ""
        out += "# HELP tandem_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE tandem_http_requests_total counter\n"
        for (k, v) in s.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "tandem_http_requests_total{method=\"\(k.method)\",route=\"\(escape(k.route))\",status=\"\(k.status)\"} \(v)\n"
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
            out += "# HELP \(g.name) \(g.help)\n# TYPE \(g.name) gauge\n\(g.name) \(g.read())\n"
        }
        return out
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
