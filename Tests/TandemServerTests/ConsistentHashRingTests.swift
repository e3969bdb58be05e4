import Testing
@testable import TandemServer

/// The ring against what a real nginx 1.22 did: three upstream servers, `hash $arg_k
/// consistent`, 40 keys sent through it (the backends answered with their port).
struct ConsistentHashRingTests {
    static let servers = ["127.0.0.1:18081", "127.0.0.1:18082", "127.0.0.1:18083"]
    static let nginxChose: [(key: String, server: String)] = [
        ("doc-0", "127.0.0.1:18081"),
        ("doc-1", "127.0.0.1:18082"),
        ("doc-2", "127.0.0.1:18082"),
        ("doc-3", "127.0.0.1:18083"),
        ("doc-4", "127.0.0.1:18081"),
        ("doc-5", "127.0.0.1:18083"),
        ("doc-6", "127.0.0.1:18083"),
        ("doc-7", "127.0.0.1:18082"),
        ("doc-8", "127.0.0.1:18081"),
        ("doc-9", "127.0.0.1:18083"),
        ("doc-10", "127.0.0.1:18082"),
        ("doc-11", "127.0.0.1:18082"),
        ("doc-12", "127.0.0.1:18081"),
        ("doc-13", "127.0.0.1:18083"),
        ("doc-14", "127.0.0.1:18081"),
        ("doc-15", "127.0.0.1:18082"),
        ("doc-16", "127.0.0.1:18083"),
        ("doc-17", "127.0.0.1:18081"),
        ("doc-18", "127.0.0.1:18081"),
        ("doc-19", "127.0.0.1:18083"),
        ("doc-20", "127.0.0.1:18081"),
        ("doc-21", "127.0.0.1:18083"),
        ("doc-22", "127.0.0.1:18081"),
        ("doc-23", "127.0.0.1:18083"),
        ("doc-24", "127.0.0.1:18081"),
        ("doc-25", "127.0.0.1:18083"),
        ("doc-26", "127.0.0.1:18081"),
        ("doc-27", "127.0.0.1:18081"),
        ("doc-28", "127.0.0.1:18083"),
        ("doc-29", "127.0.0.1:18083"),
        ("doc-30", "127.0.0.1:18082"),
        ("doc-31", "127.0.0.1:18081"),
        ("doc-32", "127.0.0.1:18082"),
        ("doc-33", "127.0.0.1:18083"),
        ("doc-34", "127.0.0.1:18082"),
        ("doc-35", "127.0.0.1:18081"),
        ("doc-36", "127.0.0.1:18081"),
        ("doc-37", "127.0.0.1:18083"),
        ("doc-38", "127.0.0.1:18083"),
        ("doc-39", "127.0.0.1:18081"),
    ]

    @Test func everyKeyGoesWhereNginxSentIt() {
        let ring = ConsistentHashRing(servers: Self.servers)
        for (key, server) in Self.nginxChose {
            #expect(ring.server(for: key) == server, "\(key)")
        }
    }

    @Test func aServerThatIsDownPassesItsKeysOnAndTheOthersKeepTheirs() {
        let ring = ConsistentHashRing(servers: Self.servers)
        let down = "127.0.0.1:18082"
        for (key, server) in Self.nginxChose {
            let moved = ring.server(for: key) { $0 != down }
            if server == down {
                #expect(moved != nil && moved != down)
            } else {
                #expect(moved == server)
            }
        }
        #expect(ring.server(for: "doc-1") { _ in false } == nil)
    }

    @Test func theCRCIsZlibs() {
        #expect(CRC32().adding(Array("123456789".utf8)).value == 0xCBF4_3926)
        #expect(CRC32().adding(Array("1234".utf8)).adding(Array("56789".utf8)).value == 0xCBF4_3926)
        #expect(CRC32().value == 0)
    }

    @Test(arguments: [
        ("tandem1:8080", "tandem1", "8080"), ("10.0.0.1:80", "10.0.0.1", "80"), ("tandem1", "tandem1", ""),
        ("[::1]:8080", "[::1]", "8080"), ("unix:/tmp/t.sock", "/tmp/t.sock", ""), ("host:port", "host:port", ""),
    ])
    func serversSplitAsNginxSplitsThem(_ server: String, _ host: String, _ port: String) {
        let (h, p) = ConsistentHashRing.split(server)
        #expect(String(decoding: h, as: UTF8.self) == host)
        #expect(String(decoding: p, as: UTF8.self) == port)
    }

    @Test func noServersNoAnswer() {
        #expect(ConsistentHashRing(servers: []).server(for: "d") == nil)
    }
}
