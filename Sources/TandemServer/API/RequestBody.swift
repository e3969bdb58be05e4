import TandemHTTP

/// Reading JSON request bodies with the contract's errors: 415 for another media type,
/// 400 for malformed JSON or a wrong field, and no change made.
struct RequestBody {
    let json: JSONValue

    /// An absent body counts as `{}` where every field is optional.
    static func object(_ request: HTTPRequest, allowEmpty: Bool = true) throws(APIError) -> RequestBody {
        if request.body.isEmpty {
            if allowEmpty { return RequestBody(json: .object([])) }
            throw .badRequest("a JSON body is required", code: "missing_body")
        }
        // curl -d sends application/x-www-form-urlencoded unless told otherwise; a JSON
        // body under that label is what curl users mean, so it is read as JSON.
        // What clients send almost always, spared building and lowercasing a string.
        if !declaresJSON(request), let type = request.mediaType, type != "application/json", !type.hasSuffix("+json"),
           type != "application/x-www-form-urlencoded" {
            throw .unsupportedMediaType("application/json")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            throw .invalidJSON("the body is not valid JSON: \(error.description)")
        }
        guard case .object = value else { throw .invalidJSON("the body must be a JSON object") }
        return RequestBody(json: value)
    }

    /// Whether the request's body is labelled JSON the way clients nearly always label it (or
    /// not at all): what `object` would read as JSON without building the media type.
    static func declaresJSON(_ request: HTTPRequest) -> Bool {
        let declared = request.headers["Content-Type"]
        return declared == nil || declared == "application/json" || declared == "application/json; charset=utf-8"
    }

    /// Rejects members the endpoint does not know, so a typo is an error rather than ignored.
    /// A list, not a set: keys are short strings, compared as bits faster than hashed.
    func allowOnly(_ keys: [String]) throws(APIError) {
        for k in json.objectKeys ?? [] where !keys.contains(k) {
            throw .invalidField(k, "unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ key: String) throws(APIError) -> String? {
        guard let v = json[key], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw .invalidField(key, "must be a string, not \(v.typeName)") }
        return s
    }

    func int(_ key: String) throws(APIError) -> Int? {
        guard let v = json[key], !v.isNull else { return nil }
        guard let n = v.intValue else { throw .invalidField(key, JSONValue.integerExpected(v)) }
        return n
    }

    func bool(_ key: String) throws(APIError) -> Bool? {
        guard let v = json[key], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw .invalidField(key, "must be true or false, not \(v.typeName)") }
        return b
    }

    /// The member as sent, for a field that may take several shapes.
    func value(_ key: String) -> JSONValue? { json[key] }

    func object(_ key: String) throws(APIError) -> JSONValue? {
        guard let v = json[key], !v.isNull else { return nil }
        guard case .object = v else { throw .invalidField(key, "must be an object, not \(v.typeName)") }
        return v
    }
}
