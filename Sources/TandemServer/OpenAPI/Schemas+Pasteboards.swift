/// Schemas of pasteboards and editing actions.
extension Schemas {
    /// Who reads and writes a pasteboard besides its owner, as a request says it: everyone,
    /// nobody, or users named by sign-in name.
    static let sharing: JSONValue = ["oneOf": [
        ["type": "string", "enum": ["everyone", "none"]],
        ["type": "array", "items": ["type": "string", "minLength": 1], "maxItems": 100],
    ]]
    /// As a pasteboard says it; `sharedWith` names the people of `people`.
    static let sharedAs: JSONValue = ["type": "string", "enum": ["everyone", "none", "people"]]
    static let sharedWith: JSONValue = array(object([("person", string), ("name", nullableString)], required: ["person", "name"]))

    static let pasteboardComponents: [(String, JSONValue)] = [
        ("Representation", [
            "description": "One representation: a UTI (MIME types are accepted and mapped) and its bytes, as a string for text types with UTF-8 bytes, else base64.",
            "oneOf": [
                object([("type", string), ("string", string)], required: ["type", "string"]),
                object([("type", string), ("base64", ["type": "string", "contentEncoding": "base64"])], required: ["type", "base64"]),
            ],
        ]),
        ("PasteboardSummary", object([
            ("name", string), ("changeCount", nonNegative), ("persistent", boolean), ("owner", nullableString), ("ownerName", nullableString),
            ("shared", sharedAs), ("sharedWith", sharedWith), ("numberOfItems", nonNegative), ("types", array(string)),
        ], required: ["name", "changeCount", "persistent", "owner", "ownerName", "shared", "sharedWith", "numberOfItems", "types"])),
        ("Pasteboard", object([
            ("name", string), ("changeCount", nonNegative), ("persistent", boolean), ("owner", nullableString), ("ownerName", nullableString),
            ("shared", sharedAs), ("sharedWith", sharedWith), ("numberOfItems", nonNegative), ("types", array(string)),
            ("items", array(array(ref("Representation")))),
        ], required: ["name", "changeCount", "persistent", "owner", "ownerName", "shared", "sharedWith", "numberOfItems", "types", "items"])),
        ("PasteboardItems", [
            "oneOf": [
                object([("items", array(array(ref("Representation"))))], required: ["items"]),
                array(array(ref("Representation"))),
            ],
        ]),
        ("PasteboardEvent", object([
            ("kind", ["type": "string", "enum": ["changed", "removed"]]), ("name", string),
            ("changeCount", nonNegative), ("typesAdded", array(string)), ("typesRemoved", array(string)),
        ], required: ["kind", "name"])),
    ]

    static let actionComponents: [(String, JSONValue)] = [
        ("ActionResult", object([
            ("revision", nonNegative), ("ops", ref("Operation")), ("actionName", string),
            ("selection", ["oneOf": [ref("Selection"), ["type": "null"]]]),
            ("pasteboard", string), ("changeCount", nonNegative),
        ], required: ["revision", "ops", "actionName", "selection"])),
        ("CopyResult", object([
            ("pasteboard", string), ("changeCount", nonNegative),
            ("selection", ["oneOf": [ref("Selection"), ["type": "null"]]]),
        ], required: ["pasteboard", "changeCount", "selection"])),
        ("SelectResult", object([
            ("revision", nonNegative), ("selection", ref("Selection")),
        ], required: ["revision", "selection"])),
        ("Actions", object([
            ("cut", boolean), ("copy", boolean), ("paste", boolean), ("delete", boolean),
            ("select", boolean), ("selectAll", boolean), ("undo", boolean), ("redo", boolean),
            ("undoMenuItemTitle", string), ("redoMenuItemTitle", string), ("pasteMenuItemTitle", string),
            ("pasteboard", string), ("selection", ["oneOf": [ref("Selection"), ["type": "null"]]]),
        ], required: ["cut", "copy", "paste", "delete", "select", "selectAll", "undo", "redo",
                      "undoMenuItemTitle", "redoMenuItemTitle", "pasteMenuItemTitle", "pasteboard", "selection"])),
    ]
}
