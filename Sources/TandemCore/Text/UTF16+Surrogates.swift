extension UTF16 {
    /// True when a cut between `before` and `after` would separate the two halves of a
    /// surrogate pair, leaving both halves unpaired.
    @inline(__always)
    static func splitsSurrogatePair(_ before: UInt16, _ after: UInt16) -> Bool {
        isLeadSurrogate(before) && isTrailSurrogate(after)
    }
}
