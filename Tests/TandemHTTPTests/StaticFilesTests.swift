import Foundation
import Testing
@testable import TandemHTTP

/// A real directory tree: `base/secret.txt` and `base/public-evil/` sit OUTSIDE the root
/// `base/public`, and must never be served whatever the request says.
final class StaticSite {
    let base: String
    let root: String
    static let secret = "TOP SECRET, never served"
    static let appJS = String(repeating: "function hello() { return 'world'; }\n", count: 60)

    init() throws {
        base = NSTemporaryDirectory() + "staticfiles-\(UUID().uuidString)"
        root = base + "/public"
        let fm = FileManager.default
        for dir in [root, root + "/sub", root + "/empty-dir", root + "/sub/deeper", base + "/public-evil"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try write(base + "/secret.txt", Self.secret)
        try write(base + "/public-evil/secret.txt", Self.secret)
        try write(root + "/index.html", "<h1>home</h1>")
        try write(root + "/app.js", Self.appJS)
        try write(root + "/style.css", "body{}")
        try write(root + "/data.json", "{}")
        try write(root + "/logo.svg", "<svg/>")
        try write(root + "/notes.TXT", "notes")
        try write(root + "/a file.txt", "spaced")
        try write(root + "/ünï.txt", "unicode")
        try write(root + "/sub/index.html", "<h1>sub</h1>")
        try write(root + "/sub/deeper/x.txt", "deep")
        try write(root + "/.env", Self.secret)
        for (name, bytes) in [("pic.png", [0x89, 0x50]), ("photo.jpg", [0xFF, 0xD8]), ("anim.gif", [0x47]),
                              ("img.webp", [0x52]), ("favicon.ico", [0]), ("font.woff2", [0x77]),
                              ("mod.wasm", [0]), ("app.js.map", [0x7B]), ("lib.mjs", [0x65]), ("blob.xyz", [1])] as [(String, [UInt8])] {
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
        }
        try fm.createSymbolicLink(atPath: root + "/escape", withDestinationPath: "../secret.txt")
        try fm.createSymbolicLink(atPath: root + "/escape-absolute", withDestinationPath: base + "/secret.txt")
        try fm.createSymbolicLink(atPath: root + "/escapedir", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: root + "/evil-sibling", withDestinationPath: "../public-evil/secret.txt")
        try fm.createSymbolicLink(atPath: root + "/sub/index-link", withDestinationPath: "../app.js")
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}

func get(_ files: StaticFiles, _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> HTTPResponse? {
    files.respond(to: HTTPRequest(method: method, target: target, headers: headers))
}

func text(_ response: HTTPResponse?) -> String? {
    response?.bodyBytes.map { String(decoding: $0, as: UTF8.self) }
}

@Suite struct StaticFilesTests {
    @Test(arguments: [
        ("/index.html", "text/html; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/lib.mjs", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/data.json", "application/json; charset=utf-8"),
        ("/app.js.map", "application/json; charset=utf-8"),
        ("/logo.svg", "image/svg+xml; charset=utf-8"),
        ("/notes.TXT", "text/plain; charset=utf-8"),
        ("/pic.png", "image/png"),
        ("/photo.jpg", "image/jpeg"),
        ("/anim.gif", "image/gif"),
        ("/img.webp", "image/webp"),
        ("/favicon.ico", "image/x-icon"),
        ("/font.woff2", "font/woff2"),
        ("/mod.wasm", "application/wasm"),
        ("/blob.xyz", "application/octet-stream"),
    ])
    func contentTypesByExtension(path: String, type: String) throws {
        let site = try StaticSite()
        let response = try #require(get(StaticFiles(root: site.root), path))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["Last-Modified"]?.hasSuffix(" GMT") == true)
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: site.root + path))
        #expect(response.bodyBytes == Array(onDisk))
    }

    @Test func servesPercentEncodedAndUnicodeNames() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        #expect(text(get(files, "/a%20file.txt")) == "spaced")
        #expect(text(get(files, "/%C3%BCn%C3%AF.txt")) == "unicode")
        #expect(text(get(files, "/sub//deeper/x.txt?v=3")) == "deep")
    }

    @Test func directoriesServeIndexAndRedirectWithoutSlash() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        #expect(text(get(files, "/")) == "<h1>home</h1>")
        #expect(get(files, "/")?.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(text(get(files, "/sub/")) == "<h1>sub</h1>")
        let redirect = try #require(get(files, "/sub?x=1"))
        #expect(redirect.status.code == 301)
        #expect(redirect.headers["Location"] == "/sub/?x=1")
        #expect(get(files, "/empty-dir/") == nil)
        #expect(get(files, "/app.js/") == nil)
        #expect(get(files, "/missing.txt") == nil)
        #expect(text(get(files, "/sub/index-link")) == StaticSite.appJS)  // symlink inside root is fine
    }

    @Test func onlyGetAndHead() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        #expect(get(files, "/style.css", method: .post) == nil)
        #expect(get(files, "/style.css", method: .delete) == nil)
        let head = try #require(get(files, "/style.css", method: .head))
        #expect(head.status == .ok)
        #expect(text(head) == "body{}")  // the connection drops it and keeps the length
    }

    @Test func etagAndConditionalRequests() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        let first = try #require(get(files, "/style.css"))
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.contains("-"))
        let hex = etag.dropFirst().dropLast().split(separator: "-")
        #expect(hex.count == 2 && Int(hex[0], radix: 16) == 6 && Int(hex[1], radix: 16) != nil)

        for ifNoneMatch in [etag, "W/" + etag, "\"nope\", " + etag, "*"] {
            let r = try #require(get(files, "/style.css", headers: ["If-None-Match": ifNoneMatch]))
            #expect(r.status == .notModified, "If-None-Match: \(ifNoneMatch)")
            #expect(r.bodyBytes == [])
            #expect(r.headers["ETag"] == etag)
            #expect(r.headers["Cache-Control"] == "no-cache")
        }
        #expect(get(files, "/style.css", headers: ["If-None-Match": "\"nope\""])?.status == .ok)

        let lastModified = try #require(first.headers["Last-Modified"])
        #expect(get(files, "/style.css", headers: ["If-Modified-Since": lastModified])?.status == .notModified)
        #expect(get(files, "/style.css", headers: ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"])?.status == .ok)
        // If-None-Match wins over If-Modified-Since.
        #expect(get(files, "/style.css", headers: ["If-None-Match": "\"nope\"", "If-Modified-Since": lastModified])?.status == .ok)
    }

    @Test func lastModifiedIsIMFFixdate() {
        #expect(IMFFixdate.string(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(IMFFixdate.string(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func cachedFilesFollowChangesOnDisk() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        let before = try #require(get(files, "/style.css"))
        #expect(text(get(files, "/style.css")) == "body{}")  // now from the cache

        // Same size, new contents: only the modification time tells.
        try site.write(site.root + "/style.css", "p{a:b}")
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, site.root + "/style.css", &times, 0) == 0)
        let after = try #require(get(files, "/style.css"))
        #expect(text(after) == "p{a:b}")
        #expect(after.headers["ETag"] != before.headers["ETag"])
        #expect(after.headers["Last-Modified"] == "Sun, 09 Sep 2001 01:46:40 GMT")

        try site.write(site.root + "/style.css", "longer contents")
        #expect(text(get(files, "/style.css")) == "longer contents")

        try FileManager.default.removeItem(atPath: site.root + "/style.css")
        #expect(get(files, "/style.css") == nil)
    }

    @Test func compressibleCachedFilesAreServedGzipped() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        let plain = try #require(get(files, "/app.js"))
        #expect(plain.headers["Content-Encoding"] == nil)
        #expect(plain.headers["Vary"] == "Accept-Encoding")
        let strong = try #require(plain.headers["ETag"])

        let zipped = try #require(get(files, "/app.js", headers: ["Accept-Encoding": "gzip, br"]))
        #expect(zipped.headers["Content-Encoding"] == "gzip")
        #expect(zipped.headers["ETag"] == "W/" + strong)
        #expect(zipped.headers["Vary"] == "Accept-Encoding")
        let body = try #require(zipped.bodyBytes)
        #expect(body.count < StaticSite.appJS.utf8.count)
        #expect(Gzip.decompress(body, limit: 1 << 20) == Array(StaticSite.appJS.utf8))

        let revalidated = try #require(get(files, "/app.js", headers: ["Accept-Encoding": "gzip", "If-None-Match": "W/" + strong]))
        #expect(revalidated.status == .notModified)
        #expect(revalidated.headers["ETag"] == "W/" + strong)
        #expect(get(files, "/app.js", headers: ["Accept-Encoding": "gzip;q=0"])?.headers["Content-Encoding"] == nil)

        // negotiate leaves an already-encoded response alone.
        let again = ContentEncoding.negotiate(request: HTTPRequest(method: .get, target: "/app.js", headers: ["Accept-Encoding": "gzip"]), response: zipped)
        #expect(again.bodyBytes == body)
        #expect(again.headers.values("Vary") == ["Accept-Encoding"])

        // Not compressible: no Vary.
        #expect(get(files, "/pic.png", headers: ["Accept-Encoding": "gzip"])?.headers["Vary"] == nil)
    }

    @Test func boundedCacheStillServesEverything() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root, cachedFileSizeLimit: 100, cacheByteLimit: 20)
        for _ in 0..<3 {
            #expect(text(get(files, "/app.js")) == StaticSite.appJS)  // too big to cache
            #expect(text(get(files, "/style.css")) == "body{}")
            #expect(text(get(files, "/data.json")) == "{}")
            #expect(text(get(files, "/notes.TXT")) == "notes")
        }
    }

    static let traversals: [String] = [
        "/../secret.txt",
        "/../../secret.txt",
        "/sub/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/.%2e/secret.txt",
        "/%2e./secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/sub%2f..%2f..%2fsecret.txt",
        "/..\\secret.txt",
        "/%5c..%5csecret.txt",
        "/..%5csecret.txt",
        "/%252e%252e/secret.txt",
        "/%c0%ae%c0%ae/secret.txt",
        "/%2e%2e%00/secret.txt",
        "/style.css%00.png",
        "/%00",
        "/./../secret.txt",
        "//../secret.txt",
        "/escape",
        "/escape-absolute",
        "/escapedir/secret.txt",
        "/escapedir",
        "/escapedir/",
        "/evil-sibling",
        "/.env",
        "/%2eenv",
        "/sub/../.env",
        "../secret.txt",
        "secret.txt",
        "/%",
        "/%zz",
    ]

    @Test(arguments: traversals)
    func neverServesOutsideTheRoot(target: String) throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        // Twice: the second request may take a cached path.
        for _ in 0..<2 {
            let response = get(files, target)
            #expect(!(text(response) ?? "").contains("SECRET"), "\(target) leaked the secret")
            if let response {
                #expect(response.status == .badRequest, "\(target) gave \(response.status)")
                #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
                #expect(text(response)?.contains("\"code\":\"invalid_path\"") == true)
            }
        }
    }

    @Test func dotSegmentsAndEncodedSeparatorsAreBadRequests() throws {
        let site = try StaticSite()
        let files = StaticFiles(root: site.root)
        for target in ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/..\\secret.txt", "/style.css%00.png", "/%zz"] {
            #expect(get(files, target)?.status == .badRequest, "\(target)")
        }
        for target in ["/escape", "/escapedir/secret.txt", "/evil-sibling", "/.env"] {
            #expect(get(files, target) == nil, "\(target)")
        }
    }

    @Test func rootGivenWithSymlinkOrTrailingSlashWorks() throws {
        let site = try StaticSite()
        try FileManager.default.createSymbolicLink(atPath: site.base + "/link-to-public", withDestinationPath: site.root)
        for root in [site.root + "/", site.base + "/link-to-public", site.base + "/./public"] {
            let files = StaticFiles(root: root)
            #expect(text(get(files, "/style.css")) == "body{}", "root \(root)")
            #expect(get(files, "/escape") == nil)
        }
        #expect(get(StaticFiles(root: site.base + "/does-not-exist"), "/style.css") == nil)
    }
}
