import Foundation
import Testing
import TandemCore
@testable import TandemServer

@Suite struct PasteboardRoutesTests {
    @Test func copyInOneDocumentPastesInAnotherAndNotForSomeoneElse() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A"), b = try c.session("B")
        try c.document("one", text: "copy these words")
        try c.document("two", text: "into []")
        try c.select("one", 5, 10, token: a.token)
        let copied = try c.send("POST", "/documents/one/copy", token: a.token)
        #expect(copied.status == 200)
        #expect(copied["pasteboard"] == "general")
        #expect(copied["changeCount"] == 1)
        try c.select("two", 6, 6, token: b.token)
        let nothing = try c.send("POST", "/documents/two/paste", token: b.token)
        #expect(nothing.status == 409)
        #expect(nothing["error"]?["code"] == "nothing_to_paste")
        try c.select("two", 6, 6, token: a.token)
        let pasted = try c.send("POST", "/documents/two/paste", token: a.token)
        #expect(pasted.status == 200, "\(pasted.text)")
        #expect(pasted["actionName"] == "Paste")
        #expect(pasted["selection"] == ["anchor": 11, "head": 11])
        #expect(try c.text("two") == "into [these]")
        #expect(try c.text("one") == "copy these words")
    }

    @Test func itemsWithSeveralRepresentationsComeBackByteForByte() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = try server.client.person("P")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0xFE, 0x80, 0x7F, 0x00]
        let html = "<p>caf\u{E9} <b>\u{1F600}</b> \"q\"</p>"
        let body = """
        {"items":[[{"type":"text/plain","string":"caf\u{E9} \u{1F600}"},{"type":"public.html","string":\(jsonString(html))}],
                  [{"type":"image/png","base64":"\(Data(png).base64EncodedString())"}]]}
        """
        let put = try c.send("PUT", "/pasteboards/general/items", json: body)
        #expect(put.status == 200, "\(put.text)")
        #expect(put["changeCount"] == 1)
        #expect(put["numberOfItems"] == 2)

        let got = try c.pasteboard("general")
        let items = got["items"]?.arrayValue ?? []
        #expect(items.count == 2)
        #expect(items[0] == [["type": "public.utf8-plain-text", "string": "caf\u{E9} \u{1F600}"], ["type": "public.html", "string": .string(html)]])
        let pngJSON = items[1].arrayValue?.first
        #expect(pngJSON?["type"] == "public.png")
        #expect(pngJSON?["base64"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init) == png)
        #expect(got["types"]?.strings == ["public.utf8-plain-text", "public.html", "public.png"])

        let rawHTML = try c.send("GET", "/pasteboards/general/items/0?type=text/html")
        #expect(rawHTML.status == 200)
        #expect(rawHTML.headers["content-type"] == "text/html; charset=utf-8")
        #expect(rawHTML.body == Array(html.utf8))
        let rawFirst = try c.send("GET", "/pasteboards/general/items/0")
        #expect(rawFirst.headers["x-pasteboard-type"] == "public.utf8-plain-text")
        #expect(rawFirst.text == "caf\u{E9} \u{1F600}")
        let rawPNG = try c.send("GET", "/pasteboards/general/items/1?type=public.png")
        #expect(rawPNG.headers["content-type"] == "image/png")
        #expect(rawPNG.body == png)
        #expect(try c.send("GET", "/pasteboards/general/items/2").status == 404)
        #expect(try c.send("GET", "/pasteboards/general/items/1?type=public.html").status == 404)
        #expect(try c.send("GET", "/pasteboards/general/items/x").status == 400)

        // A raw body of an unknown MIME type keeps that type as its identifier.
        let odd: [UInt8] = [0, 1, 2, 250]
        let added = try c.send("POST", "/pasteboards/general/items", body: odd, contentType: "application/x-tandem-test")
        #expect(added.status == 200)
        #expect(added["changeCount"] == 2)
        #expect(added["numberOfItems"] == 3)
        let rawOdd = try c.send("GET", "/pasteboards/general/items/2")
        #expect(rawOdd.headers["content-type"] == "application/x-tandem-test")
        #expect(rawOdd.body == odd)

        // A raw PUT replaces everything with one item; ?type= puts JSON as data.
        let replaced = try c.send("PUT", "/pasteboards/general/items?type=public.json", json: #"{"a":1}"#)
        #expect(replaced["changeCount"] == 3)
        #expect(replaced["types"]?.strings == ["public.json"])
        #expect(try c.pasteboard("general")["items"] == [[["type": "public.json", "string": #"{"a":1}"#]]])
    }

    @Test func namesAreUniqueAndCreationNeedsASession() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A")
        let one = try c.send("POST", "/pasteboards", token: a.token)
        let two = try c.send("POST", "/pasteboards", token: a.token)
        #expect(one.status == 201 && two.status == 201)
        #expect(one["name"] != two["name"])
        #expect(one["owner"] == .string(a.id))
        #expect(one["persistent"] == false)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"notes"}"#).status == 201)
        let taken = try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"notes"}"#)
        #expect(taken.status == 409)
        #expect(taken["error"]?["code"] == "name_taken")
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"general"}"#).status == 400)
        #expect(try c.send("POST", "/pasteboards", json: #"{"name":"x"}"#).status == 401)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"a b"}"#).status == 400)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"events"}"#).status == 400)
        let list = try c.send("GET", "/pasteboards", token: a.token).json.arrayValue ?? []
        #expect(list.compactMap { $0["name"]?.stringValue }.sorted() == ([one["name"], two["name"]].compactMap { $0?.stringValue } + ["general", "notes"]).sorted())
        #expect(try c.pasteboard("nope").status == 404)
    }

    @Test func onlyTheOwnerChangesOrRemovesAPasteboard() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A"), b = try c.session("B")
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"mine","shared":"everyone"}"#).status == 201)
        // Shared with everyone: anyone may write its items, as with UIPasteboard(name:).
        #expect(try c.send("PUT", "/pasteboards/mine/items", token: b.token, body: Array("hi".utf8), contentType: "text/plain").status == 200)
        let patch = try c.send("PATCH", "/pasteboards/mine", token: b.token, json: #"{"persistent":true}"#)
        #expect(patch.status == 403)
        #expect(patch["error"]?["code"] == "not_owner")
        #expect(try c.send("DELETE", "/pasteboards/mine", token: b.token).status == 403)
        #expect(try c.send("DELETE", "/pasteboards/mine").status == 401)
        #expect(try c.pasteboard("mine")["persistent"] == false)
        let ok = try c.send("PATCH", "/pasteboards/mine", token: a.token, json: #"{"persistent":true}"#)
        #expect(ok.status == 200)
        #expect(ok["persistent"] == true)
        #expect(try c.send("DELETE", "/pasteboards/general", token: a.token).status == 403)
        #expect(try c.send("PATCH", "/pasteboards/general", token: a.token, json: #"{"persistent":false}"#).status == 403)
        #expect(try c.send("DELETE", "/pasteboards/mine", token: a.token).status == 204)
        #expect(try c.pasteboard("mine").status == 404)
        #expect(try c.send("GET", "/pasteboards/general", token: a.token).status == 200)
    }

    /// A guest session is a person of its own: when it ends nobody can read its private
    /// pasteboards any more, so they go, persistent or not, its general too; one it shared
    /// with everyone stays, nobody's, and survives a restart.
    @Test func endingAGuestSessionRemovesItsPrivatePasteboardsAndSharedOnesSurviveARestart() throws {
        let first = try TestServer()
        let dir = first.directory
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var c = first.client
        let a = try c.session("A"), b = try c.session("B")
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"temp"}"#).status == 201)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"keep","persistent":true}"#).status == 201)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"team","persistent":true,"shared":"everyone"}"#).status == 201)
        #expect(try c.send("PUT", "/pasteboards/team/items", token: b.token, json: #"[[{"type":"text/plain","string":"kept"},{"type":"image/png","base64":"AAEC"}]]"#).status == 200)
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: Array("mine".utf8), contentType: "text/plain").status == 200)
        #expect(try c.send("DELETE", "/sessions/me", token: a.token).status == 204)
        for name in ["temp", "keep"] { #expect(try c.send("GET", "/pasteboards/\(name)", token: b.token).status == 404) }
        let team = try c.send("GET", "/pasteboards/team", token: b.token)
        #expect(team.status == 200)
        #expect(team["owner"] == .null)
        #expect(team["shared"] == "everyone")
        first.stop()

        let second = try TestServer(directory: dir)
        defer { second.stop() }
        c = second.client
        let names = (try c.send("GET", "/pasteboards", token: b.token).json.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names == ["general", "team"])
        let kept = try c.send("GET", "/pasteboards/team", token: b.token)
        #expect(kept["changeCount"] == 1)
        #expect(kept["items"] == [[["type": "public.utf8-plain-text", "string": "kept"], ["type": "public.png", "base64": "AAEC"]]])
        #expect(try c.send("GET", "/pasteboards/general", token: b.token)["numberOfItems"] == 0)
        // Owned by nobody now, so any session may remove it.
        #expect(try c.send("DELETE", "/pasteboards/team", token: b.token).status == 204)
    }

    /// Everyone has a general of their own; a named pasteboard is its owner's until shared.
    @Test func generalIsEachPersonsOwnAndNamedOnesArePrivateUntilShared() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A"), b = try c.session("B")
        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, body: Array("a's".utf8), contentType: "text/plain").status == 200)
        #expect(try c.send("GET", "/pasteboards/general/items/0", token: a.token).text == "a's")
        #expect(try c.send("GET", "/pasteboards/general", token: b.token)["numberOfItems"] == 0)
        #expect(try c.send("GET", "/pasteboards/general").status == 401)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"notes"}"#).status == 201)
        for (method, path) in [("GET", "/pasteboards/notes"), ("GET", "/pasteboards/notes/items/0"), ("PUT", "/pasteboards/notes/items"),
                               ("PATCH", "/pasteboards/notes"), ("DELETE", "/pasteboards/notes")] {
            let json = method == "PATCH" ? #"{"shared":"everyone"}"# : method == "PUT" ? #"[[{"type":"text/plain","string":"x"}]]"# : nil
            #expect(try c.send(method, path, token: b.token, json: json).status == 404, "\(method) \(path)")
        }
        let listed = { (token: String) throws -> [String] in
            (try c.send("GET", "/pasteboards", token: token).json.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        }
        #expect(try listed(a.token) == ["general", "notes"])
        #expect(try listed(b.token) == ["general"])
        let shared = try c.send("PATCH", "/pasteboards/notes", token: a.token, json: #"{"shared":"everyone"}"#)
        #expect(shared.status == 200)
        #expect(shared["shared"] == "everyone")
        #expect(try listed(b.token) == ["general", "notes"])
        #expect(try c.send("PUT", "/pasteboards/notes/items", token: b.token, body: Array("b's".utf8), contentType: "text/plain").status == 200)
        #expect(try c.send("PATCH", "/pasteboards/notes", token: b.token, json: #"{"shared":"none"}"#).status == 403)
        #expect(try c.send("PATCH", "/pasteboards/notes", token: a.token, json: #"{"shared":"nobody"}"#).status == 400)
        #expect(try c.send("POST", "/pasteboards", token: b.token, json: #"{"name":"notes"}"#).status == 409)
        #expect(try c.send("POST", "/pasteboards", token: b.token, json: #"{"name":"general"}"#).status == 400)
        // Copy goes to the copier's own general.
        try c.document("doc", text: "secret words")
        try c.select("doc", 0, 6, token: b.token)
        #expect(try c.send("POST", "/documents/doc/copy", token: b.token).status == 200)
        #expect(try c.send("GET", "/pasteboards/general/items/0", token: b.token).text == "secret")
        #expect(try c.send("GET", "/pasteboards/general/items/0", token: a.token).text == "a's")
    }

    @Test func badInputChangesNothing() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = try server.client.person("P")
        #expect(try c.send("PUT", "/pasteboards/general/items", body: Array("x".utf8), contentType: "text/plain").status == 200)
        let cases: [(Reply, Int, String)] = [
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"image/png","base64":"***"}]]"#), 400, "invalid_field"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"a b","string":"x"}]]"#), 400, "invalid_type"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"text/plain","string":"x","base64":"eA=="}]]"#), 400, "invalid_field"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"text/plain"}]]"#), 400, "invalid_field"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"{"items":[[]],"x":1}"#), 400, "invalid_field"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"text/plain","string":"x"}], "#), 400, "invalid_json"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[]]"#), 422, "empty_item"),
            (try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"text/plain","string":"a"},{"type":"public.utf8-plain-text","string":"b"}]]"#), 422, "duplicate_type"),
            (try c.send("PUT", "/pasteboards/general/items", body: Array("x".utf8)), 415, "unsupported_media_type"),
            (try c.send("PUT", "/pasteboards/general/items", body: Array("x".utf8), contentType: "nonsense"), 415, "unsupported_media_type"),
            (try c.send("PUT", "/pasteboards/nope/items", body: Array("x".utf8), contentType: "text/plain"), 404, "not_found"),
        ]
        for (reply, status, code) in cases {
            #expect(reply.status == status, "\(reply.text)")
            #expect(reply["error"]?["code"] == .string(code), "\(reply.text)")
        }
        let g = try c.pasteboard("general")
        #expect(g["changeCount"] == 1)
        #expect(g["items"] == [[["type": "public.utf8-plain-text", "string": "x"]]])
    }

    @Test func limitsAnswer413AndChangeNothing() throws {
        let limits = PasteboardLimits(maxRepresentationBytes: 64, maxItems: 3, maxRepresentationsPerItem: 2, maxTotalBytes: 100)
        let server = try TestServer(limits: limits)
        defer { server.stopAndRemove() }
        var c = server.client
        let a = try c.session("A")
        c.defaultToken = a.token
        #expect(try c.send("PUT", "/pasteboards/general/items", body: [UInt8](repeating: 65, count: 64), contentType: "text/plain").status == 200)
        let tooBig = try c.send("PUT", "/pasteboards/general/items", body: [UInt8](repeating: 65, count: 65), contentType: "text/plain")
        #expect(tooBig.status == 413)
        #expect(tooBig["error"]?["code"] == "pasteboard_too_large")
        let item = #"[{"type":"text/plain","string":"x"}]"#
        #expect(try c.send("PUT", "/pasteboards/general/items", json: "[\(item),\(item),\(item),\(item)]").status == 413)
        #expect(try c.send("PUT", "/pasteboards/general/items", json: #"[[{"type":"text/plain","string":"x"},{"type":"text/html","string":"x"},{"type":"public.rtf","string":"x"}]]"#).status == 413)
        // 64 already there: 40 more goes past the 100-byte total.
        #expect(try c.send("POST", "/pasteboards/general/items", body: [UInt8](repeating: 66, count: 40), contentType: "text/plain").status == 413)
        #expect(try c.send("POST", "/pasteboards/general/items", body: [UInt8](repeating: 66, count: 36), contentType: "text/plain").status == 200)
        // Copying more text than fits is refused as a whole.
        try c.document("d", text: String(repeating: "z", count: 80))
        try c.select("d", 0, 80, token: a.token)
        #expect(try c.send("POST", "/documents/d/copy", token: a.token).status == 413)
        #expect(try c.send("POST", "/documents/d/cut", token: a.token).status == 413)
        #expect(try c.text("d") == String(repeating: "z", count: 80))
        let g = try c.pasteboard("general")
        #expect(g["changeCount"] == 2)
        #expect(g["numberOfItems"] == 2)
    }

    /// Who hears of a pasteboard is who may read it: its owner (a general only its own), and
    /// everyone for one shared with everyone, on the pasteboards' stream and document streams.
    @Test func eventsReachOnlyThoseWhoMayReadThePasteboard() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let c = server.client
        let a = try c.session("A"), b = try c.session("B")
        try c.document("doc", text: "some text")
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"a-own"}"#).status == 201)
        #expect(try c.send("POST", "/pasteboards", token: a.token, json: #"{"name":"team","shared":"everyone"}"#).status == 201)

        let boards = try EventStream(port: server.port, path: "/pasteboards/events", token: a.token)
        try boards.waitForPreamble()
        let boardsB = try EventStream(port: server.port, path: "/pasteboards/events", token: b.token)
        try boardsB.waitForPreamble()
        let docA = try EventStream(port: server.port, path: "/documents/doc/events", token: a.token)
        _ = try docA.next("presence")
        let docB = try EventStream(port: server.port, path: "/documents/doc/events", token: b.token)
        _ = try docB.next("presence")

        #expect(try c.send("PUT", "/pasteboards/general/items", token: a.token, json: #"[[{"type":"text/plain","string":"x"},{"type":"text/html","string":"<b>x</b>"}]]"#).status == 200)
        var e = try boards.next()
        #expect(e.event == "changed")
        #expect(e.json["name"] == "general")
        #expect(e.json["changeCount"] == 1)
        #expect(e.json["typesAdded"]?.strings == ["public.utf8-plain-text", "public.html"])
        #expect(e.json["typesRemoved"]?.strings == [])

        #expect(try c.send("PUT", "/pasteboards/a-own/items", token: a.token, body: [1, 2], contentType: "image/png").status == 200)
        e = try boards.next()
        #expect(e.event == "changed")
        #expect(e.json["name"] == "a-own")

        // Copy replaces general's types: plain text stays, HTML goes.
        try c.select("doc", 0, 4, token: a.token)
        #expect(try c.send("POST", "/documents/doc/copy", token: a.token).status == 200)
        e = try boards.next()
        #expect(e.json["name"] == "general")
        #expect(e.json["changeCount"] == 2)
        #expect(e.json["typesAdded"]?.strings == [])
        #expect(e.json["typesRemoved"]?.strings == ["public.html"])

        #expect(try c.send("PUT", "/pasteboards/team/items", token: b.token, body: Array("t".utf8), contentType: "text/plain").status == 200)
        e = try boards.next()
        #expect(e.json["name"] == "team")

        #expect(try c.send("DELETE", "/pasteboards/a-own", token: a.token).status == 204)
        e = try boards.next()
        #expect(e.event == "removed")
        #expect(e.json["name"] == "a-own")

        var seenByA: [String] = []
        for _ in 0..<5 {
            let p = try docA.next("pasteboard")
            seenByA.append("\(p.json["kind"]?.stringValue ?? "?") \(p.json["name"]?.stringValue ?? "?")")
        }
        #expect(seenByA == ["changed general", "changed a-own", "changed general", "changed team", "removed a-own"])
        // B's first pasteboard event, on both streams, is the team pasteboard's: nothing of A's came.
        let p = try docB.next("pasteboard")
        #expect("\(p.json["kind"]?.stringValue ?? "?") \(p.json["name"]?.stringValue ?? "?")" == "changed team")
        #expect(try boardsB.next().json["name"] == "team")
    }
}

func jsonString(_ s: String) -> String {
    var w = JSONWriter()
    w.string(s)
    return String(decoding: w.bytes, as: UTF8.self)
}

@Suite struct PasteboardOpenAPITests {
    @Test func everyNewEndpointIsDescribedAndEveryReferenceResolves() throws {
        let server = try TestServer()
        defer { server.stopAndRemove() }
        let doc = try server.client.send("GET", "/openapi.json").json
        guard case .object(let paths)? = doc["paths"] else { Issue.record("no paths"); return }
        let described = Set(paths.flatMap { path, ops in (ops.objectKeys ?? []).map { "\($0.uppercased()) \(path)" } })
        var expected: Set<String> = [
            "GET /pasteboards", "POST /pasteboards", "GET /pasteboards/events", "GET /pasteboards/{name}",
            "PATCH /pasteboards/{name}", "DELETE /pasteboards/{name}", "PUT /pasteboards/{name}/items",
            "POST /pasteboards/{name}/items", "GET /pasteboards/{name}/items/{index}", "GET /documents/{id}/actions",
        ]
        for a in ["cut", "copy", "paste", "delete", "select", "selectAll"] { expected.insert("POST /documents/{id}/\(a)") }
        #expect(expected.subtracting(described).isEmpty, "missing: \(expected.subtracting(described))")
        let components = Set(doc["components"]?["schemas"]?.objectKeys ?? [])
        var refs: [String] = []
        func walk(_ v: JSONValue) {
            switch v {
            case .object(let members):
                for (k, m) in members {
                    if k == "$ref", let r = m.stringValue { refs.append(r) } else { walk(m) }
                }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(doc)
        let prefix = "#/components/schemas/"
        for r in refs {
            #expect(r.hasPrefix(prefix) && components.contains(String(r.dropFirst(prefix.count))), "unresolved \(r)")
        }
        for name in ["Pasteboard", "PasteboardSummary", "PasteboardItems", "Representation", "PasteboardEvent", "Actions", "ActionResult", "CopyResult", "SelectResult"] {
            #expect(components.contains(name))
        }
    }
}
