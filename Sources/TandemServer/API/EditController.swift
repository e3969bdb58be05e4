import TandemCore
import TandemHTTP

/// Editing a document's text: `POST …/edits` applies a change (transformed from its base),
/// `GET …/edits` pages the change log or long-polls for what comes next. Edit bodies are
/// judged here, whatever their form, before `DocumentService` sees them.
final class EditController: RouteController {
    let service: DocumentService
    let configuration: ServerConfiguration

    init(_ context: ServerContext) {
        service = context.service
        configuration = context.configuration
    }

    static let editFields = ["base", "ops", "insert", "at", "delete", "replace", "with", "actionName", "undoable", "newGroup", "discardable"]
    static let editForms = ["ops", "insert", "delete", "replace"]

    static func decodeEdit(_ req: HTTPRequest) throws(APIError) -> EditRequest {
        // The keystroke bodies first, straight from the bytes; the rest as a JSON tree.
        if RequestBody.declaresJSON(req), let edit = EditBodyScanner.scan(req.body) {
            return EditRequest(base: edit.base, options: EditOptions(), form: edit.form)
        }
        return try decodeEditTree(req)
    }

    /// Every body form, through a `JSONValue` tree: the one place edit bodies are judged.
    static func decodeEditTree(_ req: HTTPRequest) throws(APIError) -> EditRequest {
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(Self.editFields)
        let base = try body.int("base")
        if let base, base < 0 { throw .invalidField("base", "must be a revision (0 or more)") }
        var options = EditOptions()
        options.actionName = try body.string("actionName")
        if let name = options.actionName, name.count > 200 { throw .invalidField("actionName", "must be at most 200 characters") }
        options.undoable = try body.bool("undoable") ?? true
        options.newGroup = try body.bool("newGroup") ?? false
        options.discardable = try body.bool("discardable") ?? false
        // Discardable marks an undo group; an edit that registers none has no group to mark.
        if options.discardable && !options.undoable {
            throw .invalidField("discardable", "marks the edit's undo group: it cannot be combined with undoable: false")
        }
        var form: String?
        for f in Self.editForms where body.json[f] != nil {
            guard form == nil else { form = nil; break }
            form = f
        }
        guard let form else {
            throw .badRequest("give exactly one of ops, insert, delete or replace", code: "invalid_edit")
        }
        switch form {
        case "ops":
            return EditRequest(base: base, options: options, form: .ops(try CompactOperation.decode(body.json["ops"]!)))
        case "insert":
            guard let text = try body.string("insert") else { throw .invalidField("insert", "must be a string") }
            guard let at = try body.int("at") else { throw .invalidField("at", "is required with insert") }
            return EditRequest(base: base, options: options, form: .insert(text, at: at))
        case "delete":
            let (from, to) = try range(body, "delete")
            return EditRequest(base: base, options: options, form: .delete(from: from, to: to))
        default:
            let (from, to) = try range(body, "replace")
            guard let with = try body.string("with") else { throw .invalidField("with", "is required with replace") }
            return EditRequest(base: base, options: options, form: .replace(from: from, to: to, with: with))
        }
    }

    private static func range(_ body: RequestBody, _ key: String) throws(APIError) -> (Int, Int) {
        guard let r = try body.object(key) else { throw .invalidField(key, "must be {\"from\", \"to\"}") }
        guard let from = r["from"]?.intValue, let to = r["to"]?.intValue else {
            throw .invalidField(key, "from and to must be integers")
        }
        guard from >= 0, to >= from else { throw .unprocessable("\(key): need 0 <= from <= to, got \(from)...\(to)", code: "position_out_of_range") }
        return (from, to)
    }

    func postEdit(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let session: Session?, handle: DocumentHandle, edit: EditRequest
        do throws(APIError) {
            session = ctx.session
            handle = try ctx.requestedDocument()
            edit = try Self.decodeEdit(req)
        } catch {
            return res.send(error.response)
        }
        service.edit(edit, in: handle, by: session) { res.send($0) { .json(DocumentJSON.edit($0)) } }
    }

    func listEdits(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        do throws(APIError) {
            let handle = try ctx.requestedDocument()
            var since = 0
            if let s = req.queryValue("since") {
                guard let v = Int(s), v >= 0 else { throw APIError.invalidField("since", "must be a revision (0 or more)") }
                since = v
            }
            var wait = 0.0
            if let s = req.queryValue("wait") {
                guard let v = Double(s), v >= 0, v <= 30 else { throw APIError.invalidField("wait", "must be 0 to 30 seconds") }
                wait = v
            }
            let maxBytes = try pageBytes(req, default: configuration.editsPageBytes)
            enum Answer { case page(ChangesPage), archived, waiting }
            let answer = try handle.executor.sync { st throws(APIError) -> Answer in
                if since > st.committedRevision && wait == 0 {
                    guard service.replication.shared else { throw APIError.revisionInFuture(since, current: st.committedRevision) }
                    // Another node's commit this node has not taken in yet (it does as soon as
                    // its own change in flight commits): wait for it, briefly.
                    st.pollers.append(DocumentState.Poller(since: since, deadline: service.now() + Self.behindWait, answer: pollAnswer(res),
                                                           caller: ctx.caller, behind: true))
                    return .waiting
                }
                // Changes that left memory are read from the store's archive, off the loop.
                if since < st.document.firstAvailableRevision - 1, configuration.archiveBytes > 0 { return .archived }
                // Core knows how far back its log goes; a base before that is 410.
                do throws(DocumentError) { _ = try st.document.length(atRevision: min(since, st.document.revision)) } catch { throw .document(error) }
                if since < st.committedRevision || wait == 0 { return .page(ChangesPage(st, since: since, maxBytes: maxBytes)) }
                st.pollers.append(DocumentState.Poller(since: since, deadline: service.now() + wait, answer: pollAnswer(res), caller: ctx.caller))
                return .waiting
            }
            // RFC 8288: the page was cut at about maxBytes; the rest starts after `next`.
            let link = { @Sendable (next: Int?) -> HTTPHeaders in
                next.map { ["Link": "<\(req.path)?since=\($0)&maxBytes=\(maxBytes)>; rel=\"next\""] } ?? [:]
            }
            switch answer {
            case .page(let page):
                let answer = page.encode(maxBytes: maxBytes)
                res.send(.json(answer.bytes, headers: link(answer.next)))
            case .archived:
                let send = { @Sendable (page: Result<(bytes: [UInt8], next: Int?), APIError>) in
                    switch page {
                    case .success(let page): res.send(.json(page.bytes, headers: link(page.next)))
                    case .failure(let error): res.send(error.response)
                    }
                }
                let persistence = service.persistence, heavyWork = service.heavyWork
                heavyWork.async(for: handle) { [since] in
                    let page = persistence.archivedPage(of: handle, since: since, maxBytes: maxBytes)
                    // Not there yet may mean its write is still on its way: ask again once it landed.
                    if case .failure(let error) = page, error.code == "revision_trimmed",
                       persistence.archivesInFlight.whenLanded(handle.id, then: {
                           heavyWork.async(for: handle) { send(persistence.archivedPage(of: handle, since: since, maxBytes: maxBytes)) }
                       }) { return }
                    send(page)
                }
            case .waiting:
                break
            }
        } catch {
            res.send(error.response)
        }
    }
}

extension EditController {
    /// How a waiting long-poll is answered once the document (or housekeeping) answers it.
    func pollAnswer(_ res: HTTPResponder) -> @Sendable (PollAnswer) -> Void {
        let maxBytes = configuration.editsPageBytes
        return { answer in
            switch answer {
            case .page(let page): res.send(.json(page.encode(maxBytes: maxBytes).bytes))
            case .empty: res.send(.json(Array("[]".utf8)))
            case .failed(let error): res.send(error.response)
            }
        }
    }
}

extension EditController {
    /// How long, in a cluster, `…/edits?since=` ahead of this node waits for it to catch up.
    static let behindWait: Double = 2

    /// The smallest page a client may ask for: one change's JSON fits in it most of the time.
    static let minPageBytes = 1024

    /// `maxBytes` of a paged answer: the configured page size unless the client asks for
    /// another, from `minPageBytes` up to the largest body the server takes.
    func pageBytes(_ req: HTTPRequest, default value: Int) throws(APIError) -> Int {
        guard let raw = req.queryValue("maxBytes") else { return value }
        let largest = max(configuration.maxBodyBytes, value)
        guard let v = Int(raw), v >= Self.minPageBytes, v <= largest else {
            throw APIError.invalidField("maxBytes", "must be \(Self.minPageBytes) to \(largest) bytes")
        }
        return v
    }
}
