import CZlib

/// Whole-buffer gzip (RFC 1952) through zlib.
public enum Gzip {
    /// The gzip form of `bytes`; nil only if zlib fails (out of memory, bad level).
    /// Deterministic for a given input and level (no timestamp or name in the header),
    /// so one body always gets the same bytes.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        guard shim_deflateInit2_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        return bytes.withUnsafeBytes { deflateAll(&stream, $0, flush: Z_FINISH) }
    }

    /// All of `input` through `stream` with `flush` (`Z_FINISH`: the stream's end too;
    /// `Z_SYNC_FLUSH`: up to a byte boundary, the stream left open); nil if zlib fails.
    static func deflateAll(_ stream: inout z_stream, _ input: UnsafeRawBufferPointer, flush: Int32) -> [UInt8]? {
        // deflateBound covers a gzip header and trailer, not a sync flush's empty stored
        // block (5 bytes): with the slack, one pass is normally enough.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        var produced = 0
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = uInt(input.count)
        while true {
            let (status, full) = output.withUnsafeMutableBufferPointer { out -> (Int32, Bool) in
                stream.next_out = out.baseAddress! + produced
                stream.avail_out = uInt(out.count - produced)
                let status = deflate(&stream, flush)
                produced = out.count - Int(stream.avail_out)
                return (status, stream.avail_out == 0)
            }
            if status == Z_STREAM_END { break }
            guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
            // A sync flush is complete once deflate stopped with room to spare.
            if flush != Z_FINISH && !full { break }
            output.append(contentsOf: repeatElement(0, count: output.count))
        }
        output.removeSubrange(produced...)
        return output
    }

    /// The bytes inside gzip data (several members are concatenated, as RFC 1952 allows).
    /// nil when the data is not valid, complete gzip, or would decompress to more than
    /// `limit` bytes: the limit stops a small "zip bomb" from filling memory.
    public static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        guard !bytes.isEmpty, limit >= 0 else { return nil }
        var stream = z_stream()
        guard shim_inflateInit2_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(bytes.count * 4, 4096), 256 * 1024))
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                var produced = 0
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    produced = out.count - Int(stream.avail_out)
                    return status
                }
                guard output.count + produced <= limit else { return nil }
                output.append(contentsOf: chunk[..<produced])
                switch status {
                case Z_STREAM_END:
                    if stream.avail_in == 0 { return output }
                    // Another member follows.
                    guard inflateReset(&stream) == Z_OK else { return nil }
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: the input ended before the stream did.
                    if produced == 0 { return nil }
                default:
                    return nil
                }
            }
        }
    }
}
