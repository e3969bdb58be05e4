import Testing
import TandemCore

@Suite struct PasteboardTypeTests {
    @Test(arguments: [
        ("text/plain", "public.utf8-plain-text"), ("text/plain; charset=utf-8", "public.utf8-plain-text"),
        ("TEXT/HTML", "public.html"), ("image/png", "public.png"), ("image/jpeg", "public.jpeg"), ("image/jpg", "public.jpeg"),
        ("application/json", "public.json"), ("text/uri-list", "public.url"), ("text/rtf", "public.rtf"),
        ("application/rtf", "public.rtf"), ("application/x-thing", "application/x-thing"),
        ("public.png", "public.png"), ("com.example.my-type", "com.example.my-type"),
    ])
    func mapsMIMETypesToUTIs(_ given: String, _ identifier: String) {
        #expect(PasteboardType.identifier(for: given) == identifier)
    }

    @Test(arguments: ["", "a b", "text/", "/plain", "a/b/c", "public..png", ".png", "t\u{E9}xt", String(repeating: "a", count: 129)])
    func rejectsWhatIsNoType(_ given: String) {
        #expect(PasteboardType.identifier(for: given) == nil)
    }

    @Test func mapsBackToMIMETypesAndKnowsText() {
        #expect(PasteboardType.mimeType(for: "public.utf8-plain-text") == "text/plain")
        #expect(PasteboardType.mimeType(for: "public.plain-text") == "text/plain")
        #expect(PasteboardType.mimeType(for: "public.png") == "image/png")
        #expect(PasteboardType.mimeType(for: "application/x-thing") == "application/x-thing")
        #expect(PasteboardType.mimeType(for: "com.example.unknown") == "application/octet-stream")
        #expect(PasteboardType.isText("public.html"))
        #expect(PasteboardType.isText("text/x-custom"))
        #expect(PasteboardType.isText("application/vnd.x+json"))
        #expect(!PasteboardType.isText("public.png"))
        #expect(!PasteboardType.isText("com.example.unknown"))
        // Every table entry maps both ways.
        for t in ["public.utf8-plain-text", "public.html", "public.png", "public.jpeg", "public.json", "public.url", "public.rtf"] {
            #expect(PasteboardType.identifier(for: PasteboardType.mimeType(for: t)) == t)
        }
    }
}

@Suite struct PasteboardModelTests {
    let limits = PasteboardLimits(maxRepresentationBytes: 10, maxItems: 2, maxRepresentationsPerItem: 2, maxTotalBytes: 15)

    func item(_ reps: (String, String)...) -> PasteboardItem {
        PasteboardItem(reps.map { PasteboardRepresentation(type: $0.0, string: $0.1) })
    }

    /// Bytes that are not UTF-8 never go out labelled as something a client reads as text
    /// (schemathesis found form data served as it was written).
    @Test(arguments: ["public.utf8-plain-text", "public.json", "public.xml", "application/x-www-form-urlencoded",
                      "text/javascript", "application/ld+json", "text/csv", "application/yaml", "application/x-yaml", "application/apply-patch+yaml"])
    func bytesThatAreNotUTF8AreServedAsOctetStreamUnderEveryTextualType(_ given: String) throws {
        let type = try #require(PasteboardType.identifier(for: given))
        #expect(PasteboardType.servedMIMEType(for: type, data: [0xEB]) == "application/octet-stream")
        #expect(PasteboardType.servedMIMEType(for: type, data: Array("ok".utf8)) != "application/octet-stream")
    }

    @Test func writesBumpTheChangeCountAndKeepOrder() throws {
        var p = Pasteboard(name: "p", owner: "s", persistent: false)
        try p.setItems([item(("public.html", "<b>"), ("public.utf8-plain-text", "b"))], limits: limits)
        #expect(p.changeCount == 1)
        try p.addItems([item(("public.png", "x"))], limits: limits)
        #expect(p.changeCount == 2)
        #expect(p.types == ["public.html", "public.utf8-plain-text", "public.png"])
        #expect(p.string == "b")
        #expect(p.hasStrings)
        try p.setString("new", limits: limits)
        #expect(p.changeCount == 3)
        #expect(p.items == [item(("public.utf8-plain-text", "new"))])
    }

    @Test func refusedWritesChangeNothing() throws {
        var p = Pasteboard(name: "p", owner: nil, persistent: true)
        try p.setItems([item(("public.png", "12345678"))], limits: limits)
        let before = p
        #expect(throws: PasteboardError.self) { try p.setItems([item(("public.png", "12345678901"))], limits: limits) }
        #expect(throws: PasteboardError.self) { try p.addItems([item(("public.png", "1")), item(("public.png", "2"))], limits: limits) }
        #expect(throws: PasteboardError.self) { try p.setItems([item(("a.a", "1"), ("a.b", "2"), ("a.c", "3"))], limits: limits) }
        #expect(throws: PasteboardError.self) { try p.addItems([item(("public.png", "12345678"))], limits: limits) }
        #expect(throws: PasteboardError.emptyItem(index: 0)) { try p.setItems([PasteboardItem([])], limits: limits) }
        #expect(throws: PasteboardError.duplicateType("a.a", index: 1)) { try p.addItems([item(("a.a", "1"), ("a.a", "2"))], limits: limits) }
        #expect(throws: PasteboardError.invalidType("text/plain; x")) { try p.setItems([item(("text/plain; x", "1"))], limits: limits) }
        #expect(p == before)
    }

    @Test func changesListTypesAddedAndRemoved() {
        let c = Pasteboard.change(from: ["a", "b", "c"], to: ["c", "d"])
        #expect(c.typesAdded == ["d"])
        #expect(c.typesRemoved == ["a", "b"])
    }

    @Test func pasteTakesOnlyTheFirstItemsPlainText() throws {
        var p = Pasteboard.general(of: "s1")
        try p.setItems([item(("public.png", "x")), item(("public.utf8-plain-text", "t"))], limits: PasteboardLimits())
        #expect(p.string == nil)
        #expect(!p.hasStrings)
        try p.setItems([item(("public.plain-text", "plain"))], limits: PasteboardLimits())
        #expect(p.string == "plain")
    }
}

@Suite struct WordRangeTests {
    @Test(arguments: [
        ("hello world", 0, 0..<5), ("hello world", 3, 0..<5), ("hello world", 5, 0..<5), ("hello world", 6, 6..<11),
        ("a_b1 c", 2, 0..<4), ("x, y", 2, nil), ("", 0, nil), ("caf\u{E9}s", 4, 0..<5),
        ("\u{1F600}ab", 2, 2..<4), ("ab\u{1F600}", 2, 0..<2),
    ] as [(String, Int, Range<Int>?)])
    func findsTheWordTouchingThePosition(_ text: String, _ position: Int, _ expected: Range<Int>?) {
        #expect(WordRange.around(position, in: Substring(text)) == expected)
    }

    @Test func documentLooksOnlyWithinReach() {
        let doc = Document(text: String(repeating: "a", count: 50) + " tail")
        #expect(doc.wordRange(around: 10) == 0..<50)
        #expect(doc.wordRange(around: 40, reach: 5) == 35..<45)
        #expect(doc.wordRange(around: 52) == 51..<55)
        #expect(doc.wordRange(around: 99) == nil)
    }
}
