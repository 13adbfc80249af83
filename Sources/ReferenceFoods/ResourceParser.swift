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
        var columns: [ReferenceNutrientColumn] = []
        try forEachRow(bytes, file: "columns.tsv", expectedHeader: ["id", "unit", "sr28_nutr_no", "name", "foods_with_value"]) { fields, line in
            guard let count = Int(fields[4]) else {
                throw ReferenceDatabaseError.malformed(file: "columns.tsv", line: line, problem: "foods_with_value is not a number")
            }
            columns.append(ReferenceNutrientColumn(id: fields[0], unit: fields[1], name: fields[3], sr28Number: fields[2], foodsWithValue: count))
        }
        return columns
    }

    static func parsePortions(_ bytes: [UInt8]) throws -> [String: [ReferencePortion]] {
        var result: [String: [ReferencePortion]] = [:]
        try forEachRow(bytes, file: "portions.tsv", expectedHeader: ["ndb_no", "seq", "amount", "measure", "gram_weight"]) { fields, line in
            guard let sequence = Int(fields[1]), let amount = parseNumber(fields[2]), let grams = parseNumber(fields[4]),
                  amount > 0, grams >= 0 else {
                throw ReferenceDatabaseError.malformed(file: "portions.tsv", line: line, problem: "bad seq, amount or gram weight")
            }
            result[fields[0], default: []].append(ReferencePortion(sequence: sequence, amount: amount, measure: fields[3], gramWeight: grams))
        }
        return result
    }

    static func parseFoods(_ bytes: [UInt8], columns: [ReferenceNutrientColumn],
                           portions: [String: [ReferencePortion]]) throws -> [ReferenceFood] {
        let header = foodTextColumns + columns.map(\.id)
        var values: [Double] = []
        var rows: [(id: String, fdc: Int?, group: String, description: String, common: String?)] = []
        rows.reserveCapacity(9000)
        values.reserveCapacity(9000 * columns.count)
        let nutrientCount = columns.count
        try forEachRowRaw(bytes, file: "foods.tsv", expectedHeader: header) { fields, line in
            func text(_ index: Int) -> String { String(decoding: bytes[fields[index]], as: UTF8.self) }
            let id = text(0)
            guard !id.isEmpty else {
                throw ReferenceDatabaseError.malformed(file: "foods.tsv", line: line, problem: "empty ndb_no")
            }
            let fdcText = text(1)
            let fdc = fdcText.isEmpty ? nil : Int(fdcText)
            if !fdcText.isEmpty && fdc == nil {
                throw ReferenceDatabaseError.malformed(file: "foods.tsv", line: line, problem: "fdc_id is not a number")
            }
            let common = text(4)
            rows.append((id, fdc, text(2), text(3), common.isEmpty ? nil : common))
            for index in 0..<nutrientCount {
                let range = fields[5 + index]
                if range.isEmpty {
                    values.append(.nan)
                } else if let value = parseNumber(bytes, range) {
                    values.append(value)
                } else {
                    throw ReferenceDatabaseError.malformed(file: "foods.tsv", line: line, problem: "\(columns[index].id) is not a number")
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

    /// Calls `body` with each data row's fields as strings (small files only).
    private static func forEachRow(_ bytes: [UInt8], file: String, expectedHeader: [String],
                                   _ body: ([String], Int) throws -> Void) throws {
        try forEachRowRaw(bytes, file: file, expectedHeader: expectedHeader) { ranges, line in
            try body(ranges.map { String(decoding: bytes[$0], as: UTF8.self) }, line)
        }
    }

    /// Calls `body` with each data row's field byte ranges; checks the header and the field count.
    private static func forEachRowRaw(_ bytes: [UInt8], file: String, expectedHeader: [String],
                                      _ body: ([Range<Int>], Int) throws -> Void) throws {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(expectedHeader.count)
        var line = 0
        var start = 0
        let end = bytes.count
        while start < end {
            line += 1
            var fieldStart = start
            var position = start
            fields.removeAll(keepingCapacity: true)
            while position < end && bytes[position] != 0x0A {
                if bytes[position] == 0x09 {
                    fields.append(fieldStart..<position)
                    fieldStart = position + 1
                }
                position += 1
            }
            fields.append(fieldStart..<position)
            start = position + 1
            if line == 1 {
                let names = fields.map { String(decoding: bytes[$0], as: UTF8.self) }
                guard names == expectedHeader else {
                    throw ReferenceDatabaseError.malformed(file: file, line: 1, problem: "unexpected header")
                }
                continue
            }
            guard fields.count == expectedHeader.count else {
                throw ReferenceDatabaseError.malformed(file: file, line: line,
                                                       problem: "\(fields.count) fields instead of \(expectedHeader.count)")
            }
            try body(fields, line)
        }
        if line == 0 {
            throw ReferenceDatabaseError.malformed(file: file, line: 1, problem: "empty file")
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
