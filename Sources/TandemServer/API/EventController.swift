import TandemCore
import TandemHTTP

/// A document's live side: its event stream (resumed from `Last-Event-ID`), the session's
/// selection, and who is present.
final class EventController: RouteController {
    let service: DocumentService
    let configuration: ServerConfiguration
    let opened: OpenedDocuments

    init(_ context: ServerContext) {
        service = context.service
        configuration = context.configuration
        opened = context.opened
    }

    func documentEvents(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let session: Session?
        let handle: DocumentHandle
        var lastEventID: Int?
        do throws(APIError) {
            session = ctx.session
            handle = try ctx.requestedDocument()
            if let raw = req.headers["Last-Event-ID"] ?? req.queryValue("lastEventId") {
                guard let v = Int(raw.trimmingSpacesAndTabs), v >= 0 else {
                    throw APIError.invalidField("Last-Event-ID", "must be a revision")
                }
                lastEventID = v
            }
        } catch {
            res.send(error.response)
            return
        }
        let resumeAfter = lastEventID
        let role = Self.role(req, ctx)
        if role != .mirror { opened.note(ctx.caller, opened: handle.id, at: service.now()) }
        // A long catch-up is framed on the heavy-work pool, in the document's lane; so is any
        // start while another thread holds the document or heavy jobs of its own are queued
        // (the loop does not wait for them).
        let heavy = handle.heavyJobs.load(ordering: .relaxed) > 0 || lastEventID.map { last in
            handle.executor.syncIfIdle { $0.document.loggedUnits(since: last) }.map { $0 >= HeavyWorkMiddleware.heavyTextLength } ?? true
        } ?? false
        res.send(HTTPResponse(status: .ok, headers: ServerSentEvents.headers, body: .stream { [self] writer in
            if heavy {
                service.heavyWork.async(for: handle) { [self] in startEvents(writer, handle: handle, session: session, resumeAfter: resumeAfter, caller: ctx.caller, role: role) }
            } else {
                startEvents(writer, handle: handle, session: session, resumeAfter: resumeAfter, caller: ctx.caller, role: role)
            }
        }))
    }

    /// Replays what a resumed stream missed and subscribes it, in the document's executor.
    private func startEvents(_ writer: HTTPStreamWriter, handle: DocumentHandle, session: Session?, resumeAfter: Int?, caller: Caller,
                             role: EventChannel.Role) {
        let session = role == .mirror ? nil : session
        writer.write(ServerSentEvents.preamble)
        let current: Int = handle.executor.sync { st in
            if let last = resumeAfter, last < st.committedRevision {
                if last < st.document.firstAvailableRevision - 1 {
                    // Too far behind to replay: the client must reload the document.
                    writer.write(ServerSentEvents.reset(revision: st.committedRevision, reason: "revision_trimmed"))
                } else if let missed = CatchUp.changes(in: st, since: last, budget: configuration.catchUpBytes) {
                    // The events the live stream sent (each change, and each session's
                    // last history event), so a resumed client's undo menu follows the
                    // changes it missed.
                    var batch = JSONWriter(capacity: 256)
                    ServerSentEvents.appendChangeEvents(missed.map { .init(change: $0, notification: ChangePipeline.notification(of: $0.kind)) },
                                                        to: &batch)
                    writer.write(batch.bytes)
                } else {
                    // More than the budget to replay, built in the executor on a loop: a reload is cheaper.
                    writer.write(ServerSentEvents.reset(revision: st.committedRevision, reason: "catch_up_too_large"))
                }
            }
            if resumeAfter != nil {
                // A state change (locked, saving error) may have been missed too.
                var w = JSONWriter(capacity: 48)
                w.beginObject()
                w.key("state"); w.string(st.condition.rawValue)
                w.endObject()
                writer.write(ServerSentEvents.frame(id: st.committedRevision, event: "state", data: w.bytes))
            }
            handle.events.add(writer, caller: caller, revision: st.committedRevision, role: role)
            if role != .full {
                // The relaying node joins this stream to the document's mirror here; the
                // presence it joins with (itself included) goes first, as the mirror may
                // have passed the broadcast below.
                if role == .control {
                    writer.write(ServerSentEvents.frame(id: st.committedRevision, event: "presence",
                                                        data: service.events.presenceJSON(handle, selections: st.document.selections)))
                }
                writer.write(ServerSentEvents.relayJoined(revision: st.committedRevision))
            }
            return st.committedRevision
        }
        guard role != .mirror else { return }
        // A session joining changes the presence everyone sees, the newcomer included: one
        // broadcast tells them all, so the newcomer gets the list once.
        if session != nil {
            service.events.broadcastPresence(handle)
        } else if role == .full {
            writer.write(ServerSentEvents.frame(id: current, event: "presence", data: service.events.presenceJSON(handle)))
        }
        writer.onClose { [self] in if let session { service.sessionEnds.streamClosed(of: session.id, in: handle) } }
    }

    /// The stream asked for (docs/scale-out.md, "Streams relayed once"): a node's mirror of the
    /// document, only for a node (`Tandem-Peer-Key`); a subscriber's part beside it; or whole.
    static func role(_ req: HTTPRequest, _ ctx: RequestContext) -> EventChannel.Role {
        switch req.headers[ServerSentEvents.relayField] {
        case "mirror" where ctx.caller.isPeer: .mirror
        case "control": .control
        default: .full
        }
    }

    /// Answered at once on one node; in a cluster once the selection is stored, so that the
    /// next request, on any node, sees it (`Replication.shareSelection`).
    func putSelection(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        let answer: (Selection, Session, DocumentHandle)
        do throws(APIError) { answer = try setSelection(req, ctx) } catch { return res.send(error.response) }
        let (selection, session, handle) = answer
        service.replication.shareSelection(of: session, in: handle) { result in
            switch result {
            case .success: res.send(Self.selectionResponse(selection))
            case .failure(let error): res.send(error.response)
            }
        }
    }

    static func selectionResponse(_ selection: Selection) -> HTTPResponse {
        var w = JSONWriter(capacity: 32)
        DocumentJSON.selection(selection, to: &w)
        return .json(w.bytes)
    }

    private func setSelection(_ req: HTTPRequest, _ ctx: RequestContext) throws(APIError) -> (Selection, Session, DocumentHandle) {
        let session = try ctx.requireSession(for: "a selection")
        let handle = try ctx.requestedDocument()
        let body = try RequestBody.object(req, allowEmpty: false)
        try body.allowOnly(["anchor", "head", "base"])
        guard let anchor = try body.int("anchor"), let head = try body.int("head") else {
            throw .invalidField("anchor", "anchor and head are required integers")
        }
        let base = try body.int("base")
        if let base, base < 0 { throw .invalidField("base", "must be a revision") }
        let selection = try service.setSelection(Selection(anchor: anchor, head: head), base: base, in: handle, by: session)
        return (selection, session, handle)
    }
}

extension String {
    var trimmingSpacesAndTabs: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
