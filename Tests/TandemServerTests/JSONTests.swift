import Foundation
import TandemCore
import Testing
@testable import TandemServer

@Suite struct JSONParserTests {
    static let valid: [(String, JSONValue)] = [
        ("null", .null), ("true", true), ("false", false), ("0", 0), ("-0", 0), ("42", 42),
        ("-17", -17), ("1.5", .number(1.5)), ("1e3", .number(1000)), ("-2.5E-1", .number(-0.25)),
        ("\"\"", ""), ("\"a\"", "a"), (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{c}\n\r\t")),
        (#""\u00e9""#, "é"), (#""\ud83d\ude00""#, "😀"), ("\"😀\"", "😀"),
        ("[]", []), ("[1,\"a\",null]", [1, "a", nil]), ("{}", [:]),
        ("{\"a\":1,\"b\":[true]}", ["a": 1, "b": [true]]),
        (" \n\t{ \"a\" : 1 } \r\n", ["a": 1]),
        ("9223372036854775807", .integer(Int.max)),
        ("9223372036854775808", .number(9223372036854775808)),
    ]

    static let invalid: [String] = [
        "", " ", "nul", "tru", "True", "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity",
        "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"", "\"a\u{1}b\"", "[1,]", "[,1]",
        "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1,\"a\":2}", "[1] 2", "{} {}", "[", "{", "]",
        "'a'", "// c\n1", "1e999",
    ]

    @Test(arguments: valid)
    func parsesValid(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: invalid)
    func rejectsInvalid(_ text: String) {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func limitsDepth() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array(deep.utf8)) }
        let ok = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        _ = try JSONParser.parse(Array(ok.utf8))
    }

    /// An integer field takes what was written as an integer, within what every peer holds exactly.
    @Test func intValueIsAnIntegerAsWritten() {
        #expect(JSONValue.integer(3).intValue == 3)
        #expect(JSONValue.integer(JSONValue.maxSafeInteger).intValue == JSONValue.maxSafeInteger)
        #expect(JSONValue.integer(-JSONValue.maxSafeInteger).intValue == -JSONValue.maxSafeInteger)
        #expect(JSONValue.integer(JSONValue.maxSafeInteger + 1).intValue == nil)
        #expect(JSONValue.integer(Int.min).intValue == nil)
        #expect(JSONValue.number(3.0).intValue == nil)
        #expect(JSONValue.number(3.5).intValue == nil)
        #expect(JSONValue.string("3").intValue == nil)
    }
}

@Suite struct JSONWriterTests {
    @Test func writesNestedStructures() {
        var w = JSONWriter()
        w.beginObject()
        w.key("a"); w.int(-12)
        w.key("b"); w.beginArray(); w.string("x\"y"); w.null(); w.bool(true); w.beginObject(); w.endObject(); w.endArray()
        w.key("c"); w.beginObject(); w.key("d"); w.int(0); w.endObject()
        w.key("e"); w.int(Int.min)
        w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"a":-12,"b":["x\"y",null,true,{}],"c":{"d":0},"e":-9223372036854775808}"#)
    }

    @Test func escapesControlCharacters() {
        var w = JSONWriter()
        w.string("a\u{1}\n\t\u{1f}é😀")
        #expect(String(decoding: w.bytes, as: UTF8.self) == "\"a\\u0001\\n\\t\\u001fé😀\"")
    }

    /// Containers deeper than the writer's 64-level bitmask keep their commas right.
    @Test(arguments: [1, 63, 64, 65, 100])
    func nestsDeeplyWithCommas(_ levels: Int) throws {
        var value: JSONValue = [1, "x"]
        for i in 0..<levels { value = i % 2 == 0 ? [.integer(i), value, ["k": .integer(i)]] : ["a": .integer(i), "b": value, "c": []] }
        let bytes = JSONWriter.encode(value)
        #expect(try JSONParser.parse(bytes, maxDepth: 1000) == value)
        #expect(try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) is NSObject)
    }

    @Test(arguments: JSONParserTests.valid.map(\.1))
    func roundTripsThroughParser(_ value: JSONValue) throws {
        #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
    }
}

@Suite struct CompactOperationTests {
    /// The journal writes an operation from its coding directly; it must match what the
    /// operation itself writes, and decode back to it.
    @Test func codingWritesWhatTheOperationWrites() throws {
        var checked = 0
        for length in 0...4 {
            for p in 0...length {
                for d in 0...(length - p) {
                    for inserted in ["", "a", "😀\"\n"] {
                        let op = try TextOperation.replace(from: p, to: p + d, with: inserted, length: length)
                        var a = JSONWriter(), b = JSONWriter()
                        CompactOperation.write(op, to: &a)
                        CompactOperation.write(OperationCoding(op), to: &b)
                        #expect(a.bytes == b.bytes)
                        let decoded = try TextOperation(CompactOperation.decode(try JSONParser.parse(b.bytes)))
                        #expect(decoded == op)
                        checked += 1
                    }
                }
            }
        }
        let two = try TextOperation([.retain(1), .delete(2), .retain(1), .insert("xy"), .retain(3)])
        var a = JSONWriter(), b = JSONWriter()
        CompactOperation.write(two, to: &a)
        CompactOperation.write(OperationCoding(two), to: &b)
        #expect(String(decoding: b.bytes, as: UTF8.self) == #"[1,-2,1,"xy",3]"#)
        #expect(a.bytes == b.bytes)
        #expect(checked == 105)
        var mismatched = OperationCoding(two)
        mismatched.deleted.append(1)
        var c = JSONWriter()
        CompactOperation.write(mismatched, to: &c)
        #expect(c.bytes == Array("[]".utf8))
    }
}
