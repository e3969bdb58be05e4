import FuzzSupport
import TandemCore
import TandemHTTP
@testable import TandemServer

/// The edit-body scanner is a shortcut past the general decoder and must never be a second
/// judge: whatever body it reads, `decodeEditTree` reads to the same edit (strings byte for
/// byte, default options), and `decodeEdit` answers exactly as `decodeEditTree` on every body.
func fuzzEditBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let request = HTTPRequest(method: .post, target: "/documents/d/edits", headers: ["Content-Type": "application/json"], body: input)
    let tree = outcome { () throws(APIError) in try EditController.decodeEditTree(request) }
    let decoded = outcome { () throws(APIError) in try EditController.decodeEdit(request) }
    require(decoded == tree, "decodeEdit says \(decoded), decodeEditTree says \(tree)", input: input)
    if let scanned = EditBodyScanner.scan(input) {
        let edit = EditRequest(base: scanned.base, options: EditOptions(), form: scanned.form)
        require(describe(edit) == tree, "the scanner reads \(describe(edit)), the tree \(tree)", input: input)
    }
    return 0
}

func outcome(_ decode: () throws(APIError) -> EditRequest) -> String {
    do throws(APIError) {
        return describe(try decode())
    } catch {
        return "error \(error.status.code) \(error.code): \(error.message)"
    }
}

/// An edit spelled out with its strings as UTF-8 bytes, so that two edits compare exactly.
func describe(_ e: EditRequest) -> String {
    func text(_ s: String) -> String { "\(Array(s.utf8))" }
    let form: String
    switch e.form {
    case .ops(let components):
        form = "ops " + components.map { c -> String in
            switch c {
            case .retain(let n): "r\(n)"
            case .delete(let n): "d\(n)"
            case .insert(let s): "i" + text(s)
            }
        }.joined(separator: ",")
    case .insert(let s, let at): form = "insert \(text(s)) at \(at)"
    case .delete(let from, let to): form = "delete \(from)..<\(to)"
    case .replace(let from, let to, let with): form = "replace \(from)..<\(to) with \(text(with))"
    }
    let o = e.options
    return "base \(e.base.map(String.init) ?? "nil") \(form) name \(o.actionName.map(text) ?? "nil") undoable \(o.undoable) newGroup \(o.newGroup) coalescing \(o.coalescing)"
}
