// Parses the TSV resource files written by tools/build-reference.py, byte by byte for speed.
import Foundation

/// Why the reference data could not be loaded. The description is one line saying what to do.
public enum ReferenceDatabaseError: Error, Equatable, CustomStringConvertible {
    /// A resource file is missing or unreadable.
    case missingFile(String)
    /// A resource file is not in the expected format (file name, 1-based line number, problem).
    case malformed(file: String, line: Int, problem: String)

    public var description: String {
        switch self {
        case .missingFile(let name):
            return "Reference foods file \(name) is missing or unreadable; rebuild ofj (python3 tools/build-reference.py regenerates it)."
        case .malformed(let file, let line, let problem):
            return "Reference foods file \(file) is damaged at line \(line) (\(problem)); run python3 tools/build-reference.py --check."
        }
    }
}

/// The parsed content of the three resource files.
struct ParsedReferenceData {
    var columns: [ReferenceNutrientColumn]
    var foods: [ReferenceFood]
}

enum ResourceParser {
    static let foodTextColumns = ["ndb_no", "fdc_id", "food_group", "description", "common_name"]

    static func load(directory: URL) throws -> ParsedReferenceData {
        let columnsData = try read(directory, "columns.tsv")
        let foodsData = try read(directory, "foods.tsv")
        let portionsData = try read(directory, "portions.tsv")
        let columns = try parseColumns(columnsData)
        let portions = try parsePortions(portionsData)
        let foods = try parseFoods(foodsData, columns: columns, portions: portions)
        return ParsedReferenceData(columns: columns, foods: foods)
    }

    private static func read(_ directory: URL, _ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReferenceDatabaseError.missingFile(name)
        }
        return [UInt8](data)
    }

    // MARK: - Files

    static func parseColumns(_ bytes: [UInt8]) throws -> [ReferenceNutrientColumn] {
        var reader = try RowReader(bytes, file: "columns.tsv", header: ["id", "unit", "sr28_nutr_no", "name", "foods_with_value"])
        var columns: [ReferenceNutrientColumn] = []
        while try reader.next() {
            guard let count = Int(reader.text(4)) else { throw reader.damaged("foods_with_value is not a number") }
            columns.append(ReferenceNutrientColumn(id: reader.text(0), unit: reader.text(1), name: reader.text(3),
                                                   sr28Number: reader.text(2), foodsWithValue: count))
        }
        return columns
    }

    static func parsePortions(_ bytes: [UInt8]) throws -> [String: [ReferencePortion]] {
        var reader = try RowReader(bytes, file: "portions.tsv", header: ["ndb_no", "seq", "amount", "measure", "gram_weight"])
        var result: [String: [ReferencePortion]] = [:]
        result.reserveCapacity(9000)
        while try reader.next() {
            guard let sequence = Int(reader.text(1)), let amount = reader.number(2), let grams = reader.number(4),
                  amount > 0 else {
                throw reader.damaged("bad seq, amount or gram weight")
            }
            let portion = ReferencePortion(sequence: sequence, amount: amount, measure: reader.text(3), gramWeight: grams)
            result[reader.text(0), default: []].append(portion)
        }
        return result
    }

    static func parseFoods(_ bytes: [UInt8], columns: [ReferenceNutrientColumn],
                           portions: [String: [ReferencePortion]]) throws -> [ReferenceFood] {
        var reader = try RowReader(bytes, file: "foods.tsv", header: foodTextColumns + columns.map(\.id))
        var values: [Double] = []
        var rows: [(id: String, fdc: Int?, group: String, description: String, common: String?)] = []
        rows.reserveCapacity(9000)
        values.reserveCapacity(9000 * columns.count)
        let nutrientCount = columns.count
        while try reader.next() {
            let id = reader.text(0)
            guard !id.isEmpty else { throw reader.damaged("empty ndb_no") }
            var fdc: Int?
            if !reader.isEmpty(1) {
                guard let number = Int(reader.text(1)) else { throw reader.damaged("fdc_id is not a number") }
                fdc = number
            }
            // Rows of one group are adjacent: reuse the previous group's string instead of a new one per food.
            let group = rows.last.flatMap { reader.equals(2, $0.group) ? $0.group : nil } ?? reader.text(2)
            rows.append((id, fdc, group, reader.text(3), reader.isEmpty(4) ? nil : reader.text(4)))
            for index in 0..<nutrientCount {
                if reader.isEmpty(5 + index) {
                    values.append(.nan)
                } else if let value = reader.number(5 + index) {
                    values.append(value)
                } else {
                    throw reader.damaged("\(columns[index].id) is not a number")
                }
            }
        }
        let table = NutrientTable(columns: columns, values: values)
        var foods: [ReferenceFood] = []
        foods.reserveCapacity(rows.count)
        for (row, info) in rows.enumerated() {
            foods.append(ReferenceFood(id: info.id, description: info.description, group: info.group, fdcID: info.fdc,
                                       commonName: info.common, portions: portions[info.id] ?? [], table: table, row: row))
        }
        return foods
    }

    // MARK: - Rows

    /// Reads a TSV file row by row as byte ranges (no closures, so the hot loop stays cheap);
    /// checks the header and that every row has as many fields as the header.
    struct RowReader {
        let bytes: [UInt8]
        let file: String
        let width: Int
        private(set) var line = 0
        private var start = 0
        private(set) var fields: [Range<Int>] = []

        init(_ bytes: [UInt8], file: String, header: [String]) throws {
            self.bytes = bytes
            self.file = file
            self.width = header.count
            fields.reserveCapacity(header.count)
            guard readLine() else { throw ReferenceDatabaseError.malformed(file: file, line: 1, problem: "empty file") }
            guard fields.map({ String(decoding: bytes[$0], as: UTF8.self) }) == header else {
                throw ReferenceDatabaseError.malformed(file: file, line: 1, problem: "unexpected header")
            }
        }

        /// Moves to the next data row; false at the end of the file.
        mutating func next() throws -> Bool {
            guard readLine() else { return false }
            guard fields.count == width else { throw damaged("\(fields.count) fields instead of \(width)") }
            return true
        }

        func text(_ field: Int) -> String { String(decoding: bytes[fields[field]], as: UTF8.self) }
        func isEmpty(_ field: Int) -> Bool { fields[field].isEmpty }
        func equals(_ field: Int, _ text: String) -> Bool { bytes[fields[field]].elementsEqual(text.utf8) }
        func number(_ field: Int) -> Double? { ResourceParser.parseNumber(bytes, fields[field]) }
        func damaged(_ problem: String) -> ReferenceDatabaseError {
            .malformed(file: file, line: line, problem: problem)
        }

        private mutating func readLine() -> Bool {
            guard start < bytes.count else { return false }
            line += 1
            fields.removeAll(keepingCapacity: true)
            let lineStart = start
            var ranges = fields
            fields = []
            let next = bytes.withUnsafeBufferPointer { buffer -> Int in
                var fieldStart = lineStart
                var position = lineStart
                while position < buffer.count && buffer[position] != 0x0A {
                    if buffer[position] == 0x09 {
                        ranges.append(fieldStart..<position)
                        fieldStart = position + 1
                    }
                    position += 1
                }
                ranges.append(fieldStart..<position)
                return position + 1
            }
            fields = ranges
            start = next
            return true
        }
    }

    // MARK: - Numbers

    static func parseNumber(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        return parseNumber(bytes, 0..<bytes.count)
    }

    /// Parses a plain non-negative decimal ("717", "0.85", "0.000"). Digits become an exact
    /// integer divided by an exact power of ten, which IEEE rounds once: the same Double as
    /// `Double(String)`, several times faster. Anything unusual falls back to `Double(String)`.
    static func parseNumber(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
        guard !range.isEmpty else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var simple = true
        for index in range {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(byte - 0x30)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else if byte == 0x2E && !seenPoint {
                seenPoint = true
            } else {
                simple = false
                break
            }
        }
        if simple && digits > 0 && digits <= 15 && fractionDigits < powersOfTen.count {
            return Double(mantissa) / powersOfTen[fractionDigits]
        }
        guard let value = Double(String(decoding: bytes[range], as: UTF8.self)), value.isFinite, value >= 0 else { return nil }
        return value
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
}
