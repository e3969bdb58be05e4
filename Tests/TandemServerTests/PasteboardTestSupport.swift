import Foundation
import Glibc
import Logging
import TandemCore
@testable import TandemServer
import TandemStore

/// A real TandemApp on an ephemeral port with its own temporary data directory.
final class TestServer {
    let app: TandemApp
    let directory: String
    let configuration: ServerConfiguration
    var port: Int { app.boundPort }

    init(limits: PasteboardLimits = PasteboardLimits(), directory: String? = nil,
         wrappingStore: (any DocumentStore) -> any DocumentStore = { $0 },
         configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tandem-paste-\(UUID().uuidString)").path
        self.directory = dir
        var c = ServerConfiguration()
        c.host = "127.0.0.1"
        c.port = 0
        c.dataDirectory = dir
        c.publicDirectory = dir + "/no-public"
        c.eventLoops = 1
        c.durability = "normal"
        c.pasteboardLimits = limits
        configure(&c)
        configuration = c
        app = try TandemApp(configuration: c, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, wrappingStore: wrappingStore)
        try app.start()
    }

    /// Stops the server but keeps the data, so another TestServer can start on it.
    func stop() { app.shutdown(gracePeriod: 0) }

    func stopAndRemove() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var client: TestClient { TestClient(port: port) }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

struct Reply {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    subscript(key: String) -> JSONValue? { json[key] }
}

/// A deliberately small HTTP/1.1 client over a blocking socket: one connection per request.
struct TestClient {
    let port: Int
    /// The token sent when a request names none: a client that is one person.
    var defaultToken: String? = nil

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        // A guard against a hung test, not a timing assertion.
        var tv = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { close(fd); throw TestFailure("connect failed: \(errno)") }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TestFailure("write failed: \(errno)") }
            off += n
        }
    }

    static func requestBytes(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    func send(_ method: String, _ path: String, token: String? = nil, json: String? = nil,
              body: [UInt8]? = nil, contentType: String? = nil, headers: [(String, String)] = []) throws -> Reply {
        var h = headers
        if let token = token ?? defaultToken { h.append(("Authorization", "Bearer \(token)")) }
        var payload: [UInt8] = []
        if let json {
            payload = Array(json.utf8)
            h.append(("Content-Type", "application/json"))
        } else if let body {
            payload = body
            if let contentType { h.append(("Content-Type", contentType)) }
        }
        let fd = try Self.connect(port: port)
        defer { close(fd) }
        try Self.writeAll(fd, Self.requestBytes(method, path, headers: h, body: payload))
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw TestFailure("read failed: \(errno)") }
            if n == 0 { break }
            data += buf[0..<n]
        }
        guard let (status, headers, start) = Self.parseHead(data) else { throw TestFailure("no response head") }
        var bodyBytes = Array(data[start...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var d = ChunkDecoder()
            bodyBytes = d.feed(bodyBytes)
        }
        return Reply(status: status, headers: headers, body: bodyBytes)
    }

    static func parseHead(_ data: [UInt8]) -> (Int, [String: String], Int)? {
        guard data.count >= 4 else { return nil }
        var end: Int?
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            end = i
            break
        }
        guard let end else { return nil }
        let lines = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, end + 4)
    }

    // MARK: conveniences

    /// A client that sends a new session's token with every request that names none.
    func person(_ name: String) throws -> TestClient {
        var c = self
        c.defaultToken = try session(name).token
        return c
    }

    func session(_ name: String) throws -> (id: String, token: String) {
        let r = try send("POST", "/sessions", json: #"{"name":"\#(name)"}"#)
        guard r.status == 201, let id = r["id"]?.stringValue, let token = r["token"]?.stringValue else {
            throw TestFailure("session: \(r.status) \(r.text)")
        }
        return (id, token)
    }

    /// Creates a document; returns its owner link's token (what the owner-only routes need).
    @discardableResult
    func document(_ id: String, text: String) throws -> String {
        var w = JSONWriter()
        w.value(["id": .string(id), "text": .string(text)])
        let r = try send("POST", "/documents", json: String(decoding: w.bytes, as: UTF8.self))
        guard r.status == 201, let link = r["ownerLink"]?["token"]?.stringValue else { throw TestFailure("document: \(r.status) \(r.text)") }
        return link
    }

    /// A request as the document's owner, through its owner link.
    func asOwner(_ link: String, _ method: String, _ path: String, json: String) throws -> Reply {
        try send(method, path, json: json, headers: [("Tandem-Link", link)])
    }

    func text(_ id: String) throws -> String {
        try send("GET", "/documents/\(id)/text").text
    }

    func select(_ doc: String, _ anchor: Int, _ head: Int, token: String) throws {
        let r = try send("PUT", "/documents/\(doc)/selection", token: token, json: #"{"anchor":\#(anchor),"head":\#(head)}"#)
        guard r.status == 200 else { throw TestFailure("selection: \(r.status) \(r.text)") }
    }

    func pasteboard(_ name: String) throws -> Reply {
        try send("GET", "/pasteboards/\(name)")
    }
}

/// Undoes chunked transfer coding as bytes arrive.
struct ChunkDecoder {
    private var pending: [UInt8] = []
    private var remaining = 0
    private var needsCRLF = false

    mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = []
        while true {
            if remaining > 0 {
                let n = min(remaining, pending.count)
                if n == 0 { break }
                out += pending[0..<n]
                pending.removeFirst(n)
                remaining -= n
                if remaining == 0 { needsCRLF = true }
                continue
            }
            if needsCRLF {
                guard pending.count >= 2 else { break }
                pending.removeFirst(2)
                needsCRLF = false
            }
            guard let lf = pending.firstIndex(of: 10) else { break }
            let line = String(decoding: pending[0..<lf], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pending.removeFirst(lf + 1)
            let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) ?? 0
            if size == 0 { break }
            remaining = size
        }
        return out
    }
}

/// One Server-Sent Events subscription read as it arrives.
final class EventStream {
    struct Event {
        var event: String
        var data: String
        var json: JSONValue { (try? JSONParser.parse(Array(data.utf8))) ?? .null }
    }

    private let fd: Int32
    private var decoder = ChunkDecoder()
    private var chunked = false
    private var text = ""
    private var headDone = false
    private var raw: [UInt8] = []
    private(set) var sawRetry = false

    init(port: Int, path: String, token: String? = nil) throws {
        fd = try TestClient.connect(port: port)
        var h: [(String, String)] = [("Accept", "text/event-stream")]
        if let token { h.append(("Authorization", "Bearer \(token)")) }
        try TestClient.writeAll(fd, TestClient.requestBytes("GET", path, headers: h, body: []))
    }

    deinit { close(fd) }

    private func readMore() throws {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw TestFailure("event stream ended or timed out (\(n), errno \(errno))") }
        var bytes = Array(buf[0..<n])
        if !headDone {
            raw += bytes
            guard let (status, headers, start) = TestClient.parseHead(raw) else { return }
            guard status == 200 else { throw TestFailure("event stream status \(status)") }
            headDone = true
            chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
            bytes = Array(raw[start...])
        }
        text += String(decoding: chunked ? decoder.feed(bytes) : bytes, as: UTF8.self)
    }

    /// The next whole event; comments and `retry:` blocks are skipped.
    func next() throws -> Event {
        while true {
            while let r = text.range(of: "\n\n") {
                let block = String(text[..<r.lowerBound])
                text = String(text[r.upperBound...])
                var event = "message", data: [String] = []
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                    else if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
                    else if line.hasPrefix("retry:") { sawRetry = true }
                }
                if !data.isEmpty { return Event(event: event, data: data.joined(separator: "\n")) }
            }
            try readMore()
        }
    }

    /// Skips events until one named `name`.
    func next(_ name: String) throws -> Event {
        while true {
            let e = try next()
            if e.event == name { return e }
        }
    }

    /// Reads until the `retry:` preamble (the pasteboards stream subscribes before sending it).
    /// Blocks before it stay buffered for next(), which skips the preamble itself.
    func waitForPreamble() throws {
        while !text.contains("retry:") { try readMore() }
    }
}

extension JSONValue {
    var strings: [String] { arrayValue?.compactMap(\.stringValue) ?? [] }
}
