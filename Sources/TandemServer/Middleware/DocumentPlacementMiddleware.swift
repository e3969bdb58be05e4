import Dispatch
import Synchronization
import TandemHTTP

/// Where documents have owners (`--cluster leases`, docs/scale-out.md), the step that sends a
/// request for a document to the node that holds its lease: served here when this node holds
/// it (taken, and the document loaded, if no live node did), else relayed to the owner over the
/// loop's pool of kept-alive connections with every field of the caller's (credentials,
/// `Idempotency-Key`, `Last-Event-ID`), an event stream relayed while it lasts.
///
/// A request is forwarded at most once (`forwardedField`): a node that gets a forwarded request
/// for a document it does not hold answers `503 document_moved`, as does a forward whose owner
/// gave no answer (it may have died: its lease expires and the next try reaches the new owner;
/// a resend with the same `Idempotency-Key` is never applied twice).
struct DocumentPlacementMiddleware: RouteMiddleware {
    let ownership: DocumentOwnership
    /// Where a document's event stream from another node is received once for all of this
    /// node's subscribers (nil: each subscriber's stream is relayed whole).
    var mirrors: StreamMirrors?

    /// Set on a forwarded request: never forwarded again.
    static let forwardedField = "Tandem-Forwarded"

    func wrap(_ next: @escaping RouteHandler, for route: Endpoint) -> RouteHandler {
        if route.operationID == "createDocument" { return createdAtHome(next) }
        guard route.path.hasPrefix("/documents/{id}") else { return next }
        let mirrors = route.operationID == "documentEvents" ? mirrors : nil
        return { [ownership] request, context, responder in
            Self.place(request, of: request.parameters["id"] ?? "", ownership: ownership, mirrors: mirrors, tries: 0,
                       here: { next(request, context, responder) }, responder: responder)
        }
    }

    /// A document created with an id of the caller's choosing is created on its home node, so
    /// that the balancer's hash brings its requests to the node that holds it (an id the
    /// server picks is one this node is home for: `DocumentController`). Bodies over
    /// `createBodyPeek` bytes are not read here, on the loop: created where they arrive.
    private func createdAtHome(_ next: @escaping RouteHandler) -> RouteHandler {
        { [ownership] request, context, responder in
            guard request.headers[Self.forwardedField] == nil, request.body.count <= Self.createBodyPeek,
                  let id = (try? JSONParser.parse(request.body))?["id"]?.stringValue,
                  ownership.isHome(id) == false, let home = ownership.home(of: id)
            else { return next(request, context, responder) }
            Self.forward(request, of: id, to: home.address, ownership: ownership, responder: responder) {
                // The home node is not reached: created here instead.
                request.executor.execute { next(request, context, responder) }
                return true
            }
        }
    }

    static let createBodyPeek = 64 << 10

    /// How many times a request whose owner could not be reached is placed again, and how long
    /// apart: together longer than a lease outlives a dead owner (`LeasedReplication.ttl`).
    static let placeTries = 30
    static let placeRetrySeconds = 0.1

    /// Serves the request here (`here`) or forwards it, on the request's loop.
    static func place(_ request: HTTPRequest, of id: String, ownership: DocumentOwnership, mirrors: StreamMirrors? = nil, tries: Int,
                      here: @escaping @Sendable () -> Void, responder: HTTPResponder) {
        let go = { @Sendable (placement: DocumentOwnership.Placement) in
            switch placement {
            case .here:
                here()
            case .other(let address):
                let unreached = { @Sendable () -> Bool in
                    // The owner was not reached (dead, or gone with its leases): ask again shortly.
                    guard tries + 1 < placeTries else { return false }
                    DispatchQueue.global().asyncAfter(deadline: .now() + placeRetrySeconds) {
                        request.executor.execute {
                            place(request, of: id, ownership: ownership, mirrors: mirrors, tries: tries + 1, here: here, responder: responder)
                        }
                    }
                    return true
                }
                if let mirrors, request.headers[forwardedField] == nil, let upstream = upstream(address),
                   let mirror = mirrors.mirror(of: id, path: String(request.path), at: address, upstream: upstream) {
                    return follow(request, of: id, mirror: mirror, mirrors: mirrors, ownership: ownership, responder: responder, unreached: unreached)
                }
                forward(request, of: id, to: address, ownership: ownership, responder: responder, unreached: unreached)
            }
        }
        if let known = ownership.cached(id) { return go(known) }
        ownership.place(id) { placed in
            request.executor.execute {
                switch placed {
                case .success(let placement): go(placement)
                case .failure: responder.send(APIError.databaseUnavailable.response)
                }
            }
        }
    }

    /// Follows a document held elsewhere through its mirror here: once the mirror has joined
    /// the owner's stream, the subscriber's own control stream is relayed from the owner (its
    /// credentials checked there, its catch-up, its end), and where that joins the document,
    /// the subscriber joins the mirror.
    static func follow(_ request: HTTPRequest, of id: String, mirror: StreamMirror, mirrors: StreamMirrors,
                       ownership: DocumentOwnership, responder: HTTPResponder, unreached: @escaping @Sendable () -> Bool) {
        let join = MirrorJoin(mirror: mirror, mirrors: mirrors)
        mirror.whenOpen { opened in
            request.executor.execute {
                guard opened else {
                    join.end()
                    return forward(request, of: id, to: mirror.address, ownership: ownership, responder: responder, unreached: unreached)
                }
                forward(request, of: id, to: mirror.address, ownership: ownership, responder: responder, part: "control",
                        streamed: { events, writer in join.streamed(events, to: writer) },
                        unreached: { join.end(); return unreached() })
                // A control stream refused (no right to read) never joins.
                DispatchQueue.global().asyncAfter(deadline: .now() + MirrorJoin.patienceSeconds) { join.end() }
            }
        }
    }

    /// Relays `request` to the owner at `address` (`host:port`), on the request's loop;
    /// `unreached` may take over a request that never reached it. `part` names the part of an
    /// event stream asked for (`EventChannel.Role`), and `streamed` sees a stream's events first.
    static func forward(_ request: HTTPRequest, of id: String, to address: String, ownership: DocumentOwnership,
                        responder: HTTPResponder, part: String? = nil,
                        streamed: (@Sendable ([UInt8], HTTPStreamWriter) -> [UInt8])? = nil,
                        unreached: @escaping @Sendable () -> Bool) {
        guard request.headers[forwardedField] == nil, let upstream = upstream(address) else {
            ownership.forget(id)
            return responder.send(APIError.documentMoved.response)
        }
        let relay = HTTPRelay(unreachable: { _ in
            ownership.forget(id)
            return APIError.documentMoved.response
        }, takeOverUnsent: { _ in
            ownership.forget(id)
            return unreached()
        }, streamed: streamed)
        // Who the client is, for the owner's per-client limits (when it trusts this node).
        var forwardedFor = IPAddress(peer: request.remoteAddress).map { "\($0)" } ?? request.remoteAddress
        if let chain = request.headers["X-Forwarded-For"] { forwardedFor = chain + ", " + forwardedFor }
        var fields: HTTPHeaders = [forwardedField: "1", "X-Forwarded-For": forwardedFor]
        if let part { fields.set(ServerSentEvents.relayField, part) }
        relay.relay(request, to: upstream, replacing: fields, responder: responder)
    }

    /// `host:port` as an upstream; nil if it is not one.
    static func upstream(_ address: String) -> HTTPUpstream? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : HTTPUpstream(host: host, port: port)
    }
}

/// One subscriber joining a mirror: its control stream's events pass through until the owner
/// says where it joined the document; from then on the mirror sends it the rest.
final class MirrorJoin: Sendable {
    let mirror: StreamMirror
    let mirrors: StreamMirrors
    private let joined = Atomic(false)
    private let ended = Atomic(false)
    /// How long a control stream may take to join before the mirror stops waiting for it.
    static let patienceSeconds = 10.0

    init(mirror: StreamMirror, mirrors: StreamMirrors) {
        self.mirror = mirror
        self.mirrors = mirrors
        mirror.joining.add(1, ordering: .relaxed)
    }

    /// The presence list the owner gave the subscriber before it joined (the last one).
    private let presence = Mutex<[UInt8]?>(nil)

    func streamed(_ events: [UInt8], to writer: HTTPStreamWriter) -> [UInt8] {
        if joined.load(ordering: .acquiring) { return events }
        guard let found = ServerSentEvents.relayJoined(in: events) else {
            notePresence(events)
            return events
        }
        joined.store(true, ordering: .releasing)
        let before = Array(found.before)
        if !before.isEmpty { _ = writer.write(before) }
        notePresence(before)
        mirror.attach(writer, revision: found.revision, presence: presence.withLock { $0 })
        end()
        return Array(found.after)
    }

    private func notePresence(_ events: [UInt8]) {
        guard let last = EventStreamReader.events(events).last(where: { EventStreamReader.header(events, $0).name == .presence }) else { return }
        presence.withLock { $0 = Array(events[last]) }
    }

    /// The join is over (joined, refused, or given up): the mirror may close if nobody follows it.
    func end() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mirror.joining.subtract(1, ordering: .relaxed)
        mirrors.joinEnded(mirror)
    }
}
