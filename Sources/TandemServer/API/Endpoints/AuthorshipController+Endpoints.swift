import TandemHTTP

/// The endpoints of `AuthorshipController`: paths, OpenAPI descriptions and handlers.
extension AuthorshipController {
    var endpoints: [Endpoint] {
        let person: JSONValue = Schemas.object([
            ("id", Schemas.string), ("name", Schemas.nullableString), ("color", Schemas.nullableString), ("user", Schemas.nullableString),
        ], required: ["id", "name", "color", "user"])
        let run: JSONValue = Schemas.object([
            ("from", Schemas.nonNegative), ("to", Schemas.nonNegative), ("author", Schemas.nullableString),
        ], required: ["from", "to", "author"])
        let stretch: JSONValue = Schemas.object([
            ("kind", ["type": "string", "enum": ["insert", "delete"]]), ("at", Schemas.nonNegative), ("text", Schemas.string),
            ("author", Schemas.nullableString),
        ], required: ["kind", "at", "text", "author"])
        let end: JSONValue = Schemas.object([
            ("version", ["oneOf": [Schemas.nonNegative, ["type": "string", "enum": ["current"]]]]), ("revision", Schemas.nonNegative),
        ], required: ["version", "revision"])
        return [
            Endpoint(
                method: .get, path: "/documents/{id}/authorship", operationID: "getAuthorship",
                summary: "Who wrote each part of the text: runs of UTF-16 ranges by author (a user, or a session without one); text an undo put back keeps its first writer", tag: "Documents",
                parameters: [
                    Endpoint.query("revision", Schemas.nonNegative, "An earlier revision still in the log, or a saved version's (default: now)"),
                    Endpoint.query("version", Schemas.nonNegative, "A saved version, instead of a revision"),
                ],
                responses: [
                    Endpoint.json(200, "The runs, in order, and the people they name", Schemas.object([
                        ("revision", Schemas.nonNegative), ("version", ["type": ["integer", "null"], "minimum": 0]),
                        ("runs", Schemas.array(run)), ("authors", Schemas.array(person)),
                    ], required: ["revision", "version", "runs", "authors"])),
                    Endpoint.error(400, "revision or version is not a number, or both are given"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document or version"),
                    Endpoint.error(410, "The revision is older than the kept log, and no saved version has it"),
                    Endpoint.error(422, "The revision is in the future"),
                    Endpoint.error(503, "The store cannot be read"),
                ],
                handler: { [self] req, ctx, res in authorship(req, ctx, res) }
            ),
            Endpoint(
                method: .get, path: "/documents/{id}/versions/{n}/diff", operationID: "diffVersions",
                summary: "What changed from version n to another version or now: insertions and deletions, each at its place in the later text, with authors where known (by the change log while it covers both, else a line diff)", tag: "Documents",
                parameters: [Endpoint.query("to", ["oneOf": [Schemas.nonNegative, ["type": "string", "enum": ["current"]]]], "The later version's number, or current (default)")],
                responses: [
                    Endpoint.json(200, "The changes, in order of place", Schemas.object([
                        ("from", end), ("to", end), ("method", ["type": "string", "enum": ["log", "text"]]),
                        ("inserted", Schemas.nonNegative), ("deleted", Schemas.nonNegative),
                        ("changes", Schemas.array(stretch)), ("authors", Schemas.array(person)),
                    ], required: ["from", "to", "method", "inserted", "deleted", "changes", "authors"])),
                    Endpoint.error(400, "n or to is not a version number"),
                    Endpoint.error(401, "Bad token"),
                    Endpoint.error(404, "No such document or version"),
                    Endpoint.error(503, "The store cannot be read"),
                ],
                handler: { [self] req, ctx, res in diff(req, ctx, res) }
            ),
        ]
    }
}
