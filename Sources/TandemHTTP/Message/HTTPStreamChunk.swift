/// One chunk of a streamed body, framed once (`size CRLF bytes CRLF`): the same chunk can be
/// queued on any number of streams, each holding a reference to these bytes, not a copy. An
/// event fanned out to 50 subscribers was copied 100 times (into each stream's queue, then
/// into each connection's output), a third of the event flusher's and of the pump's time.
public struct HTTPStreamChunk: Sendable {
    /// The bytes as they go on the wire.
    let framed: [UInt8]
    /// The chunk's data, without its framing.
    public let count: Int

    public init(_ bytes: [UInt8]) {
        count = bytes.count
        var framed: [UInt8] = []
        framed.reserveCapacity(bytes.count + 12)
        ResponseSerializer.appendHex(bytes.count, to: &framed)
        framed.append(contentsOf: ResponseSerializer.crlf)
        framed.append(contentsOf: bytes)
        framed.append(contentsOf: ResponseSerializer.crlf)
        self.framed = framed
    }
}
