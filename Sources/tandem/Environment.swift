import Foundation

/// Reads `TANDEM_*` settings so that containers can be configured without flags.
enum Environment {
    static func string(_ name: String) -> String? {
        guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
        return v
    }

    /// A comma-separated list, for settings a flag may repeat.
    static func list(_ name: String) -> [String] {
        (string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func int(_ name: String) throws -> Int? {
        guard let s = string(name) else { return nil }
        guard let v = Int(s) else { throw EnvironmentError(name: name, value: s, expected: "an integer") }
        return v
    }

    static func double(_ name: String) throws -> Double? {
        guard let s = string(name) else { return nil }
        guard let v = Double(s) else { throw EnvironmentError(name: name, value: s, expected: "a number") }
        return v
    }
}

struct EnvironmentError: Error, CustomStringConvertible {
    var name: String
    var value: String
    var expected: String
    var description: String { "\(name)=\(value) is not \(expected)" }
}
