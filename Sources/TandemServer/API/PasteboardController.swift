import TandemCore
import TandemStore
import TandemHTTP

/// Pasteboards: the caller's general one and named ones, their items and representations,
/// their sharing, and their event stream.
final class PasteboardController: RouteController {
    let service: DocumentService
    let store: any DocumentStore
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry

    init(_ context: ServerContext) {
        service = context.service
        store = context.store
        sessions = context.sessions
        pasteboards = context.pasteboards
    }

    func createPasteboard(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let s: Session, name: String?, persistent: Bool, sharing: PasteboardSharing
        do throws(APIError) {
            s = try ctx.requireSession(for: "creating a pasteboard")
            let body = try RequestBody.object(req)
            try body.allowOnly(["name", "persistent", "shared"])
            name = try body.string("name")
            if let name, !PasteboardRegistry.isValidName(name) {
                throw .invalidField("name", "must match [A-Za-z0-9._-]{1,128} and not be 'events' or 'general'")
            }
            persistent = try body.bool("persistent") ?? false
            sharing = try self.sharing(body, owner: s.person) ?? .nobody
        } catch {
            return res.send(error.response)
        }
        pasteboards.create(name: name, owner: s.person, persistent: persistent, sharing: sharing) { [sessions] result in
            res.send(result.map { p in
                .json(PasteboardJSON.pasteboard(p, names: sessions.name(ofPerson:)), status: .created, headers: ["Location": "/pasteboards/\(p.name)"])
            })
        }
    }

    func patchPasteboard(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let s: Session, persistent: Bool?, sharing: PasteboardSharing?
        do throws(APIError) {
            s = try ctx.requireSession(for: "changing a pasteboard")
            let body = try RequestBody.object(req, allowEmpty: false)
            try body.allowOnly(["persistent", "shared"])
            persistent = try body.bool("persistent")
            sharing = try self.sharing(body, owner: s.person)
            if persistent == nil, sharing == nil { throw .invalidField("persistent", "or shared is required") }
        } catch {
            return res.send(error.response)
        }
        pasteboards.update(req.parameters["name"] ?? "", persistent: persistent, sharing: sharing, by: s.pasteboardReader,
                           publish: service.events.publishPasteboard) { [self] result in
            res.send(result.map(summaryResponse))
        }
    }

    /// `shared`: "everyone" (a team pasteboard everyone reads and writes), "none" (its owner's
    /// alone) or users' sign-in names (those people read and write it too); nil when absent.
    /// Names are looked up in the store: these routes run off the loop (`storeReadOperations`).
    func sharing(_ body: RequestBody, owner: String) throws(APIError) -> PasteboardSharing? {
        let rule = "must be \"everyone\", \"none\" or an array of users' sign-in names"
        switch body.value("shared") {
        case nil, .null?: return nil
        case .string("everyone")?: return .everyone
        case .string("none")?: return .nobody
        case .array(let names)?:
            guard names.count <= PasteboardSharing.maxPeople else {
                throw .invalidField("shared", "names at most \(PasteboardSharing.maxPeople) people")
            }
            var people = Set<String>()
            for value in names {
                guard let name = value.stringValue, let key = UserName.normalized(name) else { throw .invalidField("shared", rule) }
                let user: StoredUser?
                do { user = try store.user(named: key) } catch { throw .storageFailing }
                guard let user else { throw .unprocessable("no user signs in as '\(key)'", code: "unknown_user") }
                sessions.noteUser(id: user.id, displayName: user.displayName)
                people.insert(Session.userPrefix + user.id)
            }
            people.remove(owner)
            return people.isEmpty ? .nobody : .people(people)
        default:
            throw .invalidField("shared", rule)
        }
    }

    func writeItems(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder, replace: Bool) {
        let items: [PasteboardItem]
        do throws(APIError) {
            items = try decodeItems(req)
        } catch {
            return res.send(error.response)
        }
        pasteboards.write(req.parameters["name"] ?? "", by: ctx.caller.pasteboardReader, publish: service.events.publishPasteboard, { p, limits throws(PasteboardError) in
            if replace { try p.setItems(items, limits: limits) } else { try p.addItems(items, limits: limits) }
        }, then: { [self] result in
            res.send(result.map(summaryResponse))
        })
    }

    /// A pasteboard's summary as the answer to a write.
    func summaryResponse(_ p: Pasteboard) -> HTTPResponse {
        var w = JSONWriter(capacity: 128)
        PasteboardJSON.summary(p, names: sessions.name(ofPerson:), to: &w)
        return .json(w.bytes)
    }

    /// JSON items for `application/json` (and curl's default form type); any other body is
    /// one item holding one representation of its Content-Type, or of `?type=`.
    func decodeItems(_ req: HTTPRequest) throws(APIError) -> [PasteboardItem] {
        var rawType = req.queryValue("type")
        if rawType == nil {
            guard let media = req.mediaType else {
                throw APIError(.unsupportedMediaType, "unsupported_media_type",
                               "send JSON items as application/json, or raw bytes with their Content-Type (or ?type=)")
            }
            if media == "application/json" || media == "application/x-www-form-urlencoded" {
                let json: JSONValue
                do { json = try JSONParser.parse(req.body) } catch { throw .invalidJSON("the body is not valid JSON: \(error.description)") }
                return try PasteboardJSON.items(json)
            }
            // A Content-Type is a MIME type: "public.png" there is a mistake, not a UTI.
            guard media.contains("/") else { throw .unsupportedMediaType("a MIME type a pasteboard can hold") }
            rawType = media
        }
        guard let given = rawType, let type = PasteboardType.identifier(for: given) else {
            if req.queryValue("type") != nil { throw .badRequest("type: '\(rawType ?? "")' is neither a UTI nor a MIME type", code: "invalid_type") }
            throw .unsupportedMediaType("a MIME type a pasteboard can hold")
        }
        return [PasteboardItem([PasteboardRepresentation(type: type, data: req.body)])]
    }

    func getRepresentation(_ req: HTTPRequest, _ ctx: RequestContext) throws(APIError) -> HTTPResponse {
        let p = try pasteboards.pasteboard(req.parameters["name"] ?? "", for: ctx.caller.pasteboardReader)
        guard let index = Int(req.parameters["index"] ?? ""), index >= 0 else {
            throw .invalidField("index", "must be an item index (0 or more)")
        }
        guard index < p.items.count else { throw .notFound("item \(index) of pasteboard '\(p.name)'") }
        let item = p.items[index]
        let rep: PasteboardRepresentation
        if let given = req.queryValue("type") {
            guard let type = PasteboardType.identifier(for: given) else {
                throw .badRequest("type: '\(given)' is neither a UTI nor a MIME type", code: "invalid_type")
            }
            guard let r = item[type] else { throw .notFound("a representation of type \(type) in item \(index)") }
            rep = r
        } else {
            rep = item.representations[0]
        }
        return HTTPResponse(status: .ok, contentType: PasteboardType.servedMIMEType(for: rep.type, data: rep.data), body: rep.data, headers: [
            "X-Pasteboard-Type": rep.type,
            "X-Pasteboard-Change-Count": String(p.changeCount),
            "Cache-Control": "no-store",
        ])
    }

    func pasteboardEvents(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        res.send(HTTPResponse(status: .ok, headers: ServerSentEvents.headers, body: .stream { [self] writer in
            // Subscribed before the preamble goes out: a client that has read it hears every later write.
            pasteboards.events.add(writer, caller: ctx.caller)
            writer.write(ServerSentEvents.preamble)
        }))
    }
}
