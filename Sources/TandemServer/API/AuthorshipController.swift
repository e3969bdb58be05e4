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

    /// `GET …/authorship[?revision=n]`.
    func authorship(_ req: HTTPRequest, _ ctx: RequestContext, _ res: HTTPResponder) {
        res.respond { () throws(APIError) in
            let handle = try ctx.requestedDocument()
            let revision = try Self.revision(req.queryValue("revision"))
            let (at, runs) = try handle.executor.sync { st throws(APIError) -> (Int, [Authorship.Run]) in
                do throws(DocumentError) {
                    return (revision ?? st.document.revision, try st.document.authors(atRevision: revision))
                } catch {
                    throw APIError.document(error)
                }
            }
            return .json(authorshipJSON(revision: at, runs: runs))
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
            let changes = try handle.executor.sync { st throws(APIError) -> (TextChanges, toRevision: Int) in
                let doc = st.document
                let toRevision = to?.revision ?? doc.revision
                let a = Array(from.text.utf16)
                let b = to.map { Array($0.text.utf16) } ?? Array(doc.rope.description.utf16)
                // By identity while the log covers both revisions, else by the texts.
                if let ua = try? doc.unitRuns(atRevision: from.revision), let ub = try? doc.unitRuns(atRevision: toRevision),
                   let found = TextChanges.between((a, ua), (b, ub), authorship: doc.authorship) {
                    return (found, toRevision)
                }
                return (TextChanges.lines(from: a, to: b), toRevision)
            }
            return .json(diffJSON(changes.0, from: from, to: to, toRevision: changes.toRevision))
        }
    }

    static func revision(_ raw: String?) throws(APIError) -> Int? {
        guard let raw else { return nil }
        guard let n = Int(raw), n >= 0 else { throw .invalidField("revision", "must be a revision") }
        return n
    }

    // MARK: Answers

    private func authorshipJSON(revision: Int, runs: [Authorship.Run]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 48 * runs.count)
        var people = People(registry: sessions)
        w.beginObject()
        w.key("revision"); w.int(revision)
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
