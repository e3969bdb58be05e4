import Foundation
import Testing
import TandemCore
@testable import TandemServer

@Suite struct ActionRoutesTests {
    @Test func cutThenUndoRestoresTextAndSelectionButNotThePasteboard() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        try c.document("d", text: "hello brave world")
        try c.select("d", 6, 12, token: a.token)
        let cut = try c.send("POST", "/documents/d/cut", token: a.token)
        #expect(cut.status == 200, "\(cut.text)")
        #expect(cut["actionName"] == "Cut")
        #expect(cut["selection"] == ["anchor": 6, "head": 6])
        #expect(cut["changeCount"] == 1)
        #expect(try c.text("d") == "hello world")
        #expect(try c.send("GET", "/pasteboards/general", token: a.token)["items"] == [[["type": "public.utf8-plain-text", "string": "brave "]]])
        let actions = try c.send("GET", "/documents/d/actions", token: a.token)
        #expect(actions["undoMenuItemTitle"] == "Undo Cut")

        let undo = try c.send("POST", "/documents/d/undo", token: a.token)
        #expect(undo.status == 200)
        #expect(undo["actionName"] == "Cut")
        #expect(try c.text("d") == "hello brave world")
        #expect(undo["selection"] == ["anchor": 6, "head": 12])
        let g = try c.send("GET", "/pasteboards/general", token: a.token)
        #expect(g["changeCount"] == 1)
        #expect(g["items"] == [[["type": "public.utf8-plain-text", "string": "brave "]]])
        #expect(try c.send("GET", "/documents/d/actions", token: a.token)["redoMenuItemTitle"] == "Redo Cut")
    }

    @Test func pasteLandsWhereTheSelectionHasMovedTo() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A"), b = try c.session("B")
        try c.document("d", text: "hello world")
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: Array("big ".utf8), contentType: "text/plain").status == 200)
        try c.select("d", 6, 6, token: a.token)
        // B types before A's caret while A is about to paste.
        #expect(try c.send("POST", "/documents/d/edits", token: b.token, json: #"{"insert":">> ","at":0}"#).status == 200)
        #expect(try c.send("POST", "/documents/d/edits", token: b.token, json: #"{"insert":"!","at":14}"#).status == 200)
        let paste = try c.send("POST", "/documents/d/paste", token: a.token)
        #expect(paste.status == 200, "\(paste.text)")
        #expect(try c.text("d") == ">> hello big world!")
        #expect(paste["selection"] == ["anchor": 13, "head": 13])
        // Undo of the paste is A's own and leaves B's text alone.
        #expect(try c.send("POST", "/documents/d/undo", token: a.token)["actionName"] == "Paste")
        #expect(try c.text("d") == ">> hello world!")
    }

    @Test func pasteReplacesTheSelectionAndTakesANamedPasteboardOrType() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        try c.document("d", text: "one two three")
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"clip"}"#).status == 201)
        #expect(try c.send("PUT", "/pasteboards/clip/items", token: a.token, json: #"[[{"type":"text/html","string":"<i>2</i>"},{"type":"text/plain","string":"2"}]]"#).status == 200)
        try c.select("d", 4, 7, token: a.token)
        #expect(try c.send("POST", "/documents/d/paste", token: a.token, json: #"{"pasteboard":"clip"}"#).status == 200)
        #expect(try c.text("d") == "one 2 three")
        let html = try c.send("POST", "/documents/d/paste", token: a.token, json: #"{"pasteboard":"clip","type":"text/html","from":0,"to":3}"#)
        #expect(html.status == 200)
        #expect(try c.text("d") == "<i>2</i> 2 three")
        #expect(html["selection"] == ["anchor": 8, "head": 8])
        let missing = try c.send("POST", "/documents/d/paste", token: a.token, json: #"{"pasteboard":"clip","type":"public.png"}"#)
        #expect(missing.status == 409)
        #expect(missing["error"]?["code"] == "nothing_to_paste")
        let empty = try c.send("POST", "/documents/d/paste", token: a.token)
        #expect(empty.status == 409)
        #expect(try c.send("POST", "/documents/d/paste", token: a.token, json: #"{"pasteboard":"gone"}"#).status == 404)
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: [0xFF, 0xFE], contentType: "text/plain").status == 200)
        let notText = try c.send("POST", "/documents/d/paste", token: a.token)
        #expect(notText.status == 422)
        #expect(notText["error"]?["code"] == "not_text")
        #expect(try c.text("d") == "<i>2</i> 2 three")
    }

    @Test func deleteIsAnUndoableGroupAndEmptyTargetsAreRefused() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        try c.document("d", text: "abcdef")
        // No session and no range: whose selection?
        #expect(try c.send("POST", "/documents/d/delete").status == 401)
        // A session without a selection in this document.
        let none = try c.send("POST", "/documents/d/copy", token: a.token)
        #expect(none.status == 409)
        #expect(none["error"]?["code"] == "no_selection")
        try c.select("d", 2, 2, token: a.token)
        for action in ["cut", "copy", "delete"] {
            let r = try c.send("POST", "/documents/d/\(action)", token: a.token)
            #expect(r.status == 409)
            #expect(r["error"]?["code"] == "empty_selection")
        }
        let emptyRange = try c.send("POST", "/documents/d/delete", json: #"{"from":3,"to":3}"#)
        #expect(emptyRange.status == 422)
        #expect(emptyRange["error"]?["code"] == "empty_range")
        #expect(try c.send("POST", "/documents/d/delete", json: #"{"from":3,"to":9}"#).status == 422)
        #expect(try c.send("POST", "/documents/d/delete", json: #"{"from":3}"#).status == 400)
        #expect(try c.send("POST", "/documents/d/delete", json: #"{"from":1,"to":2,"pasteboard":"general"}"#).status == 400)
        #expect(try c.send("GET", "/pasteboards/general", token: a.token)["changeCount"] == 0)

        // Anonymous delete of a range lands in the document's undo manager.
        let del = try c.send("POST", "/documents/d/delete", json: #"{"from":1,"to":3}"#)
        #expect(del.status == 200)
        #expect(del["actionName"] == "Delete")
        #expect(del["selection"] == ["anchor": 1, "head": 1])
        #expect(try c.text("d") == "adef")
        // A's caret at 2 moved with the deletion.
        try c.select("d", 1, 3, token: a.token)
        #expect(try c.send("POST", "/documents/d/delete", token: a.token)["selection"] == ["anchor": 1, "head": 1])
        #expect(try c.text("d") == "af")
        #expect(try c.send("POST", "/documents/d/undo?scope=document").status == 200)
        #expect(try c.text("d") == "adef")
        let history = try c.send("GET", "/documents/d/history?scope=document")
        #expect(history["undoActionName"] == "Delete")
        #expect(try c.send("POST", "/documents/d/undo?scope=document").status == 200)
        #expect(try c.text("d") == "abcdef")
        #expect(try c.send("GET", "/pasteboards/general", token: a.token)["changeCount"] == 0)
    }

    @Test func selectTakesTheWordAroundTheCaretAndSelectAllTheText() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        try c.document("d", text: "say h\u{E9}llo_w\u{F6}rld2, \u{1F600} ok")
        try c.select("d", 7, 7, token: a.token)
        let word = try c.send("POST", "/documents/d/select", token: a.token)
        #expect(word.status == 200)
        #expect(word["selection"] == ["anchor": 4, "head": 16])
        try c.select("d", 3, 3, token: a.token)
        #expect(try c.send("POST", "/documents/d/select", token: a.token)["selection"] == ["anchor": 0, "head": 3])
        // Between punctuation and an emoji no word touches the caret: it stays.
        try c.select("d", 18, 18, token: a.token)
        #expect(try c.send("POST", "/documents/d/select", token: a.token)["selection"] == ["anchor": 18, "head": 18])
        #expect(try c.send("POST", "/documents/d/select", token: a.token, json: #"{"from":1,"to":2}"#)["selection"] == ["anchor": 1, "head": 2])
        #expect(try c.send("POST", "/documents/d/select", token: a.token, json: #"{"from":19,"to":19}"#).status == 422)
        #expect(try c.send("POST", "/documents/d/selectAll", token: a.token)["selection"] == ["anchor": 0, "head": 23])
        #expect(try c.send("POST", "/documents/d/selectAll").status == 401)
        try c.document("empty", text: "")
        #expect(try c.send("POST", "/documents/empty/selectAll", token: a.token).status == 409)
        // The others see the new selection.
        let presence = try c.send("GET", "/documents/d/presence").json.arrayValue ?? []
        #expect(presence.first?["selection"] == ["anchor": 0, "head": 23])
    }

    @Test func secureDocumentsAreNeverCopied() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        let owner = try c.document("pw", text: "hunter2 is secret")
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: Array("before".utf8), contentType: "text/plain").status == 200)
        #expect(try c.asOwner(owner, "PATCH", "/documents/pw", json: #"{"secure":true}"#)["secure"] == true)
        try c.select("pw", 0, 7, token: a.token)
        for action in ["copy", "cut"] {
            let r = try c.send("POST", "/documents/pw/\(action)", token: a.token)
            #expect(r.status == 403)
            #expect(r["error"]?["code"] == "secure_document")
            let explicit = try c.send("POST", "/documents/pw/\(action)", token: a.token, json: #"{"from":0,"to":7}"#)
            #expect(explicit.status == 403)
        }
        #expect(try c.text("pw") == "hunter2 is secret")
        let g = try c.send("GET", "/pasteboards/general", token: a.token)
        #expect(g["changeCount"] == 1)
        #expect(!g.text.contains("hunter2"))
        let actions = try c.send("GET", "/documents/pw/actions", token: a.token)
        #expect(actions["cut"] == false)
        #expect(actions["copy"] == false)
        #expect(actions["delete"] == true)
        #expect(actions["paste"] == true)
        // Paste and delete still work, as in a secure text field.
        #expect(try c.send("POST", "/documents/pw/paste", token: a.token).status == 200)
        #expect(try c.text("pw") == "before is secret")
        #expect(try c.asOwner(owner, "PATCH", "/documents/pw", json: #"{"secure":false}"#).status == 200)
        #expect(try c.send("POST", "/documents/pw/copy", token: a.token, json: #"{"from":0,"to":6}"#).status == 200)
    }

    @Test func actionsFollowTheMenuRulesInEveryState() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        let owner = try c.document("d", text: "some text")
        func actions(_ token: String?, _ query: String = "") throws -> [String: Bool] {
            let r = try c.send("GET", "/documents/d/actions\(query)", token: token)
            #expect(r.status == 200, "\(r.text)")
            var out: [String: Bool] = [:]
            for k in ["cut", "copy", "paste", "delete", "select", "selectAll", "undo", "redo"] { out[k] = r[k]?.boolValue }
            return out
        }
        let allFalse = ["cut": false, "copy": false, "paste": false, "delete": false, "select": false, "selectAll": false, "undo": false, "redo": false]
        // Anonymous: no selection, nothing to undo.
        #expect(try actions(nil) == allFalse)
        // A session without a selection may selectAll, not select (no caret to start from:
        // 409 no_selection); the general pasteboard is empty.
        var expected = allFalse
        expected["selectAll"] = true
        #expect(try actions(a.token) == expected)
        // A caret: select has a word to find; paste needs text on the pasteboard.
        try c.select("d", 4, 4, token: a.token)
        expected["select"] = true
        #expect(try actions(a.token) == expected)
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: [1, 2, 3], contentType: "image/png").status == 200)
        #expect(try actions(a.token) == expected)
        #expect(try c.send("POST", "/pasteboards/general/items", token: a.token, body: Array("t".utf8), contentType: "text/plain").status == 200)
        #expect(try actions(a.token)["paste"] == false, "only the first item counts")
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: Array("t".utf8), contentType: "text/plain").status == 200)
        expected["paste"] = true
        #expect(try actions(a.token) == expected)
        // A named empty pasteboard, and an unknown one.
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"blank"}"#).status == 201)
        #expect(try actions(a.token, "?pasteboard=blank")["paste"] == false)
        #expect(try c.send("GET", "/documents/d/actions?pasteboard=gone", token: a.token).status == 404)
        // A selection.
        try c.select("d", 0, 4, token: a.token)
        expected["cut"] = true
        expected["copy"] = true
        expected["delete"] = true
        #expect(try actions(a.token) == expected)
        // After a cut: undo; after the undo: redo.
        #expect(try c.send("POST", "/documents/d/cut", token: a.token).status == 200)
        expected["cut"] = false
        expected["copy"] = false
        expected["delete"] = false
        expected["undo"] = true
        #expect(try actions(a.token) == expected)
        #expect(try actions(nil)["undo"] == true, "the document scope sees the cut too")
        #expect(try c.send("POST", "/documents/d/undo", token: a.token).status == 200)
        expected["cut"] = true
        expected["copy"] = true
        expected["delete"] = true
        expected["undo"] = false
        expected["redo"] = true
        #expect(try actions(a.token) == expected)
        // Editing disabled: copy and selecting stay, changes go.
        #expect(try c.asOwner(owner, "PATCH", "/documents/d", json: #"{"editingDisabled":true}"#).status == 200)
        var disabled = expected
        disabled["cut"] = false
        disabled["paste"] = false
        disabled["delete"] = false
        disabled["redo"] = false
        #expect(try actions(a.token) == disabled)
        #expect(try c.send("POST", "/documents/d/cut", token: a.token).status == 403)
        #expect(try c.send("POST", "/documents/d/copy", token: a.token).status == 200)
        #expect(try c.asOwner(owner, "PATCH", "/documents/d", json: #"{"editingDisabled":false}"#).status == 200)
        // Secure.
        #expect(try c.asOwner(owner, "PATCH", "/documents/d", json: #"{"secure":true}"#).status == 200)
        var secure = expected
        secure["cut"] = false
        secure["copy"] = false
        #expect(try actions(a.token) == secure)
        // No text: nothing to select.
        try c.document("e", text: "")
        let empty = try c.send("GET", "/documents/e/actions", token: a.token)
        #expect(empty["select"] == false)
        #expect(empty["selectAll"] == false)
    }
}
