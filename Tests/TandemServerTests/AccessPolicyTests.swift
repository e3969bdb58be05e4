import Testing
@testable import TandemServer

/// The table of docs/API.md, "Access", cell by cell: mode × role × permission, with and
/// without a session.
@Suite struct AccessPolicyTests {
    typealias Decision = AccessPolicy.Decision
    static let ok = Decision.allowed
    static let hidden = Decision.hidden
    static let readOnly = Decision.refused(AccessPolicy.readOnly)
    static let notEditor = Decision.refused(AccessPolicy.notEditor)
    static let notOwner = Decision.refused(AccessPolicy.notOwner)

    /// (mode, role, has a session) → [read, edit, ownHistory, othersWork, owner]
    static let table: [(AccessMode, Role?, Bool, [Decision])] = [
        (.open, nil, false, [ok, ok, ok, ok, notOwner]),
        (.open, nil, true, [ok, ok, ok, ok, notOwner]),
        (.open, .viewer, true, [ok, ok, ok, ok, notOwner]),
        (.open, .owner, false, [ok, ok, ok, ok, ok]),
        (.editable, nil, false, [ok, readOnly, ok, notEditor, notOwner]),
        (.editable, nil, true, [ok, ok, ok, notEditor, notOwner]),
        (.editable, .viewer, false, [ok, readOnly, ok, notEditor, notOwner]),
        (.editable, .editor, false, [ok, ok, ok, ok, notOwner]),
        (.editable, .owner, true, [ok, ok, ok, ok, ok]),
        (.locked, nil, false, [ok, readOnly, ok, notEditor, notOwner]),
        (.locked, nil, true, [ok, readOnly, ok, notEditor, notOwner]),
        (.locked, .viewer, true, [ok, readOnly, ok, notEditor, notOwner]),
        (.locked, .editor, true, [ok, ok, ok, ok, notOwner]),
        (.locked, .owner, false, [ok, ok, ok, ok, ok]),
        (.private, nil, false, [hidden, hidden, hidden, hidden, hidden]),
        (.private, nil, true, [hidden, hidden, hidden, hidden, hidden]),
        (.private, .viewer, true, [ok, readOnly, ok, notEditor, notOwner]),
        (.private, .editor, false, [ok, ok, ok, ok, notOwner]),
        (.private, .owner, true, [ok, ok, ok, ok, ok]),
    ]

    @Test func everyCellOfTheTableIsDecidedAsTheContractSays() {
        let permissions: [Permission] = [.read, .edit, .ownHistory, .othersWork, .owner]
        for (mode, role, hasSession, expected) in Self.table {
            for (permission, want) in zip(permissions, expected) {
                let got = AccessPolicy.decide(permission, mode: mode, role: role, hasSession: hasSession)
                #expect(got == want, "\(mode) \(role?.name ?? "none") session=\(hasSession) \(permission)")
            }
        }
    }

    @Test func aRoleIsTheHighestTheCallersCredentialsGive() {
        var rules = AccessRules(access: .locked, owner: "s_owner")
        rules.members["s_viewer"] = .viewer
        rules.members["s_editor"] = .editor
        func session(_ id: String) -> Session { Session(id: id, name: id, color: "#000", created: 0, lastSeen: 0, tokenHash: []) }
        #expect(rules.role(of: Caller(session: session("s_owner")), in: "d") == .owner)
        #expect(rules.role(of: Caller(session: session("s_editor")), in: "d") == .editor)
        #expect(rules.role(of: Caller(session: session("s_other")), in: "d") == nil)
        let editorLink = Caller.PresentedLink(documentID: "d", linkID: "l_1", role: .editor)
        #expect(rules.role(of: Caller(session: session("s_viewer"), link: editorLink), in: "d") == .editor)
        #expect(rules.role(of: Caller(session: session("s_editor"), link: .init(documentID: "d", linkID: "l_2", role: .viewer)), in: "d") == .editor)
        // Another document's link grants nothing here.
        #expect(rules.role(of: Caller(link: .init(documentID: "other", linkID: "l_3", role: .owner)), in: "d") == nil)
        #expect(rules.role(of: Caller(isOperator: true), in: "d") == .owner)
    }

    @Test func aLinkTokenReadsBackAsItsIdAndHashAndNothingElseParses() throws {
        let (link, token) = ShareLink.make(role: .viewer, now: 100, expiresIn: 10)
        let parsed = try #require(ShareLink.parse(token))
        #expect(parsed.id == link.id && parsed.hash == link.tokenHash)
        #expect(link.isValid(at: 109) && !link.isValid(at: 110))
        for bad in ["", "l_", "l_x.", "s_abc.def", "l_abc", "l_abc.!!!!", token + "x"] {
            #expect(ShareLink.parse(bad) == nil || ShareLink.parse(bad)?.hash != link.tokenHash, "\(bad)")
        }
    }

    @Test func accessRulesSurviveTheStoredMetadata() {
        var rules = AccessRules(access: .private, owner: "s_a")
        rules.members["s_b"] = .editor
        let (link, _) = ShareLink.make(role: .viewer, now: 5, expiresIn: nil)
        var revoked = link
        revoked.revoked = true
        rules.links = [revoked]
        let metadata = DocumentMetadata(editingDisabled: true, secure: false, levelsOfUndo: 3, access: rules)
        #expect(DocumentMetadata(decoding: metadata.encoded) == metadata)
        // Stored before access modes existed: open, no owner.
        #expect(DocumentMetadata(decoding: Array(#"{"editingDisabled":false,"secure":true,"levelsOfUndo":0}"#.utf8)).access == AccessRules(access: .open, owner: nil))
    }
}
