import Glibc

/// Why a forwarded request got no complete answer.
///
/// `answerStarted` says whether any byte of the answer had arrived. When none had, the
/// upstream may still have acted on the request (it can close after acting, before
/// answering), so a request is only sent again when repeating it is harmless: the pool does
/// that once, for an idempotent request whose reused connection failed this way.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The upstream's name did not resolve.
        case resolveFailed(String)
        /// connect(2) failed (errno: ECONNREFUSED, EHOSTUNREACH, ...).
        case connectFailed(Int32)
        case connectTimeout
        /// The upstream closed the connection before the answer was complete (a reset is
        /// `io(ECONNRESET)`, a write to a closed connection `io(EPIPE)`).
        case connectionClosed
        /// A read or write failed otherwise (errno).
        case io(Int32)
        /// No answer head within the head timeout of the request's last byte written.
        case headTimeout
        /// The answer's body fell silent for longer than the request's body-idle timeout.
        case bodyTimeout
        /// The answer broke HTTP/1.1 framing (the parser's code, e.g. `bad_chunk_size`).
        case malformedResponse(String)
        /// The upstream already had its maximum of connections and of queued requests.
        case queueFull
        /// The request waited in the upstream's queue longer than `maxQueueWait`.
        case queueTimeout
        /// The request cannot be written as given (a bad target or header; the reason).
        case invalidRequest(String)
        /// The event loop is stopping.
        case shutdown
    }

    public var kind: Kind
    /// Some byte of the answer had arrived before the failure.
    public var answerStarted: Bool

    /// Whether the request surely never reached the upstream (it was never written), so
    /// that sending it elsewhere cannot apply it twice.
    public var neverSent: Bool {
        switch kind {
        case .resolveFailed, .connectFailed, .connectTimeout, .queueFull, .queueTimeout, .invalidRequest, .shutdown: true
        case .connectionClosed, .io, .headTimeout, .bodyTimeout, .malformedResponse: false
        }
    }

    public init(_ kind: Kind, answerStarted: Bool = false) {
        self.kind = kind
        self.answerStarted = answerStarted
    }

    public var description: String {
        let what: String
        switch kind {
        case .resolveFailed(let why): what = "cannot resolve the upstream: \(why)"
        case .connectFailed(let code): what = "connect: \(String(cString: strerror(code)))"
        case .connectTimeout: what = "connect timed out"
        case .connectionClosed: what = "the upstream closed the connection"
        case .io(let code): what = "socket: \(String(cString: strerror(code)))"
        case .headTimeout: what = "no response head in time"
        case .bodyTimeout: what = "the response body fell silent"
        case .malformedResponse(let code): what = "malformed response (\(code))"
        case .queueFull: what = "too many requests waiting for this upstream"
        case .queueTimeout: what = "waited too long for a connection to this upstream"
        case .invalidRequest(let why): what = "invalid request: \(why)"
        case .shutdown: what = "the event loop is stopping"
        }
        return answerStarted ? what + " (after part of the answer)" : what
    }
}
