/// A session's selection in UTF-16 offsets; `anchor == head` is a caret.
public struct Selection: Sendable, Hashable, Codable {
    public var anchor: Int
    public var head: Int

    public init(anchor: Int, head: Int) {
        self.anchor = anchor
        self.head = head
    }

    public init(caret: Int) { self.init(anchor: caret, head: caret) }

    public init(_ range: Range<Int>) { self.init(anchor: range.lowerBound, head: range.upperBound) }

    public var range: Range<Int> { min(anchor, head)..<max(anchor, head) }
}
