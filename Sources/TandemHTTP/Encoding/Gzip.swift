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
        // deflateBound covers the gzip header and trailer too, so one pass is normally enough.
        var capacity = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: capacity)
        var produced = 0
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress! + produced
                    stream.avail_out = uInt(out.count - produced)
                    let status = deflate(&stream, Z_FINISH)
                    produced = out.count - Int(stream.avail_out)
                    return status
                }
                if status == Z_STREAM_END { return Z_OK }
                guard status == Z_OK || status == Z_BUF_ERROR else { return status }
                capacity *= 2
                output.append(contentsOf: repeatElement(0, count: capacity - output.count))
            }
        }
        guard status == Z_OK else { return nil }
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
