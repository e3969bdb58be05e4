import TandemHTTP

/// One operation of the API: how it is routed and how it is described. The router and
/// `GET /openapi.json` are both made from the same list, so the document cannot miss a
/// route or describe one that does not exist.
struct Endpoint: Sendable {
    var method: HTTPMethod
    /// OpenAPI path template, `{id}` for parameters.
    var path: String
    var operationID: String
    var summary: String
    var tag: String
    var parameters: [JSONValue] = []
    var requestBody: JSONValue? = nil
    /// Status code → (description, content schema or nil, media type).
    var responses: [Response]
    var handler: HTTPHandler

    struct Response: Sendable {
        var status: Int
        var description: String
        var schema: JSONValue?
        var mediaType: String = "application/json"
    }

    /// The router's pattern: `{id}` becomes `:id`.
    var routerPattern: String {
        var out = ""
        var inParam = false
        for c in path {
            if c == "{" { inParam = true; out.append(":") }
            else if c == "}" { inParam = false }
            else { out.append(c) }
        }
        _ = inParam
        return out
    }
}
