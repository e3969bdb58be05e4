/// Reads the responses of an upstream HTTP/1.1 server (another node, for a forwarded request),
/// incrementally: bytes in as they arrive, events out. Strict as the request parser is: a
/// framing it cannot trust (two lengths, a bad chunk size, a head too large) is an error, after
/// which the connection must be closed, never reused.
///
/// The caller says, per response, whether a body may follow (not for HEAD); 1xx, 204 and 304
/// never have one. A body is framed by `Transfer-Encoding: chunked`, else `Content-Length`, else
/// it runs until the server closes (`finish()`), and the connection cannot be reused.
public struct HTTPResponseParser: Sendable {
    public struct Head: Sendable, Equatable {
        public var status: Int
        public var reason: String
        /// Names lowercased, in order.
        public var headers: [(name: String, value: String)]
        /// The minor version of the status line: 0 for HTTP/1.0, 1 for HTTP/1.1.
        public var minorVersion = 1

        public static func == (a: Head, b: Head) -> Bool {
            a.status == b.status && a.reason == b.reason && a.minorVersion == b.minorVersion && a.headers.map(\.name) == b.headers.map(\.name)
                && a.headers.map(\.value) == b.headers.map(\.value)
        }

        public func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    public enum Event: Sendable, Equatable {
        case head(Head)
        case body([UInt8])
        /// The response is complete; `reusable`: the connection may carry the next request.
        case end(reusable: Bool)
    }

    public struct Failure: Error, Sendable, Equatable {
        public var code: String
    }

    private enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private var state = State.head
    private var buffer: [UInt8] = []
    private var expectsBody: Bool
    private var keepAlive = true
    public let maxHeadBytes: Int

    public init(expectsBody: Bool = true, maxHeadBytes: Int = 64 * 1024) {
        self.expectsBody = expectsBody
        self.maxHeadBytes = maxHeadBytes
    }

    /// Starts on the next response of the same connection.
    public mutating func reset(expectsBody: Bool) {
        state = .head
        self.expectsBody = expectsBody
        keepAlive = true
    }

    /// Feeds bytes; answers what they completed. Bytes after a complete response stay buffered
    /// for the next one (after `reset`).
    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [Event] {
        buffer += bytes
        var events: [Event] = []
        while true {
            switch state {
            case .done:
                return events
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: buffer) else {
                    if buffer.count > maxHeadBytes { throw Failure(code: "head_too_large") }
                    return events
                }
                if end + 4 > maxHeadBytes { throw Failure(code: "head_too_large") }
                let head = try Self.parseHead(Array(buffer[..<end]))
                buffer.removeFirst(end + 4)
                if (100..<200).contains(head.status) { continue }  // interim: skipped
                events.append(.head(head))
                // RFC 9112 §9.3: `close` ends the connection; HTTP/1.0 keeps it only when asked.
                let connection = head.value("connection").map { Self.list($0) } ?? []
                keepAlive = !connection.contains("close") && (head.minorVersion >= 1 || connection.contains("keep-alive"))
                state = try frame(head)
            case .fixed(let remaining):
                if remaining == 0 { finishResponse(&events); continue }
                guard !buffer.isEmpty else { return events }
                let n = min(remaining, buffer.count)
                events.append(.body(Array(buffer[..<n])))
                buffer.removeFirst(n)
                state = .fixed(remaining: remaining - n)
            case .chunkSize:
                guard let end = Self.find([13, 10], in: buffer) else {
                    if buffer.count > 1024 { throw Failure(code: "chunk_size_too_long") }
                    return events
                }
                let line = buffer[..<end]
                let digits = line.prefix { $0 != UInt8(ascii: ";") }
                guard !digits.isEmpty, digits.count <= 15 else { throw Failure(code: "bad_chunk_size") }
                var size = 0
                for c in digits {
                    guard let v = HTTPSyntax.hexValue(c) else { throw Failure(code: "bad_chunk_size") }
                    size = size * 16 + v
                }
                buffer.removeFirst(end + 2)
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard !buffer.isEmpty else { return events }
                let n = min(remaining, buffer.count)
                events.append(.body(Array(buffer[..<n])))
                buffer.removeFirst(n)
                state = n == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            case .chunkDataEnd:
                guard buffer.count >= 2 else { return events }
                guard buffer[0] == 13, buffer[1] == 10 else { throw Failure(code: "bad_chunk_end") }
                buffer.removeFirst(2)
                state = .chunkSize
            case .trailers:
                guard let end = Self.find([13, 10], in: buffer) else {
                    if buffer.count > maxHeadBytes { throw Failure(code: "trailers_too_large") }
                    return events
                }
                buffer.removeFirst(end + 2)
                if end == 0 { finishResponse(&events) }
            case .untilClose:
                if !buffer.isEmpty {
                    events.append(.body(buffer))
                    buffer.removeAll()
                }
                return events
            }
        }
    }

    /// Bytes read past the end of the response (nothing, from a server that was not sent a
    /// second request: anything there makes the connection unfit for reuse).
    public var bufferedByteCount: Int { buffer.count }

    /// The server closed the connection: ends a body that runs until close; anything else
    /// unfinished is a truncated response.
    public mutating func finish() throws(Failure) -> [Event] {
        switch state {
        case .untilClose:
            state = .done
            return [.end(reusable: false)]
        case .done:
            return []
        case .head where buffer.isEmpty:
            throw Failure(code: "closed_before_response")
        default:
            throw Failure(code: "truncated_response")
        }
    }

    private mutating func finishResponse(_ events: inout [Event]) {
        events.append(.end(reusable: keepAlive))
        state = .done
    }

    private func frame(_ head: Head) throws(Failure) -> State {
        if !expectsBody || head.status == 204 || head.status == 304 { return .fixed(remaining: 0) }
        let encodings = head.headers.filter { $0.name == "transfer-encoding" }.map(\.value)
        let lengths = head.headers.filter { $0.name == "content-length" }.map(\.value)
        if !encodings.isEmpty {
            guard lengths.isEmpty else { throw Failure(code: "length_and_chunked") }
            let codings = Self.list(encodings.joined(separator: ","))
            guard codings.last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else { throw Failure(code: "bad_transfer_encoding") }
            return .chunkSize
        }
        if !lengths.isEmpty {
            let values = Set(lengths.flatMap { Self.list($0) })
            guard values.count == 1, let only = values.first, !only.isEmpty, only.count <= 18,
                  only.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let n = Int(only) else {
                throw Failure(code: "bad_content_length")
            }
            return .fixed(remaining: n)
        }
        return .untilClose
    }

    static func parseHead(_ bytes: [UInt8]) throws(Failure) -> Head {
        var lines = split(bytes)
        guard !lines.isEmpty else { throw Failure(code: "bad_status_line") }
        let statusLine = lines.removeFirst()
        // HTTP/1.x SP 3DIGIT SP reason
        guard statusLine.count >= 12, Array(statusLine[0..<7]) == Array("HTTP/1.".utf8),
              statusLine[7] == UInt8(ascii: "0") || statusLine[7] == UInt8(ascii: "1"), statusLine[8] == HTTPSyntax.sp,
              statusLine[9...11].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              statusLine.count == 12 || statusLine[12] == HTTPSyntax.sp else { throw Failure(code: "bad_status_line") }
        let status = Int(String(decoding: statusLine[9...11], as: UTF8.self))!
        let reason = statusLine.count > 13 ? String(decoding: statusLine[13...], as: UTF8.self) : ""
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: HTTPSyntax.colon), colon > 0,
                  line[..<colon].allSatisfy(HTTPSyntax.isTokenChar) else { throw Failure(code: "bad_header") }
            let value = line[(colon + 1)...]
            guard value.allSatisfy(HTTPSyntax.isFieldValueChar) else { throw Failure(code: "bad_header") }
            let name = String(decoding: line[..<colon].map(HTTPSyntax.lower), as: UTF8.self)
            headers.append((name, Self.trim(Substring(String(decoding: value, as: UTF8.self)))))
        }
        return Head(status: status, reason: reason, headers: headers, minorVersion: statusLine[7] == UInt8(ascii: "0") ? 0 : 1)
    }

    /// A comma-separated header list, its elements trimmed and lowercased.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",", omittingEmptySubsequences: false).map { trim($0).lowercased() }
    }

    static func trim(_ s: Substring) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0, i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 {
                lines.append(bytes[start..<i])
                i += 2
                start = i
            } else {
                i += 1
            }
        }
        lines.append(bytes[start...])
        return lines
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}
