import Foundation
import TandemCore

/// The JSON shapes of pasteboards: text representations as `"string"` (when their bytes
/// are UTF-8), all others as `"base64"`.
/// `names` gives the name a person goes by (`SessionRegistry.name(ofPerson:)`), for `sharedWith`.
enum PasteboardJSON {
    typealias Names = (String) -> String?

    static func summary(_ p: Pasteboard, names: Names, to w: inout JSONWriter) {
        w.beginObject()
        header(p, names: names, to: &w)
        w.endObject()
    }

    static func pasteboard(_ p: Pasteboard, names: Names) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + p.byteCount * 4 / 3)
        w.beginObject()
        header(p, names: names, to: &w)
        w.key("items")
        w.beginArray()
        for item in p.items {
            w.beginArray()
            for r in item.representations { representation(r, to: &w) }
            w.endArray()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    private static func header(_ p: Pasteboard, names: Names, to w: inout JSONWriter) {
        w.key("name"); w.string(p.name)
        w.key("changeCount"); w.int(p.changeCount)
        w.key("persistent"); w.bool(p.persistent)
        w.key("owner"); w.optionalString(p.owner)
        w.key("ownerName"); w.optionalString(p.owner.flatMap(names))
        w.key("shared"); w.string(PasteboardSharing.name(of: p))
        w.key("sharedWith")
        w.beginArray()
        for person in p.sharedWith.sorted() {
            w.beginObject()
            w.key("person"); w.string(person)
            w.key("name"); w.optionalString(names(person))
            w.endObject()
        }
        w.endArray()
        w.key("numberOfItems"); w.int(p.items.count)
        w.key("types"); w.beginArray(); for t in p.types { w.string(t) }; w.endArray()
    }

    static func representation(_ r: PasteboardRepresentation, to w: inout JSONWriter) {
        w.beginObject()
        w.key("type"); w.string(r.type)
        if PasteboardType.isText(r.type), let s = r.string {
            w.key("string"); w.string(s)
        } else {
            w.key("base64"); w.string(Data(r.data).base64EncodedString())
        }
        w.endObject()
    }

    /// `{"items": [[rep…]…]}` or the bare `[[rep…]…]`; rep is `{"type", "string" | "base64"}`.
    static func items(_ json: JSONValue) throws(APIError) -> [PasteboardItem] {
        var list = json
        if case .object = json {
            for k in json.objectKeys ?? [] where k != "items" {
                throw .invalidField(k, "unknown field (expected items)")
            }
            guard let items = json["items"] else { throw .invalidField("items", "is required") }
            list = items
        }
        guard let raw = list.arrayValue else { throw .invalidField("items", "must be an array of items") }
        var out: [PasteboardItem] = []
        out.reserveCapacity(raw.count)
        for (i, itemJSON) in raw.enumerated() {
            guard let repsJSON = itemJSON.arrayValue else {
                throw .invalidField("items[\(i)]", "must be an array of representations")
            }
            var reps: [PasteboardRepresentation] = []
            for (j, r) in repsJSON.enumerated() {
                let at = "items[\(i)][\(j)]"
                guard case .object = r else { throw .invalidField(at, "must be {\"type\", \"string\" or \"base64\"}") }
                for k in r.objectKeys ?? [] where !["type", "string", "base64"].contains(k) {
                    throw .invalidField("\(at).\(k)", "unknown field (expected type, string or base64)")
                }
                guard let given = r["type"]?.stringValue else { throw .invalidField("\(at).type", "must be a string") }
                guard let type = PasteboardType.identifier(for: given) else {
                    throw .badRequest("\(at).type: '\(given)' is neither a UTI nor a MIME type", code: "invalid_type")
                }
                switch (r["string"], r["base64"]) {
                case (let s?, nil):
                    guard let text = s.stringValue else { throw .invalidField("\(at).string", "must be a string") }
                    reps.append(PasteboardRepresentation(type: type, string: text))
                case (nil, let b?):
                    guard let text = b.stringValue, let data = Data(base64Encoded: text) else {
                        throw .invalidField("\(at).base64", "must be a base64 string")
                    }
                    reps.append(PasteboardRepresentation(type: type, data: Array(data)))
                default:
                    throw .invalidField(at, "give exactly one of string or base64")
                }
            }
            out.append(PasteboardItem(reps))
        }
        return out
    }
}
