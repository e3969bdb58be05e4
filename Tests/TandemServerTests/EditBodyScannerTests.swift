import TandemCore
import TandemHTTP
import Testing
@testable import TandemServer
import TandemTestSupport

/// Raw edit bodies in, the decoded edit (or nil: "left to the general decoder") out. Every
/// body the scanner reads must decode to the same edit through the `JSONValue` tree, and
/// every body it leaves must be one the tree decodes differently or refuses: the scanner
/// is a shortcut, never a second judge.
@Suite struct EditBodyScannerTests {
    typealias Form = EditForm

    static let read: [(String, Int?, Form)] = [
        (#"{"insert":"a","at":5}"#, nil, .insert("a", at: 5)),
        (#"{"at":5,"insert":"a"}"#, nil, .insert("a", at: 5)),
        (#"{"base":12,"insert":"hello","at":0}"#, 12, .insert("hello", at: 0)),
        (#"{"insert":"","at":0}"#, nil, .insert("", at: 0)),
        (#"{"insert":"é—😀","at":3,"base":0}"#, 0, .insert("é—😀", at: 3)),
        (#"{"base":7,"ops":[5,"hello",-3,10]}"#, 7, .ops([.retain(5), .insert("hello"), .delete(3), .retain(10)])),
        (#"{"ops":[]}"#, nil, .ops([])),
        (#"{"ops":[-1]}"#, nil, .ops([.delete(1)])),
        (#"{"ops":[999999999999999]}"#, nil, .ops([.retain(999_999_999_999_999)])),
        (" {\n\t\"ops\" : [ 1 , \"x\" ] ,\r\n \"base\" : 3 } \n", 3, .ops([.retain(1), .insert("x")])),
    ]

    static let left: [String] = [
        "", " ", "{}", "[]", "null", #""insert""#,
        #"{"insert":"a","at":5"#,                 // unterminated
        #"{"insert":"a","at":5}x"#,               // trailing bytes
        #"{"insert":"a","at":5,}"#,               // trailing comma
        #"{"insert":"a" "at":5}"#,                // missing comma
        #"{"insert":"a","at":5,"at":6}"#,         // duplicate member
        #"{"base":1,"base":1,"ops":[]}"#,
        #"{"insert":"a"}"#,                       // insert without at
        #"{"ops":[1],"at":1}"#,                   // at beside ops
        #"{"ops":[1],"insert":"a","at":1}"#,      // two forms
        #"{"base":-1,"ops":[]}"#,                 // signed base
        #"{"base":null,"ops":[]}"#,
        #"{"base":1.0,"ops":[]}"#,                // a JSON number, not a plain integer
        #"{"base":1e2,"ops":[]}"#,
        #"{"base":01,"ops":[]}"#,                 // leading zero
        #"{"base":"1","ops":[]}"#,
        #"{"base":9999999999999999,"ops":[]}"#,  // 16 digits
        #"{"insert":"x","at":99999999999999999999}"#,   // 20 digits: once summed past Int.max
        #"{"base":99999999999999999999,"insert":"x","at":0}"#,
        #"{"ops":[99999999999999999999999999]}"#,
        #"{"ops":[-9223372036854775808]}"#,
        #"{"ops":[- 1]}"#,                        // a space after the minus: no JSON number
        "{\"ops\":[-\r\n1]}",
        #"{"insert":"a","at":-1}"#,
        #"{"ops":[0]}"#, #"{"ops":[-0]}"#, #"{"ops":[""]}"#, #"{"ops":[1.5]}"#, #"{"ops":[true]}"#,
        #"{"ops":[1,]}"#, #"{"ops":[[1]]}"#, #"{"ops":{}}"#, #"{"ops":"1"}"#,
        #"{"insert":"a\"b","at":1}"#,             // an escape
        #"{"insert":"a\nb","at":1}"#,
        "{\"insert\":\"a\u{01}b\",\"at\":1}",     // a raw control character
        #"{"ins\u0065rt":"a","at":1}"#,           // an escaped key
        #"{"insert":"a","at":1,"actionName":"Bold"}"#,
        #"{"insert":"a","at":1,"undoable":false}"#,
        #"{"insert":"a","at":1,"newGroup":true}"#,
        #"{"delete":{"from":1,"to":2}}"#,
        #"{"replace":{"from":1,"to":2},"with":"x"}"#,
        #"{"insert":"a","at":1,"extra":1}"#,
    ]

    static func request(_ body: [UInt8], type: String? = "application/json") -> HTTPRequest {
        let headers: HTTPHeaders = type.map { ["Content-Type": $0] } ?? [:]
        return HTTPRequest(method: .post, target: "/documents/d/edits", headers: headers, body: body)
    }

    @Test(arguments: read)
    func readsThePlainBodies(body: String, base: Int?, form: Form) throws {
        let scanned = EditBodyScanner.scan(Array(body.utf8))
        #expect(scanned == EditBodyScanner.Edit(base: base, form: form))
        // The tree reads the same edit, options included.
        let tree = try EditController.decodeEditTree(Self.request(Array(body.utf8)))
        #expect(tree == EditRequest(base: base, options: EditOptions(), form: form))
        #expect(try EditController.decodeEdit(Self.request(Array(body.utf8))) == tree)
    }

    @Test(arguments: left)
    func leavesTheRestToTheTree(body: String) {
        #expect(EditBodyScanner.scan(Array(body.utf8)) == nil)
    }

    /// 5,000 bodies put together from members the scanner reads and members it must leave,
    /// in random order and spacing (fixed seed): whatever it reads, the tree reads the same.
    @Test func neverDisagreesWithTheTree() throws {
        let members = [
            #""base":3"#, #""base":0"#, #""base":-2"#, #""base":1.0"#, #""base":null"#, #""base":07"#,
            #""at":1"#, #""at":0"#, #""at":-1"#, #""at":"1""#,
            #""insert":"ab""#, #""insert":"""#, #""insert":"A""#, #""insert":5"#,
            #""ops":[3,"x",-1]"#, #""ops":[]"#, #""ops":[0]"#, #""ops":["",1]"#, #""ops":[1e1]"#,
            #""actionName":"Bold""#, #""undoable":true"#, #""delete":{"from":0,"to":1}"#, #""x":1"#,
        ]
        let spaces = ["", " ", "\n", "\t "]
        var rng = SplitMix64(seed: 42)
        var read = 0
        for _ in 0..<5000 {
            let count = Int(rng.next() % 4) + 1
            let chosen = (0..<count).map { _ in members[Int(rng.next() % UInt64(members.count))] }
            let space = { spaces[Int(rng.next() % UInt64(spaces.count))] }
            let body = space() + "{" + chosen.map { space() + $0 + space() }.joined(separator: ",") + "}" + space()
            guard let scanned = EditBodyScanner.scan(Array(body.utf8)) else { continue }
            read += 1
            let tree = try EditController.decodeEditTree(Self.request(Array(body.utf8)))
            #expect(tree == EditRequest(base: scanned.base, options: EditOptions(), form: scanned.form), "\(body)")
        }
        // The mix reads some bodies and leaves most; both sides of the comparison are exercised.
        #expect(read > 100)
    }

    /// Invalid UTF-8 inside a string is refused by the tree; the scanner leaves it.
    @Test func leavesInvalidUTF8() {
        let body = Array(#"{"insert":""#.utf8) + [0xC3, 0x28] + Array(#"","at":0}"#.utf8)
        #expect(EditBodyScanner.scan(body) == nil)
        #expect(Self.outcome { () throws(APIError) in try EditController.decodeEdit(Self.request(body)) } == "400 invalid_json")
    }

    /// A body labelled as something else is not read by the scanner, however plain.
    @Test func onlyBodiesLabelledJSON() {
        let body = Array(#"{"insert":"a","at":5}"#.utf8)
        #expect(Self.outcome { () throws(APIError) in try EditController.decodeEdit(Self.request(body, type: "text/plain")) } == "415 unsupported_media_type")
        #expect(Self.outcome { () throws(APIError) in try EditController.decodeEdit(Self.request(body, type: nil)) } == "edit")
    }

    /// A small seeded generator, so a failure names a body that comes back on every run.
    static func outcome(_ decode: () throws(APIError) -> EditRequest) -> String {
        do throws(APIError) {
            _ = try decode()
            return "edit"
        } catch {
            return "\(error.status.code) \(error.code)"
        }
    }
}
