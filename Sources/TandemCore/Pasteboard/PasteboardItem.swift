/// One representation of an item: its type (a UTI, see `PasteboardType`) and its bytes.
public struct PasteboardRepresentation: Sendable, Hashable {
    public var type: String
    public var data: [UInt8]

    public init(type: String, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    public init(type: String, string: String) {
        self.init(type: type, data: Array(string.utf8))
    }

    /// The bytes as text, nil when they are not UTF-8.
    public var string: String? { String(validating: data, as: UTF8.self) }
}

/// One item on a pasteboard: the same content in several types, in the writer's order of
/// preference (UIPasteboard's item dictionary, keeping its order).
public struct PasteboardItem: Sendable, Hashable {
    public var representations: [PasteboardRepresentation]

    public init(_ representations: [PasteboardRepresentation]) {
        self.representations = representations
    }

    public var types: [String] { representations.map(\.type) }

    public subscript(type: String) -> PasteboardRepresentation? {
        representations.first { $0.type == type }
    }

    /// The first plain-text representation, if any (what paste takes).
    public var plainText: PasteboardRepresentation? {
        for t in PasteboardType.plainTextTypes { if let r = self[t] { return r } }
        return nil
    }

    public var byteCount: Int { representations.reduce(0) { $0 + $1.data.count } }
}
