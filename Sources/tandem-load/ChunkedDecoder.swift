/// `Transfer-Encoding: chunked` undone incrementally: an event stream is one endless
/// chunked body, and a chunk boundary may fall anywhere, inside a frame included.
struct ChunkedDecoder {
    enum State {
        case size, data, dataEnd, done, failed
    }

    private(set) var state = State.size
    private var left = 0

    /// Hands the chunk data of `p[0..<n]` to `data`, in place and in order (a piece per
    /// chunk, or per part of one that the bytes end inside), and calls `end` when a chunk's
    /// data is complete; returns how many bytes it used (the rest is an incomplete size line
    /// or chunk end, to be offered again with more bytes).
    mutating func decode(_ p: UnsafePointer<UInt8>, _ n: Int, data: (UnsafePointer<UInt8>, Int) -> Void,
                         end: () -> Void = {}) -> Int {
        var i = 0
        while i < n {
            switch state {
            case .size:
                guard let lineEnd = Bytes.find(Bytes.crlf, in: p, n, from: i) else {
                    if n - i > 1024 { state = .failed }
                    return i
                }
                var size = 0
                var k = i
                while k < lineEnd, let digit = Self.hex(p[k]) {
                    size = size * 16 + digit
                    k += 1
                    if size > 1 << 30 { state = .failed; return i }
                }
                // Extensions (";name=value") may follow the size; nothing else may.
                guard k > i, k == lineEnd || p[k] == UInt8(ascii: ";") else { state = .failed; return i }
                i = lineEnd + 2
                left = size
                state = size == 0 ? .done : .data
            case .data:
                let take = min(left, n - i)
                data(p + i, take)
                i += take
                left -= take
                if left == 0 { state = .dataEnd; end() }
            case .dataEnd:
                guard n - i >= 2 else { return i }
                guard p[i] == 0x0D, p[i + 1] == 0x0A else { state = .failed; return i }
                i += 2
                state = .size
            case .done, .failed:
                return i
            }
        }
        return i
    }

    private static func hex(_ b: UInt8) -> Int? {
        switch b {
        case 48...57: Int(b) - 48
        case 97...102: Int(b) - 87
        case 65...70: Int(b) - 55
        default: nil
        }
    }
}
