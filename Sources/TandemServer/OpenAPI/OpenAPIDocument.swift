/// Builds `GET /openapi.json` from the same endpoint list the router is made of.
enum OpenAPIDocument {
    static func build(_ endpoints: [Endpoint], version: String) -> JSONValue {
        var paths: [(String, [(String, JSONValue)])] = []
        for e in endpoints {
            let op = operation(e)
            if let i = paths.firstIndex(where: { $0.0 == e.path }) {
                paths[i].1.append((e.method.rawValue.lowercased(), op))
            } else {
                paths.append((e.path, [(e.method.rawValue.lowercased(), op)]))
            }
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Tandem",
                "version": .string(version),
                "description": "Collaborative text editing with per-session undo. Positions are UTF-16 code units.",
            ],
            "paths": .object(paths.map { ($0.0, .object($0.1)) }),
            "components": [
                "schemas": .object(Schemas.components),
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer", "description": "A session's token (POST /sessions)"],
                    "link": ["type": "apiKey", "in": "header", "name": "Tandem-Link",
                             "description": "A share link's token: its role in its document (also ?link= in a URL)"],
                    "operator": ["type": "apiKey", "in": "header", "name": "Tandem-Admin-Key",
                                 "description": "The operator key (--admin-key): an owner's rights on every document"],
                ],
            ],
        ]
    }

    private static func operation(_ e: Endpoint) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("operationId", .string(e.operationID)),
            ("summary", .string(e.summary)),
            ("tags", [.string(e.tag)]),
        ]
        var params: [JSONValue] = pathParameters(e.path).map { name in
            ["name": .string(name), "in": "path", "required": true, "schema": ["type": "string"]]
        }
        params += e.parameters
        let replayable = e.method != .get && !(e.method == .post && e.path == "/sessions")
        if replayable, !e.parameters.contains(where: { $0["name"] == "Idempotency-Key" }) {
            params.append(Endpoint.header("Idempotency-Key", idempotencyDescription))
        }
        if !params.isEmpty { members.append(("parameters", .array(params))) }
        if let body = e.requestBody { members.append(("requestBody", body)) }
        var responses: [(String, JSONValue)] = []
        for r in withCommonResponses(e, replayable: replayable) {
            var resp: [(String, JSONValue)] = [("description", .string(r.description))]
            if let schema = r.schema {
                resp.append(("content", .object([(r.mediaType, .object([("schema", schema)]))])))
            }
            responses.append((String(r.status), .object(resp)))
        }
        members.append(("responses", .object(responses)))
        members.append(("security", .array([.object([]), ["bearer": []], ["link": []], ["operator": []], ["bearer": [], "link": []]])))
        return .object(members)
    }

    static let idempotencyDescription = """
        Makes a resend safe: 1 to 128 bytes, scoped to the session (or for anonymous requests \
        to the document); a resend of the same request answers the first answer with \
        Idempotent-Replayed: true, the same key with a different request is 422 idempotency_key_reused. \
        With several servers on one database, a resend to another server while the first is unanswered \
        waits for it, or is 409 idempotency_key_in_flight when it stays unanswered.
        """

    /// Answers every operation can give whatever its own list says: 401 for a wrong token on
    /// any route, and for changes the Idempotency-Key errors.
    static func withCommonResponses(_ e: Endpoint, replayable: Bool) -> [Endpoint.Response] {
        var all = e.responses
        func add(_ status: Int, _ description: String) {
            if !all.contains(where: { $0.status == status }) { all.append(Endpoint.error(status, description)) }
        }
        add(401, "A wrong or expired token, link or operator key")
        if e.path.hasPrefix("/documents/{id}") {
            add(403, "Not allowed by the document's access rules")
            add(404, "No such document, or one the caller may not see")
        }
        if replayable {
            add(400, "Malformed Idempotency-Key")
            add(409, "The first request with this Idempotency-Key is still unanswered on another server (idempotency_key_in_flight)")
            add(422, "Idempotency-Key reused with a different request (idempotency_key_reused)")
        }
        return all.sorted { $0.status < $1.status }
    }

    static func pathParameters(_ path: String) -> [String] {
        var out: [String] = []
        var current: String?
        for c in path {
            if c == "{" { current = "" } else if c == "}" { if let n = current { out.append(n) }; current = nil } else if current != nil { current!.append(c) }
        }
        return out
    }
}

extension Endpoint {
    static func json(_ status: Int, _ description: String, _ schema: JSONValue) -> Response {
        Response(status: status, description: description, schema: schema)
    }
    static func error(_ status: Int, _ description: String) -> Response {
        Response(status: status, description: description, schema: Schemas.ref("Error"))
    }
    static func jsonBody(_ schema: JSONValue, required: Bool = true) -> JSONValue {
        ["required": .bool(required), "content": ["application/json": ["schema": schema]]]
    }
    static func query(_ name: String, _ schema: JSONValue, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "query", "required": false, "schema": schema, "description": .string(description)]
    }
    static func header(_ name: String, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "header", "required": false, "schema": ["type": "string"], "description": .string(description)]
    }
}
