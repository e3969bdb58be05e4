import TandemHTTP

/// Query parameters judged as body fields are: on a route that checks them, one it does not
/// know is `400 invalid_field` (a typo, or a body field sent in the URL, is never silently
/// ignored), and a number is range-checked where it is read.
enum QueryParameters {
    /// `link` (a share link, `AuthenticationMiddleware`) is every route's.
    static let everyRoute = ["link"]

    /// Refuses a parameter that is neither in `names` nor one every route takes.
    static func allowOnly(_ req: HTTPRequest, _ names: [String]) throws(APIError) {
        guard let query = req.query else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let raw = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let name = PercentDecoding.decode(raw, plusAsSpace: true) ?? String(raw)
            guard names.contains(name) || everyRoute.contains(name) else {
                let known = names.isEmpty ? "this route takes none" : "expected one of: \(names.sorted().joined(separator: ", "))"
                throw .invalidField(name, "unknown query parameter (\(known))")
            }
        }
    }

    /// A position (0 to 2^53−1, written as a plain integer), nil when absent.
    static func position(_ req: HTTPRequest, _ name: String) throws(APIError) -> Int? {
        guard let raw = req.queryValue(name) else { return nil }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let n = Int(raw), n <= JSONValue.maxSafeInteger else {
            throw .invalidField(name, "must be a position: an integer from 0 to \(JSONValue.maxSafeInteger)")
        }
        return n
    }
}
