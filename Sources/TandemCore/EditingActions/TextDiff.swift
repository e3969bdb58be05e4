/// Whole-text replacements (PUT text, revert) become the smallest single splice, so the
/// change, its undo range and its transforms touch only what really differs.
public enum TextDiff {
    /// The one splice turning `old` into `new`: the common prefix and suffix are retained,
    /// and neither end cuts a surrogate pair in two. The identity when the texts are equal.
    public static func replacement(from old: String, to new: String) throws(OperationError) -> TextOperation {
        let a = Array(old.utf16), b = Array(new.utf16)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        // Never cut a surrogate pair in two: back off to whole characters.
        if prefix > 0, prefix < a.count, UTF16.isTrailSurrogate(a[prefix]) { prefix -= 1 }
        if suffix > 0, a.count - suffix > prefix, UTF16.isLeadSurrogate(a[a.count - suffix - 1]) { suffix -= 1 }
        let inserted = String(utf16Units: b[prefix..<(b.count - suffix)])
        return try TextOperation.replace(from: prefix, to: a.count - suffix, with: inserted, length: a.count)
    }
}
