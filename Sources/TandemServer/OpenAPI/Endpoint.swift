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
    /// What the caller must be allowed in the document the path names (`AccessMiddleware`).
    var access: AccessRule = .none
    var handler: RouteHandler

    struct Response: Sendable {
        var status: Int
        var description: String
        var schema: JSONValue?
        var mediaType: String = "application/json"
    }

    init(method: HTTPMethod, path: String, operationID: String, summary: String, tag: String,
         parameters: [JSONValue] = [], requestBody: JSONValue? = nil, responses: [Response],
         access: AccessRule = .none, handler: @escaping RouteHandler) {
        self.method = method
        self.path = path
        self.operationID = operationID
        self.summary = summary
        self.tag = tag
        self.parameters = parameters
        self.requestBody = requestBody
        self.responses = responses
        self.access = access
        self.handler = handler
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
