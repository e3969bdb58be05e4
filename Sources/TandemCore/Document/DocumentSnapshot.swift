/// Everything a document is, as one Codable value: the text, the retained change log and
/// the whole undo state (groups, stacks, mapped inverses, open groups, typing runs).
/// Selections are not included: they belong to live sessions.
public struct DocumentSnapshot: Sendable, Codable {
    public var text: String
    public var revision: Int
    public var changeCount: Int
    public var isEditingDisabled: Bool
    var log: ChangeLog.State
    var undo: UndoState
}

struct UndoState: Sendable, Codable {
    struct Mapped: Sendable, Codable {
        var group: Int32
        var inverse: OperationCoding
        var validAt: Int
        var below: OperationCoding?
    }

    var groups: [UndoGroup]
    var chains: [UndoChain]
    var names: [String]
    var mapped: [Mapped]
    var documentLevels: Int
    var registrationDisabled: Int
    var liveUndoCount: Int
    var groupsByEvent: Bool
}

extension Document {
    public func snapshot() -> DocumentSnapshot {
        let um = undoManager
        let mapped = um.mapped.sorted { $0.key < $1.key }.map {
            UndoState.Mapped(group: $0.key, inverse: OperationCoding($0.value.inverse), validAt: $0.value.validAt,
                             below: $0.value.below.map(OperationCoding.init))
        }
        return DocumentSnapshot(
            text: text, revision: revision, changeCount: changeCount, isEditingDisabled: isEditingDisabled,
            log: log.s,
            undo: UndoState(groups: um.groups, chains: um.chains, names: um.names, mapped: mapped,
                            documentLevels: um.documentLevels, registrationDisabled: um.registrationDisabled,
                            liveUndoCount: um.liveUndoCount, groupsByEvent: um.groupsByEvent))
    }

    /// Rebuilds a document from a snapshot; `configuration.levelsOfUndo` is ignored in
    /// favour of the snapshot's.
    public convenience init(snapshot: DocumentSnapshot, configuration: Configuration = .init()) throws(DocumentError) {
        self.init(text: snapshot.text, configuration: configuration)
        log.s = snapshot.log
        let um = undoManager
        um.groups = snapshot.undo.groups
        um.chains = snapshot.undo.chains
        um.chainIndex = [:]
        for (i, chain) in um.chains.enumerated() { if let s = chain.session { um.chainIndex[s] = i } }
        um.names = snapshot.undo.names
        um.nameIndex = [:]
        for (i, name) in um.names.enumerated() { um.nameIndex[name] = Int32(i) }
        um.mapped = [:]
        for m in snapshot.undo.mapped {
            do {
                um.mapped[m.group] = MappedInverse(inverse: try m.inverse.operation(), validAt: m.validAt,
                                                   below: try m.below?.operation())
            } catch { throw .invalidOperation(error) }
        }
        um.documentLevels = snapshot.undo.documentLevels
        um.registrationDisabled = snapshot.undo.registrationDisabled
        um.liveUndoCount = snapshot.undo.liveUndoCount
        um.groupsByEvent = snapshot.undo.groupsByEvent
        changeCount = snapshot.changeCount
        isEditingDisabled = snapshot.isEditingDisabled
        guard log.revision == snapshot.revision, log.length(at: log.revision) == length else {
            throw .invalidOperation(.lengthMismatch(expected: log.length(at: log.revision), actual: length))
        }
    }
}
