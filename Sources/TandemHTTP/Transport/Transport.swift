import Glibc

/// What a read or write on a transport did.
public enum TransportResult: Sendable, Equatable {
    /// Bytes moved (always > 0).
    case transferred(Int)
    /// Nothing to do now; wait for the next readiness event, in either direction
    /// (a TLS read may need the socket writable, and a write readable).
    case wouldBlock
    /// The peer closed the stream cleanly.
    case closed
    case failed(String)
}

/// The byte stream under one connection: plain TCP, or TLS over it.
/// Used only from the connection's event-loop thread.
public protocol Transport: AnyObject {
    var fileDescriptor: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult
    func write(_ buffer: UnsafeRawBufferPointer) -> TransportResult
    /// Bytes already read from the socket and waiting inside the transport: epoll will not
    /// report them, so the reader must take them before it waits again.
    var hasBufferedInput: Bool { get }
    /// After a read's `.wouldBlock`: whether it waits for the socket to become writable
    /// rather than readable.
    var readNeedsWritable: Bool { get }
    /// Ends the sending direction cleanly (TLS close_notify, then a TCP half-close) while
    /// the descriptor stays open for reading.
    func shutdownOutput()
    /// Sends what closing needs (TLS close_notify) and closes the descriptor.
    func close()
}

extension Transport {
    public var hasBufferedInput: Bool { false }
    public var readNeedsWritable: Bool { false }
    public func shutdownOutput() { _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_WR)) }
}
