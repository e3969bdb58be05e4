import TandemCore
import TandemHTTP
import Testing
@testable import TandemServer

/// Numbers a hostile client sends, each once enough to stop the process: every one is
/// now refused with the status the contract names, by the decoder that reads it.
@Suite struct ClientNumberTests {
    static let edits: [(String, String)] = [
        (#"{"insert":"x","at":99999999999999999999}"#, "400 invalid_field"),
        (#"{"base":99999999999999999999,"insert":"x","at":0}"#, "400 invalid_field"),
        (#"{"ops":[99999999999999999999]}"#, "400 invalid_field"),
        (#"{"ops":[-9223372036854775808]}"#, "400 invalid_field"),
        (#"{"ops":[9223372036854775807,9223372036854775807]}"#, "400 invalid_field"),
        (#"{"ops":[9007199254740992]}"#, "400 invalid_field"),          // one past the safe range
        (#"{"ops":[-9007199254740992]}"#, "400 invalid_field"),
        (#"{"insert":"x","at":1.0}"#, "400 invalid_field"),             // an integer field takes integers
        (#"{"insert":"x","at":1e2}"#, "400 invalid_field"),
        (#"{"delete":{"from":0,"to":1.0}}"#, "400 invalid_field"),
        (#"{"ops":[2.0]}"#, "400 invalid_field"),
        (#"{"ops":[9007199254740991]}"#, "edit"),                        // read; the document judges its length
        (#"{"ops":[-9007199254740991]}"#, "edit"),
    ]

    @Test(arguments: edits)
    func editNumbersAreRangeCheckedWhereTheyAreRead(body: String, outcome: String) {
        let request = EditBodyScannerTests.request(Array(body.utf8))
        #expect(EditBodyScannerTests.outcome { () throws(APIError) in try EditController.decodeEdit(request) } == outcome)
    }

    /// Retains and deletes the decoder lets through still cannot add up past what an
    /// operation may span: the sum is checked before it is taken.
    @Test(arguments: [
        [TextOperation.Component.retain(9_007_199_254_740_991), .retain(9_007_199_254_740_991)],
        [.retain(Int.max), .retain(Int.max)],
        [.delete(Int.max), .retain(1)],
        [.retain(TextOperation.maxLength), .insert("x"), .delete(1)],
    ])
    func operationLengthsCannotOverflow(_ components: [TextOperation.Component]) {
        #expect(throws: OperationError.self) { try TextOperation(components) }
    }

    @Test func theLongestOperationIsStillBuilt() throws {
        let op = try TextOperation([.retain(TextOperation.maxLength - 1), .delete(1)])
        #expect(op.baseLength == TextOperation.maxLength)
    }

    @Test func lengthMismatchNamesTheOperationsLengthFirst() throws {
        let edit = EditRequest(base: nil, options: EditOptions(), form: .ops([.retain(5)]))
        do throws(APIError) {
            _ = try edit.build(3)
            Issue.record("a 5-unit operation was built for a 3-unit document")
        } catch {
            #expect(error.code == "length_mismatch")
            #expect(error.message.contains("operation spans 5 characters but the document has 3"), "\(error.message)")
        }
    }
}

/// The JSON parser's work is linear and bounded, whatever the body.
@Suite struct JSONParserBoundsTests {
    static func object(keys: Int, duplicateLast: Bool = false) -> [UInt8] {
        var keys = (0..<keys).map { "\"k\($0)\":1" }
        if duplicateLast { keys.append("\"k0\":2") }
        return Array(("{" + keys.joined(separator: ",") + "}").utf8)
    }

    @Test func manyKeysAreReadAndADuplicateAmongThemIsFound() throws {
        let parsed = try JSONParser.parse(Self.object(keys: JSONParser.maxMembers))
        #expect(parsed.objectKeys?.count == JSONParser.maxMembers)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Self.object(keys: 500, duplicateLast: true)) }
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Self.object(keys: 7, duplicateLast: true)) }
    }

    /// 100,000 keys once took 20 s of an event loop for the duplicate check alone.
    @Test func anObjectOfAHundredThousandKeysIsRefused() {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Self.object(keys: 100_000)) }
    }

    @Test func valuesAndDepthAreBounded() throws {
        let many = Array(("[" + Array(repeating: "1", count: JSONParser.maxValues).joined(separator: ",") + "]").utf8)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(many) }
        let fits = Array(("[" + Array(repeating: "1", count: JSONParser.maxValues - 1).joined(separator: ",") + "]").utf8)
        #expect(try JSONParser.parse(fits).arrayValue?.count == JSONParser.maxValues - 1)
        let deep = Array((String(repeating: "[", count: 66) + String(repeating: "]", count: 66)).utf8)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(deep) }
    }
}
