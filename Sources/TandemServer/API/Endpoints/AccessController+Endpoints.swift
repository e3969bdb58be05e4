import TandemHTTP

/// The endpoints of `AccessController`: paths, OpenAPI descriptions and handlers.
extension AccessController {
    var endpoints: [Endpoint] {
        let ownerOnly: [Endpoint.Response] = [
            Endpoint.error(401, "A bad token, link or operator key"),
            Endpoint.error(403, "Not the owner"),
            Endpoint.error(404, "No such document (or one the caller may not see)"),
        ]
        let stored = Endpoint.error(503, "The store cannot save")
        return [
            Endpoint(
                method: .get, path: "/documents/{id}/access", operationID: "getAccess",
                summary: "The document's mode, owner, members and share links (never a token)", tag: "Access",
                responses: [Endpoint.json(200, "The access rules", Schemas.ref("Access"))] + ownerOnly,
                handler: { [self] _, ctx, res in
                    res.respond { () throws(APIError) in .json(accessJSON(service.access.accessRules(of: try ctx.requestedDocument()))) }
                }
            ),
            Endpoint(
                method: .put, path: "/documents/{id}/members/{session}", operationID: "setMember",
                summary: "Grant a live session the role editor or viewer", tag: "Access",
                requestBody: Endpoint.jsonBody(Schemas.object([("role", ["type": "string", "enum": ["editor", "viewer"]])], required: ["role"])),
                responses: [Endpoint.json(200, "The access rules", Schemas.ref("Access")),
                            Endpoint.error(400, "Malformed JSON or role"), Endpoint.error(415, "Body is not JSON"),
                            Endpoint.error(422, "No live session has that id"), stored] + ownerOnly,
                handler: { [self] req, ctx, res in setMember(req, ctx, res) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/members", operationID: "shareWithUser",
                summary: "Share with a user, named by sign-in name, as editor or viewer", tag: "Access",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("user", ["type": "string", "minLength": 1]),
                    ("role", ["type": "string", "enum": ["editor", "viewer"]]),
                ], required: ["user", "role"])),
                responses: [Endpoint.json(200, "The access rules", Schemas.ref("Access")),
                            Endpoint.error(400, "Malformed JSON, user or role"), Endpoint.error(415, "Body is not JSON"),
                            Endpoint.error(409, "The document has as many members as it may"),
                            Endpoint.error(422, "No user signs in with that name"), stored] + ownerOnly,
                handler: { [self] req, ctx, res in shareWithUser(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/members/{session}", operationID: "removeMember",
                summary: "Revoke a session's role; its event streams end if it may no longer read", tag: "Access",
                responses: [Endpoint.Response(status: 204, description: "Revoked"), stored] + ownerOnly.map {
                    $0.status == 404 ? Endpoint.error(404, "No such document, or the session has no role in it") : $0
                },
                handler: { [self] req, ctx, res in removeMember(req, ctx, res) }
            ),
            Endpoint(
                method: .post, path: "/documents/{id}/links", operationID: "createLink",
                summary: "Make a share link with a role; its token is shown only in this answer", tag: "Access",
                requestBody: Endpoint.jsonBody(Schemas.object([
                    ("role", ["type": "string", "enum": ["owner", "editor", "viewer"]]),
                    ("expiresIn", ["type": "integer", "minimum": 1, "maximum": .integer(Self.maxLinkLifetime)]),
                ], required: ["role"])),
                responses: [Endpoint.json(201, "The link and its token", Schemas.ref("ShareLink")),
                            Endpoint.error(400, "Malformed JSON, role or expiresIn"), Endpoint.error(409, "Too many links (too_many_links), or a viewer link on an open or editable document (link_grants_less)"),
                            Endpoint.error(415, "Body is not JSON"), stored] + ownerOnly,
                handler: { [self] req, ctx, res in createLink(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/documents/{id}/links/{link}", operationID: "revokeLink",
                summary: "Revoke a share link; event streams opened with it end", tag: "Access",
                responses: [Endpoint.Response(status: 204, description: "Revoked"), stored] + ownerOnly.map {
                    $0.status == 404 ? Endpoint.error(404, "No such document or link") : $0
                },
                handler: { [self] req, ctx, res in revokeLink(req, ctx, res) }
            ),
            Endpoint(
                method: .delete, path: "/sessions/{id}", operationID: "endAnySession",
                summary: "The operator ends any session (Tandem-Admin-Key)", tag: "Sessions",
                responses: [Endpoint.Response(status: 204, description: "Ended"),
                            Endpoint.error(401, "A bad token, link or operator key"), Endpoint.error(403, "Not the operator"),
                            Endpoint.error(404, "No such session"), stored],
                handler: { [self] req, ctx, res in endAnySession(req, ctx, res) }
            ),
        ]
    }
}
