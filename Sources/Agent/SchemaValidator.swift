// Validates tool arguments against the subset of JSON Schema tools use, with precise messages
// the model can act on ("quantity: expected number, got string").
import Base

public enum SchemaValidator {
    /// The first violation of `schema` by `value`, or nil when it conforms. Supported keywords:
    /// type, properties, required, enum, const, minimum, maximum, exclusiveMinimum,
    /// exclusiveMaximum, items, additionalProperties, minLength, maxLength, minItems, maxItems.
    public static func firstViolation(of value: JSONValue, against schema: JSONValue, path: String = "") -> String? {
        guard case .object(let s) = schema else { return nil } // `true`/empty schemas accept anything
        let here = path.isEmpty ? "arguments" : path

        if let type = s["type"] {
            let allowed: [String] = type.stringValue.map { [$0] } ?? type.arrayValue?.compactMap(\.stringValue) ?? []
            if !allowed.isEmpty && !allowed.contains(where: { matches(value, type: $0) }) {
                return "\(here): expected \(allowed.joined(separator: " or ")), got \(value.typeName)"
            }
        }
        if let options = s["enum"]?.arrayValue, !options.contains(where: { equal($0, value) }) {
            let list = options.map(\.serialized).joined(separator: ", ")
            return "\(here): must be one of \(list), got \(value.serialized.prefix(80))"
        }
        if let constant = s["const"], !equal(constant, value) {
            return "\(here): must be \(constant.serialized)"
        }
        if case .number(let n) = value {
            if let min = s["minimum"]?.doubleValue, n < min { return "\(here): must be at least \(JSONValue.format(min)), got \(JSONValue.format(n))" }
            if let max = s["maximum"]?.doubleValue, n > max { return "\(here): must be at most \(JSONValue.format(max)), got \(JSONValue.format(n))" }
            if let min = s["exclusiveMinimum"]?.doubleValue, n <= min { return "\(here): must be greater than \(JSONValue.format(min)), got \(JSONValue.format(n))" }
            if let max = s["exclusiveMaximum"]?.doubleValue, n >= max { return "\(here): must be less than \(JSONValue.format(max)), got \(JSONValue.format(n))" }
        }
        if case .string(let text) = value {
            let count = text.count
            if let min = s["minLength"]?.intValue, count < min { return "\(here): must have at least \(min) characters" }
            if let max = s["maxLength"]?.intValue, count > max { return "\(here): must have at most \(max) characters, got \(count)" }
        }
        if case .array(let items) = value {
            if let min = s["minItems"]?.intValue, items.count < min { return "\(here): must have at least \(min) items, got \(items.count)" }
            if let max = s["maxItems"]?.intValue, items.count > max { return "\(here): must have at most \(max) items, got \(items.count)" }
            if let itemSchema = s["items"] {
                for (i, item) in items.enumerated() {
                    if let v = firstViolation(of: item, against: itemSchema, path: "\(here)[\(i)]") { return v }
                }
            }
        }
        if case .object(let object) = value {
            let prefix = path.isEmpty ? "" : "\(path)."
            for name in s["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                return "missing required argument '\(prefix)\(name)'"
            }
            let properties = s["properties"]?.objectValue ?? [:]
            for key in object.keys.sorted() {
                guard let child = object[key] else { continue }
                if let propertySchema = properties[key] {
                    if let v = firstViolation(of: child, against: propertySchema, path: "\(prefix)\(key)") { return v }
                    continue
                }
                switch s["additionalProperties"] {
                case .bool(false)?:
                    let known = properties.keys.sorted().joined(separator: ", ")
                    return "unexpected argument '\(prefix)\(key)'" + (known.isEmpty ? "" : "; allowed: \(known)")
                case .object(let extra)?:
                    if let v = firstViolation(of: child, against: .object(extra), path: "\(prefix)\(key)") { return v }
                default:
                    continue
                }
            }
        }
        return nil
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number):
            return true
        case ("integer", .number(let n)):
            return n.rounded() == n
        default:
            return false
        }
    }

    /// JSON equality where 1 and 1.0 are the same number (they are one value in our model anyway).
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool { a == b }
}
