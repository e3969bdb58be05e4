import TandemCore
import TandemHTTP
import TandemStore

/// Who wrote what, and what changed (docs/API.md, "Authorship and diffs"): the authors of a
/// document's text now or at an earlier revision still in the log, and the changes between two
/// saved versions (or a version and now).
///
/// An author is a person: the user a session belongs to, else the session itself, so one
/// person in several tabs is one author.
final class AuthorshipController: RouteController {
    let service: DocumentService
    let sessions: SessionRegistry

    init(_ context: ServerContext) {
        service = context.service
        sessions = context.sessions
    }

    /// `GET …/authorship[?revision=n | ?version=n]`.
    func authorship(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        res.respond { () throws(APIError) in
            let handle = try ctx.requestedDocument()
            let revision = try Self.number(req.queryValue("revision"), "revision", "must be a revision")
            let number = try Self.number(req.queryValue("version"), "version", "must be a version number")
            if revision != nil, number != nil { throw .invalidField("version", "ask for a revision or a version, not both") }
            var version = try number.map { n throws(APIError) in try service.version(n, of: handle) }
            let logged = handle.executor.sync { st -> Result<(Int, [Authorship.Run]), DocumentError> in
                let at = version?.revision ?? revision
                do throws(DocumentError) {
                    return .success((at ?? st.document.revision, try st.document.authors(atRevision: at)))
                } catch {
                    return .failure(error)
                }
            }
            switch logged {
            case .success(let (at, runs)):
                return .json(authorshipJSON(revision: at, version: version?.number, runs: runs))
            case .failure(let error):
                guard case .revisionTrimmed = error else { throw APIError.document(error) }
                // Past the log, a saved version answers with the authors stored with it: the one
                // asked for, or the newest saved at that revision (this runs on the pool:
                // `HeavyWorkMiddleware.historyIsHeavy`).
                if version == nil, let revision,
                   let saved = try service.versions(of: handle).last(where: { $0.revision == revision }) {
                    version = try service.version(saved.number, of: handle)
                }
                guard let version else {
                    throw APIError(.gone, "revision_trimmed", "\(error), and no saved version has it")
                }
                return .json(authorshipJSON(revision: version.revision, version: version.number, runs: Self.storedAuthors(of: version)))
            }
        }
    }

    /// `GET …/versions/{n}/diff?to=m|current`.
    func diff(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        res.respond { () throws(APIError) in
            let handle = try ctx.requestedDocument()
            guard let raw = req.parameters["n"], let n = Int(raw), n >= 0 else { throw .invalidField("n", "must be a version number") }
            let from = try service.version(n, of: handle)
            let toRaw = req.queryValue("to") ?? "current"
            var to: StoredVersion?
            if toRaw != "current" {
                guard let m = Int(toRaw), m >= 0 else { throw .invalidField("to", "must be a version number or 'current'") }
                to = try service.version(m, of: handle)
            }
            let a = Array(from.text.utf16)
            let found = handle.executor.sync { st -> Found in
                let doc = st.document
                let toRevision = to?.revision ?? doc.revision
                let b = to.map { Array($0.text.utf16) } ?? Array(doc.rope.description.utf16)
                // By identity while the log covers both revisions, else by the texts, outside
                // the document's lock.
                if let units = try? doc.unitRuns(atRevisions: [from.revision, toRevision]),
                   let changes = TextChanges.between((a, units[0]), (b, units[1]), authorship: doc.authorship) {
                    return .log(changes, toRevision: toRevision)
                }
                return .text(b, toRevision: toRevision, authorsOfA: try? doc.authors(atRevision: from.revision),
                             authorsOfB: to == nil ? try? doc.authors() : try? doc.authors(atRevision: toRevision))
            }
            switch found {
            case .log(let changes, let toRevision):
                return .json(diffJSON(changes, from: from, to: to, toRevision: toRevision))
            case .text(let b, let toRevision, let authorsOfA, let authorsOfB):
                // Authors past the log are the ones stored with each version.
                let changes = TextChanges.lines(from: a, to: b)
                    .attributed(from: a, to: b, authorsOfA: authorsOfA ?? from.authorship.flatMap(Authorship.Run.decode),
                                authorsOfB: authorsOfB ?? to?.authorship.flatMap(Authorship.Run.decode))
                return .json(diffJSON(changes, from: from, to: to, toRevision: toRevision))
            }
        }
    }

    /// What the diff found under the document's lock.
    private enum Found {
        case log(TextChanges, toRevision: Int)
        /// The later text, for a diff by text, and each side's authors where the log knows them.
        case text([UInt16], toRevision: Int, authorsOfA: [Authorship.Run]?, authorsOfB: [Authorship.Run]?)
    }

    /// The authors stored with a version; one run of unknown author for a version stored
    /// before authors were (or whose runs do not fit its text).
    static func storedAuthors(of version: StoredVersion) -> [Authorship.Run] {
        let length = version.text.utf16.count
        if let runs = version.authorship.flatMap(Authorship.Run.decode), (runs.last?.to ?? 0) == length { return runs }
        return length == 0 ? [] : [Authorship.Run(from: 0, to: length, author: nil)]
    }

    static func number(_ raw: String?, _ field: String, _ message: String) throws(APIError) -> Int? {
        guard let raw else { return nil }
        guard let n = Int(raw), n >= 0 else { throw .invalidField(field, message) }
        return n
    }

    // MARK: Answers

    private func authorshipJSON(revision: Int, version: Int?, runs: [Authorship.Run]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 48 * runs.count)
        var people = People(registry: sessions)
        w.beginObject()
        w.key("revision"); w.int(revision)
        w.key("version"); if let version { w.int(version) } else { w.null() }
        // Runs by person: two sessions of one person side by side are one run.
        var merged: [Authorship.Run] = []
        for run in runs {
            let author = people.note(run.author)
            if let last = merged.last, last.author == author, last.to == run.from {
                merged[merged.count - 1].to = run.to
            } else {
                merged.append(Authorship.Run(from: run.from, to: run.to, author: author))
            }
        }
        w.key("runs"); w.beginArray()
        for run in merged {
            w.beginObject()
            w.key("from"); w.int(run.from)
            w.key("to"); w.int(run.to)
            w.key("author"); w.optionalString(run.author)
            w.endObject()
        }
        w.endArray()
        w.key("authors"); people.write(to: &w)
        w.endObject()
        return w.bytes
    }

    private func diffJSON(_ changes: TextChanges, from: StoredVersion, to: StoredVersion?, toRevision: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + changes.stretches.reduce(0) { $0 + 64 + $1.text.utf8.count })
        var people = People(registry: sessions)
        w.beginObject()
        w.key("from"); w.beginObject()
        w.key("version"); w.int(from.number); w.key("revision"); w.int(from.revision)
        w.endObject()
        w.key("to"); w.beginObject()
        w.key("version"); if let to { w.int(to.number) } else { w.string("current") }
        w.key("revision"); w.int(toRevision)
        w.endObject()
        w.key("method"); w.string(changes.byIdentity ? "log" : "text")
        w.key("inserted"); w.int(changes.inserted)
        w.key("deleted"); w.int(changes.deleted)
        w.key("changes"); w.beginArray()
        for s in changes.stretches {
            w.beginObject()
            w.key("kind"); w.string(s.kind.rawValue)
            w.key("at"); w.int(s.at)
            w.key("text"); w.string(s.text)
            w.key("author"); w.optionalString(people.note(s.author))
            w.endObject()
        }
        w.endArray()
        w.key("authors"); people.write(to: &w)
        w.endObject()
        return w.bytes
    }

    /// The people an answer names, each once, with what is known of them.
    private struct People {
        let registry: SessionRegistry
        var order: [String] = []
        var known: [String: Session?] = [:]

        init(registry: SessionRegistry) { self.registry = registry }

        /// The person `session` is, noted for `write`.
        mutating func note(_ session: String?) -> String? {
            guard let session else { return nil }
            let live = registry.session(id: session)
            let id = live?.userID.map { "user:" + $0 } ?? session
            if known[id] == nil {
                order.append(id)
                known[id] = .some(live)
            } else if case .some(nil) = known[id], let live {
                known[id] = live
            }
            return id
        }

        func write(to w: inout JSONWriter) {
            w.beginArray()
            for id in order {
                let s = known[id] ?? nil
                w.beginObject()
                w.key("id"); w.string(id)
                w.key("name"); w.optionalString(s?.name)
                w.key("color"); w.optionalString(s?.color)
                w.key("user"); w.optionalString(s?.userID)
                w.endObject()
            }
            w.endArray()
        }
    }
}
