// Indented JSON for a person to read and edit (tool arguments at an approval card, config.json).

public enum PrettyJSON {
    /// `text` indented two spaces per level with keys sorted; text that is not JSON is returned as is.
    public static func format(_ text: String) -> String {
        guard let value = try? JSONValue.parse(text) else { return text }
        var out = ""
        write(value, indent: 0, to: &out)
        return out + "\n"
    }

    /// `value` indented two spaces per level with keys sorted, ending in a newline. With
    /// `oneLineObjectsInArrays`, an object inside an array stays on one line (approval rules,
    /// which people write by hand one per line).
    public static func format(_ value: JSONValue, oneLineObjectsInArrays: Bool = false) -> String {
        var out = ""
        write(value, indent: 0, oneLineObjectsInArrays: oneLineObjectsInArrays, to: &out)
        return out + "\n"
    }

    static func write(_ value: JSONValue, indent: Int, oneLineObjectsInArrays: Bool = false, to out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (i, key) in object.keys.sorted().enumerated() {
                out += pad
                JSONValue.writeString(key, to: &out)
                out += ": "
                write(object[key] ?? .null, indent: indent + 1, oneLineObjectsInArrays: oneLineObjectsInArrays, to: &out)
                out += i == object.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        case .array(let array) where !array.isEmpty:
            out += "[\n"
            for (i, element) in array.enumerated() {
                out += pad
                if oneLineObjectsInArrays && element.objectValue != nil {
                    out += element.serialized
                } else {
                    write(element, indent: indent + 1, oneLineObjectsInArrays: oneLineObjectsInArrays, to: &out)
                }
                out += i == array.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        default:
            out += value.serialized
        }
    }
}
