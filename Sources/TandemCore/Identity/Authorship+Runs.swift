/// Author runs kept apart from the document that found them: with a saved version, so that the
/// version's authors are known after the change log no longer reaches back to it.
///
/// Encoded as: a format byte (1); the count of authors, then each as its UTF-8 length and bytes;
/// the count of runs, then each as its UTF-16 length and its author's index + 1 (0: unknown).
/// Numbers are LEB128. Runs cover the text from 0 with no gap.
extension Authorship.Run {
    static let codingFormat: UInt8 = 1

    public static func encode(_ runs: [Authorship.Run]) -> [UInt8] {
        var names: [String] = []
        var index: [String: Int] = [:]
        var body: [UInt8] = []
        for run in runs {
            var author = 0
            if let name = run.author {
                if let i = index[name] {
                    author = i + 1
                } else {
                    index[name] = names.count
                    names.append(name)
                    author = names.count
                }
            }
            appendNumber(run.to - run.from, to: &body)
            appendNumber(author, to: &body)
        }
        var out: [UInt8] = [codingFormat]
        appendNumber(names.count, to: &out)
        for name in names {
            appendNumber(name.utf8.count, to: &out)
            out += name.utf8
        }
        appendNumber(runs.count, to: &out)
        return out + body
    }

    /// The runs `encode` wrote; nil for bytes it did not write (another format, cut short, an
    /// author out of range).
    public static func decode(_ bytes: [UInt8]) -> [Authorship.Run]? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() == codingFormat, let nameCount = reader.number(), nameCount <= bytes.count else { return nil }
        var names: [String] = []
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount {
            guard let length = reader.number(), let utf8 = reader.bytes(length) else { return nil }
            names.append(String(decoding: utf8, as: UTF8.self))
        }
        guard let runCount = reader.number(), runCount <= bytes.count else { return nil }
        var runs: [Authorship.Run] = []
        runs.reserveCapacity(runCount)
        var position = 0
        for _ in 0..<runCount {
            guard let length = reader.number(), let author = reader.number(), author <= names.count,
                  length <= Int.max - position else { return nil }
            runs.append(Authorship.Run(from: position, to: position + length, author: author == 0 ? nil : names[author - 1]))
            position += length
        }
        return reader.atEnd ? runs : nil
    }

    private static func appendNumber(_ value: Int, to out: inout [UInt8]) {
        var v = UInt64(value)
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A LEB128 number that fits an `Int`, else nil.
        mutating func number() -> Int? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                guard shift <= 56 else { return nil }
                value |= UInt64(b & 0x7f) << shift
                if b & 0x80 == 0 { return value <= UInt64(Int.max) ? Int(value) : nil }
                shift += 7
            }
            return nil
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
    }
}
