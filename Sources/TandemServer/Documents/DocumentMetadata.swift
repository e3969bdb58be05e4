/// The document settings kept beside its title in the store, as a small JSON object: its
/// flags, its undo depth and its access rules. Documents stored before access modes existed
/// read back as `open` with no owner, as they behaved.
struct DocumentMetadata: Equatable {
    var editingDisabled = false
    var secure = false
    var levelsOfUndo = 0
    var access = AccessRules(access: .open, owner: nil)

    init(editingDisabled: Bool = false, secure: Bool = false, levelsOfUndo: Int = 0,
         access: AccessRules = AccessRules(access: .open, owner: nil)) {
        self.editingDisabled = editingDisabled
        self.secure = secure
        self.levelsOfUndo = levelsOfUndo
        self.access = access
    }

    init(_ st: DocumentState, levelsOfUndo: Int? = nil) {
        editingDisabled = st.editingDisabled
        secure = st.secure
        self.levelsOfUndo = levelsOfUndo ?? st.document.undoManager.levelsOfUndo
        access = st.access
    }

    init(decoding bytes: [UInt8]) {
        guard !bytes.isEmpty, let v = try? JSONParser.parse(bytes) else { return }
        editingDisabled = v["editingDisabled"]?.boolValue ?? false
        secure = v["secure"]?.boolValue ?? false
        levelsOfUndo = v["levelsOfUndo"]?.intValue ?? 0
        access.access = v["access"]?.stringValue.flatMap(AccessMode.init(rawValue:)) ?? .open
        access.owner = v["owner"]?.stringValue
        if case .object(let members)? = v["members"] {
            for (session, role) in members {
                if let role = role.stringValue.flatMap(Role.init(name:)) { access.members[session] = role }
            }
        }
        if case .array(let links)? = v["links"] {
            access.links = links.compactMap { l in
                guard let id = l["id"]?.stringValue, let hash = l["hash"]?.stringValue.flatMap({ SessionRegistry.base64urlDecode($0) }),
                      let role = l["role"]?.stringValue.flatMap(Role.init(name:)), let created = l["created"]?.numberValue
                else { return nil }
                return ShareLink(id: id, tokenHash: hash, role: role, created: created, expires: l["expires"]?.numberValue,
                                 revoked: l["revoked"]?.boolValue ?? false)
            }
        }
    }

    var encoded: [UInt8] {
        var w = JSONWriter(capacity: 128 + 160 * access.links.count + 48 * access.members.count)
        w.beginObject()
        w.key("editingDisabled"); w.bool(editingDisabled)
        w.key("secure"); w.bool(secure)
        w.key("levelsOfUndo"); w.int(levelsOfUndo)
        w.key("access"); w.string(access.access.rawValue)
        w.key("owner"); w.optionalString(access.owner)
        w.key("members"); w.beginObject()
        for (session, role) in access.members.sorted(by: { $0.key < $1.key }) { w.key(escaping: session); w.string(role.name) }
        w.endObject()
        w.key("links"); w.beginArray()
        for link in access.links {
            w.beginObject()
            w.key("id"); w.string(link.id)
            w.key("hash"); w.string(Secrets.base64url(link.tokenHash))
            w.key("role"); w.string(link.role.name)
            w.key("created"); w.double(link.created)
            if let expires = link.expires { w.key("expires"); w.double(expires) }
            w.key("revoked"); w.bool(link.revoked)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
