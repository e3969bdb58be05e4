/// The bytes a connection has yet to send, in the order they go out.
///
/// Response heads and whole bodies are serialized in place into `bytes`. Stream chunks are
/// kept as the arrays they came in, never copied: an event's bytes are one array shared by
/// every subscriber's connection. Every byte in the chunks precedes every byte in `bytes`.
struct HTTPOutputQueue {
    /// Heads and whole bodies, appended by the serializer; sent from `offset` on.
    var bytes: [UInt8] = []
    private var offset = 0
    private var chunks: [[UInt8]] = []
    private var chunksHead = 0
    private var chunkOffset = 0
    private var chunkBytes = 0

    init() {
        bytes.reserveCapacity(4096)
    }

    /// Everything queued has been sent.
    var isEmpty: Bool { chunkBytes == 0 && offset == bytes.count }
    /// Bytes queued and not yet sent.
    var count: Int { chunkBytes + bytes.count - offset }

    /// Queues stream chunks after everything already queued.
    mutating func append(chunks taken: [[UInt8]]) {
        if !taken.isEmpty && offset < bytes.count {
            // What `bytes` holds (the stream's head) goes first.
            chunks.append(Array(bytes[offset...]))
            chunkBytes += bytes.count - offset
            bytes.removeAll(keepingCapacity: true)
            offset = 0
        }
        for chunk in taken {
            chunks.append(chunk)
            chunkBytes += chunk.count
        }
    }

    /// Calls `body` with the next unsent bytes that lie together (empty only when the queue is).
    func withUnsentBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if chunksHead < chunks.count {
            return chunks[chunksHead].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[chunkOffset...])) }
        }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    /// The first `n` bytes `withUnsentBytes` offered were sent.
    mutating func consume(_ n: Int) {
        guard chunksHead < chunks.count else {
            offset += n
            return
        }
        chunkOffset += n
        chunkBytes -= n
        if chunkOffset == chunks[chunksHead].count {
            chunks[chunksHead] = []
            chunksHead += 1
            chunkOffset = 0
        }
    }

    /// Everything was sent: the storage is kept for the next responses, unless a large
    /// answer grew it.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
        offset = 0
        chunks.removeAll(keepingCapacity: true)
        chunksHead = 0
    }
}
