import Glibc

/// Plain TCP on a non-blocking socket.
public final class PlainTransport: Transport {
    public let fileDescriptor: Int32

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        while true {
            let n = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
            if n > 0 { return .transferred(n) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ECONNRESET: return .closed
            default: return .failed(String(cString: strerror(errno)))
            }
        }
    }

    public func write(_ buffer: UnsafeRawBufferPointer) -> TransportResult {
        while true {
            // MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE in the process.
            let n = send(fileDescriptor, buffer.baseAddress, buffer.count, PlainTransport.noSignal)
            if n > 0 { return .transferred(n) }
            if n == 0 { return .wouldBlock }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EPIPE, ECONNRESET: return .closed
            default: return .failed(String(cString: strerror(errno)))
            }
        }
    }

    /// MSG_NOSIGNAL (Linux value; Glibc's Swift module does not import it).
    static let noSignal: Int32 = 0x4000
    static let dontWait: Int32 = 0x40

    public func close() {
        _ = Glibc.close(fileDescriptor)
    }
}
