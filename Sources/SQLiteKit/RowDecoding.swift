// Typed, throwing reads of a row's values: a value that is not what the schema promises (NULL in
// a NOT NULL column, text where a number belongs, a column the query does not have) is an error
// naming the column, never a silent default. Stores decode every row through these.

/// The SQL type a column is declared with, as stores and change capture name them.
public enum DatabaseColumnType: Sendable, Hashable { case text, integer, real }

/// A stored value that cannot be read as the schema promises. Names the column and the kinds of
/// value, never the value itself (it may be journal content).
public struct RowDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let column: String
    /// What the column must hold ("an integer", "text", "one of queued, running, …").
    public let expected: String
    /// What it holds ("NULL", "text", "a real", "an integer", "a blob", "no such column").
    public let found: String

    public init(column: String, expected: String, found: String) {
        self.column = column
        self.expected = expected
        self.found = found
    }

    public var description: String {
        "the database has an unreadable value in column \(column) (\(found) where \(expected) belongs): "
            + "it was changed outside ofj or is damaged; restore a backup or run ofj doctor"
    }
}

/// A Swift type one stored value decodes to.
public protocol DatabaseValueDecodable: Sendable {
    /// How an error names the type ("an integer").
    static var expectedDescription: String { get }
    /// The value, or nil when `value` is not one of this type (NULL included).
    static func decode(_ value: DatabaseValue) -> Self?
}

extension Int64: DatabaseValueDecodable {
    public static var expectedDescription: String { "an integer" }
    public static func decode(_ value: DatabaseValue) -> Int64? { value.int64 }
}
extension Int: DatabaseValueDecodable {
    public static var expectedDescription: String { "an integer" }
    public static func decode(_ value: DatabaseValue) -> Int? { value.int }
}
extension Double: DatabaseValueDecodable {
    public static var expectedDescription: String { "a number" }
    public static func decode(_ value: DatabaseValue) -> Double? { value.double }
}
extension String: DatabaseValueDecodable {
    public static var expectedDescription: String { "text" }
    public static func decode(_ value: DatabaseValue) -> String? { value.string }
}
/// Flags are stored as integers: 0 is false, any other integer true.
extension Bool: DatabaseValueDecodable {
    public static var expectedDescription: String { "a 0/1 flag" }
    public static func decode(_ value: DatabaseValue) -> Bool? {
        if case .integer(let i) = value { return i != 0 }
        return nil
    }
}

extension DatabaseValue {
    /// How an error names this kind of value.
    var kindDescription: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "an integer"
        case .real: return "a real"
        case .text: return "text"
        case .blob: return "a blob"
        }
    }
}

/// A result row that can be decoded: a `Row`, or a `Statement` on its current row (the hot paths
/// that step a statement without building rows).
public protocol DecodableRow {
    /// The value at `index`, or nil past the last column.
    func decodableValue(at index: Int) -> DatabaseValue?
    /// The name of the column at `index` (for errors).
    func decodableColumnName(at index: Int) -> String
    /// The index of the column named `name`, if the query has one.
    func decodableIndex(of name: String) -> Int?
}

extension DecodableRow {
    /// The value at `index` as `T`; throws when it is NULL or of another type.
    public func decode<T: DatabaseValueDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard let value = decodableValue(at: index) else {
            throw RowDecodingError(column: "#\(index)", expected: T.expectedDescription, found: "no such column")
        }
        guard let decoded = T.decode(value) else {
            throw RowDecodingError(column: decodableColumnName(at: index), expected: T.expectedDescription, found: value.kindDescription)
        }
        return decoded
    }

    /// The value at `index` as `T`, nil when it is NULL; throws when it is of another type.
    public func decodeIfPresent<T: DatabaseValueDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T? {
        guard let value = decodableValue(at: index) else {
            throw RowDecodingError(column: "#\(index)", expected: T.expectedDescription, found: "no such column")
        }
        if case .null = value { return nil }
        return try decode(index, as: type)
    }

    /// The value at `index` as a case of `T` (a closed word stored as text or a number).
    public func decode<T: RawRepresentable>(_ index: Int, as type: T.Type) throws -> T where T.RawValue: DatabaseValueDecodable {
        let raw = try decode(index, as: T.RawValue.self)
        guard let value = T(rawValue: raw) else {
            throw RowDecodingError(column: decodableColumnName(at: index), expected: "a known \(String(describing: T.self))", found: "another value")
        }
        return value
    }

    /// The column named `name` as `T`; throws when the query has no such column, or it is NULL or of another type.
    public func decode<T: DatabaseValueDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try decode(try index(of: name, T.self), as: type)
    }

    /// The column named `name` as `T`, nil when it is NULL.
    public func decodeIfPresent<T: DatabaseValueDecodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(try index(of: name, T.self), as: type)
    }

    /// The column named `name` as a case of `T`.
    public func decode<T: RawRepresentable>(_ name: String, as type: T.Type) throws -> T where T.RawValue: DatabaseValueDecodable {
        try decode(try index(of: name, T.RawValue.self), as: type)
    }

    private func index<T: DatabaseValueDecodable>(of name: String, _: T.Type) throws -> Int {
        guard let i = decodableIndex(of: name) else {
            throw RowDecodingError(column: name, expected: T.expectedDescription, found: "no such column")
        }
        return i
    }
}

extension Row: DecodableRow {
    public func decodableValue(at index: Int) -> DatabaseValue? { values.indices.contains(index) ? values[index] : nil }
    public func decodableColumnName(at index: Int) -> String { columns.indices.contains(index) ? columns[index] : "#\(index)" }
    public func decodableIndex(of name: String) -> Int? { columns.firstIndex(of: name) }
}

extension Statement: DecodableRow {
    public func decodableValue(at index: Int) -> DatabaseValue? { (0..<columnCount).contains(index) ? value(at: index) : nil }
    public func decodableColumnName(at index: Int) -> String { (0..<columnCount).contains(index) ? columnName(index) : "#\(index)" }
    public func decodableIndex(of name: String) -> Int? { (0..<columnCount).first { columnName($0) == name } }
}
