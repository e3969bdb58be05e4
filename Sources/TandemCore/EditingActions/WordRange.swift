/// Word boundaries for `select` with a caret: the run of word characters (letters, digits,
/// marks, connector punctuation such as `_`) touching the position, in UTF-16 offsets.
public enum WordRange {
    /// The word around `position` in `text` (UTF-16 offsets into `text`), preferring the
    /// word the position is inside or at the start of, then the one ending at it. nil when
    /// no word touches it.
    public static func around(_ position: Int, in text: Substring) -> Range<Int>? {
        // (start offset, end offset, isWordCharacter) per scalar.
        var runs: [(Int, Int, Bool)] = []
        var offset = 0
        for s in text.unicodeScalars {
            let n = s.utf16.count
            runs.append((offset, offset + n, isWordScalar(s)))
            offset += n
        }
        guard position >= 0, position <= offset else { return nil }
        // The scalar starting at `position`, else the one ending there.
        let at = runs.firstIndex { $0.0 == position && $0.2 }
        let before = runs.lastIndex { $0.1 == position && $0.2 }
        guard let seed = at ?? before else { return nil }
        var lo = seed, hi = seed
        while lo > 0, runs[lo - 1].2 { lo -= 1 }
        while hi + 1 < runs.count, runs[hi + 1].2 { hi += 1 }
        return runs[lo].0..<runs[hi].1
    }

    static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber,
             .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation:
            return true
        default:
            return false
        }
    }
}
