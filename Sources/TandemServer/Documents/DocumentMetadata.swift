/// The document settings kept beside its title in the store, as a small JSON object.
struct DocumentMetadata: Equatable {
    var editingDisabled = false
    var secure = false
    var levelsOfUndo = 0

    init(editingDisabled: Bool = false, secure: Bool = false, levelsOfUndo: Int = 0) {
        self.editingDisabled = editingDisabled
        self.secure = secure
        self.levelsOfUndo = levelsOfUndo
    }

    init(_ st: DocumentState, levelsOfUndo: Int? = nil) {
        editingDisabled = st.editingDisabled
        secure = st.secure
        self.levelsOfUndo = levelsOfUndo ?? st.document.undoManager.levelsOfUndo
    }

    init(decoding bytes: [UInt8]) {
        guard !bytes.isEmpty, let v = try? JSONParser.parse(bytes) else { return }
        editingDisabled = v["editingDisabled"]?.boolValue ?? false
        secure = v["secure"]?.boolValue ?? false
        levelsOfUndo = v["levelsOfUndo"]?.intValue ?? 0
    }

    var encoded: [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("editingDisabled"); w.bool(editingDisabled)
        w.key("secure"); w.bool(secure)
        w.key("levelsOfUndo"); w.int(levelsOfUndo)
        w.endObject()
        return w.bytes
    }
}
