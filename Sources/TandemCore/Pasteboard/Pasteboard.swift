/// A pasteboard as UIPasteboard has it: a name, items with several representations each,
/// and a change count that goes up with every write. `owner` is the person it belongs to, as
/// the server names people (`nil`: nobody's, such as an ended guest session's shared one).
/// Every person has a `general` of their own; other pasteboards are private to their owner
/// unless `sharedWithEveryone` or shared with some people (`sharedWith`).
public struct Pasteboard: Sendable, Hashable {
    public static let generalName = "general"

    public let name: String
    public var owner: String?
    public var persistent: Bool
    public var sharedWithEveryone: Bool
    /// People besides the owner who read and write it.
    public var sharedWith: Set<String> = []
    public private(set) var changeCount: Int
    public private(set) var items: [PasteboardItem]

    public init(name: String, owner: String?, persistent: Bool, sharedWithEveryone: Bool = false, sharedWith: Set<String> = [],
                changeCount: Int = 0, items: [PasteboardItem] = []) {
        self.name = name
        self.owner = owner
        self.persistent = persistent
        self.sharedWithEveryone = sharedWithEveryone
        self.sharedWith = sharedWith
        self.changeCount = changeCount
        self.items = items
    }

    /// `owner`'s general pasteboard, empty.
    public static func general(of owner: String) -> Pasteboard {
        Pasteboard(name: generalName, owner: owner, persistent: true)
    }

    public var isGeneral: Bool { name == Self.generalName }

    /// Every type on the pasteboard, each once, in order of first appearance.
    public var types: [String] {
        var seen = Set<String>()
        var out: [String] = []
        for item in items { for t in item.types where seen.insert(t).inserted { out.append(t) } }
        return out
    }

    public var byteCount: Int { items.reduce(0) { $0 + $1.byteCount } }

    /// UIPasteboard.string: the first item's plain text.
    public var string: String? { items.first?.plainText?.string }

    public var hasStrings: Bool { items.first?.plainText?.string != nil }

    /// Replaces every item (UIPasteboard.setItems); bumps the change count.
    public mutating func setItems(_ newItems: [PasteboardItem], limits: PasteboardLimits) throws(PasteboardError) {
        try Self.validate(newItems, keeping: [], limits: limits)
        items = newItems
        changeCount += 1
    }

    /// Appends items (UIPasteboard.addItems); bumps the change count.
    public mutating func addItems(_ newItems: [PasteboardItem], limits: PasteboardLimits) throws(PasteboardError) {
        try Self.validate(newItems, keeping: items, limits: limits)
        items += newItems
        changeCount += 1
    }

    /// Puts `string` on the pasteboard as its only item, as plain text.
    public mutating func setString(_ string: String, limits: PasteboardLimits) throws(PasteboardError) {
        try setItems([PasteboardItem([PasteboardRepresentation(type: PasteboardType.utf8PlainText, string: string)])], limits: limits)
    }

    static func validate(_ newItems: [PasteboardItem], keeping old: [PasteboardItem], limits: PasteboardLimits) throws(PasteboardError) {
        guard old.count + newItems.count <= limits.maxItems else {
            throw .tooLarge("a pasteboard holds at most \(limits.maxItems) items")
        }
        var total = old.reduce(0) { $0 + $1.byteCount }
        for (i, item) in newItems.enumerated() {
            let index = old.count + i
            guard !item.representations.isEmpty else { throw .emptyItem(index: index) }
            guard item.representations.count <= limits.maxRepresentationsPerItem else {
                throw .tooLarge("an item holds at most \(limits.maxRepresentationsPerItem) representations")
            }
            var seen = Set<String>()
            for r in item.representations {
                guard PasteboardType.identifier(for: r.type) == r.type else { throw .invalidType(r.type) }
                guard seen.insert(r.type).inserted else { throw .duplicateType(r.type, index: index) }
                guard r.data.count <= limits.maxRepresentationBytes else {
                    throw .tooLarge("a representation holds at most \(limits.maxRepresentationBytes) bytes")
                }
                total += r.data.count
            }
        }
        guard total <= limits.maxTotalBytes else {
            throw .tooLarge("a pasteboard holds at most \(limits.maxTotalBytes) bytes")
        }
    }
}

extension Pasteboard {
    /// What a write changed, as UIPasteboard's changed notification tells it.
    public struct Change: Sendable, Hashable {
        public var typesAdded: [String]
        public var typesRemoved: [String]

        public init(typesAdded: [String], typesRemoved: [String]) {
            self.typesAdded = typesAdded
            self.typesRemoved = typesRemoved
        }
    }

    /// The types `after` has that `before` had not, and the other way round.
    public static func change(from before: [String], to after: [String]) -> Change {
        let b = Set(before), a = Set(after)
        return Change(typesAdded: after.filter { !b.contains($0) }, typesRemoved: before.filter { !a.contains($0) })
    }
}
