/// How much one pasteboard may hold; a write beyond any of them is refused whole.
public struct PasteboardLimits: Sendable, Hashable {
    public var maxRepresentationBytes: Int
    public var maxItems: Int
    public var maxRepresentationsPerItem: Int
    /// All representations of all items together.
    public var maxTotalBytes: Int

    public init(maxRepresentationBytes: Int = 10 << 20, maxItems: Int = 100,
                maxRepresentationsPerItem: Int = 16, maxTotalBytes: Int = 32 << 20) {
        self.maxRepresentationBytes = maxRepresentationBytes
        self.maxItems = maxItems
        self.maxRepresentationsPerItem = maxRepresentationsPerItem
        self.maxTotalBytes = maxTotalBytes
    }
}
