extension TextOperation {
    /// One operation with the effect of `self` followed by `next`.
    ///
    /// Throws `lengthMismatch` unless `next.baseLength == targetLength`, and
    /// `splitsSurrogatePair` when `next` cuts text inserted by `self` inside a pair.
    public func compose(_ next: TextOperation) throws(OperationError) -> TextOperation {
        let middle = targetLength
        guard next.baseLength == middle else {
            throw .lengthMismatch(expected: next.baseLength, actual: middle)
        }
        if isIdentity { return next }
        if next.isIdentity { return self }

        var first = ComponentStream(components)
        var second = ComponentStream(next.components)
        var builder = OperationBuilder()
        var position = 0 // in the middle document, for error messages
        while true {
            switch (first.current, second.current) {
            case (nil, nil):
                return builder.build()
            case (.delete(let count)?, _):
                builder.delete(count)
                first.advance()
            case (_, .insert(let text)?):
                builder.insert(String(utf16Units: text))
                second.advance()
            case (nil, _), (_, nil):
                // Unreachable once the lengths agree; kept so bad input cannot trap.
                throw .lengthMismatch(expected: next.baseLength, actual: middle)
            case (.retain(let a)?, .retain(let b)?):
                let n = min(a, b)
                builder.retain(n)
                first.consume(n); second.consume(n); position += n
            case (.retain(let a)?, .delete(let b)?):
                let n = min(a, b)
                builder.delete(n)
                first.consume(n); second.consume(n); position += n
            case (.insert(let text)?, .retain(let b)?):
                let n = min(text.count, b)
                guard n == text.count || !UTF16.splitsSurrogatePair(text[text.startIndex + n - 1], text[text.startIndex + n]) else {
                    throw .splitsSurrogatePair(at: position + n)
                }
                builder.insert(String(utf16Units: text.prefix(n)))
                first.consume(n); second.consume(n); position += n
            case (.insert(let text)?, .delete(let b)?):
                let n = min(text.count, b)
                guard n == text.count || !UTF16.splitsSurrogatePair(text[text.startIndex + n - 1], text[text.startIndex + n]) else {
                    throw .splitsSurrogatePair(at: position + n)
                }
                first.consume(n); second.consume(n); position += n
            }
        }
    }
}

/// Walks components one piece at a time, splitting them as the other side requires.
/// Inserted text is held as UTF-16 so it can be cut at any code unit.
struct ComponentStream {
    enum Piece {
        case retain(Int)
        case insert(ArraySlice<UInt16>)
        case delete(Int)
    }

    private var pieces: [Piece]
    private var index = 0
    private(set) var current: Piece?

    init(_ components: [TextOperation.Component]) {
        pieces = components.map { component in
            switch component {
            case .retain(let n): .retain(n)
            case .insert(let text): .insert(ArraySlice(text.utf16))
            case .delete(let n): .delete(n)
            }
        }
        current = pieces.first
    }

    mutating func advance() {
        index += 1
        current = index < pieces.count ? pieces[index] : nil
    }

    /// Uses up `n` units of the current piece (not more than it has).
    mutating func consume(_ n: Int) {
        switch current {
        case .retain(let count)? where count > n: current = .retain(count - n)
        case .delete(let count)? where count > n: current = .delete(count - n)
        case .insert(let text)? where text.count > n: current = .insert(text.dropFirst(n))
        default: advance()
        }
    }
}
