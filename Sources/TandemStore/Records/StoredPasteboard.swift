/// A pasteboard as stored; `payload` is the server's encoding of its items.
/// `owner` is the person who owns it, as the server names people (`nil`: nobody's);
/// `shared`: everyone who may use the server reads and writes it.
public struct StoredPasteboard: Sendable, Hashable {
    public var name: String
    public var owner: String?
    public var persistent: Bool
    public var changeCount: Int
    public var payload: [UInt8]
    public var shared: Bool
    /// The people (as the server names them) it is shared with besides its owner.
    public var sharedWith: [String]

    public init(name: String, owner: String?, persistent: Bool, changeCount: Int, payload: [UInt8], shared: Bool = false,
                sharedWith: [String] = []) {
        self.name = name
        self.owner = owner
        self.persistent = persistent
        self.changeCount = changeCount
        self.payload = payload
        self.shared = shared
        self.sharedWith = sharedWith
    }

    /// `sharedWith` as one column: people's names hold no newline.
    var sharedWithColumn: String? { sharedWith.isEmpty ? nil : sharedWith.joined(separator: "\n") }

    static func sharedWith(column: String?) -> [String] {
        column.map { $0.split(separator: "\n").map(String.init) } ?? []
    }
}
