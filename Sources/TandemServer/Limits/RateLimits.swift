/// The per-client rate limits (`--rate-limit NAME=COUNT/SECONDS`): each client address may
/// do COUNT of a thing at once, and gets them back evenly over SECONDS (a token bucket).
public struct RateLimits: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        case sessions, documents, pasteboards, links
        /// Requests whose bearer token, share link or operator key is wrong.
        case auth
    }

    public struct Rule: Sendable, Equatable {
        public var count: Int
        public var seconds: Double
        public var perSecond: Double { Double(count) / seconds }
    }

    /// Far above what a person or an office behind one address does in a minute, far below
    /// the thousands per second an attack makes. The e2e harness raises them: its access
    /// matrix makes documents and links at a pace no client does.
    public var rules: [Name: Rule] = [
        .sessions: Rule(count: 1000, seconds: 60),
        .documents: Rule(count: 1000, seconds: 60),
        .pasteboards: Rule(count: 1000, seconds: 60),
        .links: Rule(count: 1000, seconds: 60),
        .auth: Rule(count: 1000, seconds: 60),
    ]

    public init() {}

    /// Parses `NAME=COUNT/SECONDS` (COUNT 0 turns the limit off) into this set.
    public mutating func set(_ spec: String) throws(RateLimitSpecError) {
        let parts = spec.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let name = Name(rawValue: String(parts[0])) else {
            throw RateLimitSpecError("\(spec): the name must be one of \(Name.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let numbers = parts[1].split(separator: "/", maxSplits: 1)
        guard numbers.count == 2, let count = Int(numbers[0]), let seconds = Double(numbers[1]),
              (0...1_000_000).contains(count), seconds >= 1, seconds <= 86_400
        else { throw RateLimitSpecError("\(spec): write COUNT/SECONDS, COUNT 0 to 1,000,000, SECONDS 1 to 86,400") }
        rules[name] = Rule(count: count, seconds: seconds)
    }

    public var description: String {
        Name.allCases.compactMap { n in rules[n].map { "\(n.rawValue)=\($0.count)/\(Self.format($0.seconds))" } }.joined(separator: " ")
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

public struct RateLimitSpecError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
