import Testing
@testable import TandemStore

@Suite struct LEB128Tests {
    static let encodings: [(value: UInt64, bytes: [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (300, [0xAC, 0x02]),
        (16_383, [0xFF, 0x7F]),
        (16_384, [0x80, 0x80, 0x01]),
        (UInt64(Int64.max), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: encodings.indices)
    func encodesAndReadsBack(_ i: Int) throws {
        let (value, bytes) = Self.encodings[i]
        var out: [UInt8] = [0xEE]
        LEB128.append(value, to: &out)
        #expect(out == [0xEE] + bytes)
        var index = 1
        #expect(try LEB128.read(out + [0x42], at: &index) == value)
        #expect(index == 1 + bytes.count)
    }

    static let damaged: [(bytes: [UInt8], error: LEB128.ReadError)] = [
        ([], .truncated),
        ([0x80], .truncated),
        ([0xFF, 0xFF], .truncated),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .truncated),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], .tooLong),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00], .tooLong),
    ]

    @Test(arguments: damaged.indices)
    func damageIsReported(_ i: Int) {
        let (bytes, error) = Self.damaged[i]
        var index = 0
        #expect(throws: error) { try LEB128.read(bytes, at: &index) }
    }
}
