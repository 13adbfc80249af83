// Streaming CSV for imports from other apps: a file is read in 64 KiB chunks, one record at a time,
// so a 1,000,000-row export never sits in memory. Handles a UTF-8 BOM, CRLF/LF/CR line ends,
// quoted fields (separators, quotes and line breaks inside), and `,`, `;` or tab separators
// (detected from the header line). Numbers with decimal commas and dates in several spellings
// are read by `ImportValues`.
import Base
import Foundation
import Nutrition

/// One record: its fields and the line it starts on (1-based, the header is line 1).
public struct CSVRecord: Sendable {
    public var fields: [String]
    public var line: Int
    /// False when the file ended inside a quoted field (a truncated last line).
    public var complete: Bool
}

/// Why a file cannot be read at all (one line each, saying what to do).
public struct ImportFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reads records from a file without loading it whole.
public final class CSVReader {
    public static let chunkSize = 64 * 1024
    /// A record longer than this is refused: an unclosed quote would otherwise read the whole file.
    public static let maxRecordBytes = 1 << 20

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEOF = false
    private var nextLine = 1
    public private(set) var separator: UInt8 = UInt8(ascii: ",")
    /// The most bytes held at once (the chunk plus one record), for the memory bound test.
    public private(set) var peakBufferedBytes = 0

    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportFileError("cannot read \(path): no such file")
        }
        guard !isDirectory.boolValue else { throw ImportFileError("\(path) is a folder; give the exported CSV file") }
        guard let h = FileHandle(forReadingAtPath: path) else { throw ImportFileError("cannot read \(path): check its permissions") }
        handle = h
        try fill()
        // A byte-order mark: UTF-8 is skipped; UTF-16/32 is named (re-save the file as UTF-8).
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
        } else if buffer.starts(with: [0xFF, 0xFE]) || buffer.starts(with: [0xFE, 0xFF]) {
            throw ImportFileError("\(path) is UTF-16 text; save it as UTF-8 CSV and import again")
        }
    }

    deinit { try? handle.close() }

    private func fill() throws {
        guard !atEOF else { return }
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        let data: Data?
        do { data = try handle.read(upToCount: CSVReader.chunkSize) } catch {
            throw ImportFileError("the file could not be read to the end (\(error.localizedDescription)); check the disk and try again")
        }
        if let data, !data.isEmpty { buffer.append(contentsOf: data) } else { atEOF = true }
        peakBufferedBytes = max(peakBufferedBytes, buffer.count)
    }

    /// Picks the separator from the header line: the most frequent of `,` `;` tab outside quotes.
    public func detectSeparator() throws {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, UInt8(ascii: "\t"): 0]
        var i = position
        var quoted = false
        while true {
            if i >= buffer.count {
                if atEOF || buffer.count - position > CSVReader.maxRecordBytes { break }
                let offset = i - position
                try fill()
                i = position + offset
                continue
            }
            let b = buffer[i]
            if b == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted && (b == 10 || b == 13) { break }
            if !quoted, counts[b] != nil { counts[b, default: 0] += 1 }
            i += 1
        }
        let best = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }
        if let best, best.value > 0 { separator = best.key }
    }

    /// The next record, or nil at the end of the file. Empty lines are skipped.
    public func next() throws -> CSVRecord? {
        while true {
            guard let r = try readRecord() else { return nil }
            if r.fields.count == 1 && r.fields[0].isEmpty { continue }
            return r
        }
    }

    private func readRecord() throws -> CSVRecord? {
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        var started = false
        let startLine = nextLine
        var recordBytes = 0
        func finishField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        while true {
            if position >= buffer.count {
                try fill()
                if position >= buffer.count {
                    // End of file.
                    guard started else { return nil }
                    finishField()
                    return CSVRecord(fields: fields, line: startLine, complete: !quoted)
                }
            }
            let b = buffer[position]
            position += 1
            started = true
            recordBytes += 1
            if recordBytes > CSVReader.maxRecordBytes {
                throw ImportFileError("line \(startLine) is longer than 1 MB (a quote that never closes?); fix the file and import again")
            }
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if position >= buffer.count { try fill() }
                    if position < buffer.count && buffer[position] == UInt8(ascii: "\"") {
                        field.append(b)
                        position += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if b == 10 { nextLine += 1 }
                    field.append(b)
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\"") where field.allSatisfy({ $0 == 32 }) && !wasQuoted:
                field.removeAll(keepingCapacity: true)
                quoted = true
                wasQuoted = true
            case separator:
                finishField()
            case 10:
                nextLine += 1
                finishField()
                return CSVRecord(fields: fields, line: startLine, complete: true)
            case 13:
                if position >= buffer.count { try fill() }
                if position < buffer.count && buffer[position] == 10 { position += 1 }
                nextLine += 1
                finishField()
                return CSVRecord(fields: fields, line: startLine, complete: true)
            default:
                field.append(b)
            }
        }
    }
}

/// Numbers, dates and column headers as other apps write them.
public enum ImportValues {
    /// "12.5", "12,5" (decimal comma), "1,050" or "1.050,5" (thousands), " 3 ", "" (nil).
    /// `separator` is the file's field separator: in a `;` or tab file a lone comma is a decimal comma.
    public static func number(_ raw: String, separator: UInt8 = UInt8(ascii: ",")) -> Double? {
        var s = raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{00A0}", with: "")
        s = s.replacingOccurrences(of: " ", with: "")
        guard !s.isEmpty, s.count <= 40 else { return nil }
        let hasDot = s.contains("."), hasComma = s.contains(",")
        if hasDot && hasComma {
            // The later one is the decimal mark.
            if let dot = s.lastIndex(of: "."), let comma = s.lastIndex(of: ","), comma > dot {
                s = s.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".")
            } else {
                s = s.replacingOccurrences(of: ",", with: "")
            }
        } else if hasComma {
            let groups = s.split(separator: ",", omittingEmptySubsequences: false)
            let thousands = separator == UInt8(ascii: ",") && groups.count >= 2 && groups.dropFirst().allSatisfy { $0.count == 3 }
                && (1...3).contains(groups[0].filter(\.isNumber).count)
            if thousands {
                s = s.replacingOccurrences(of: ",", with: "")
            } else if groups.count == 2 {
                s = s.replacingOccurrences(of: ",", with: ".")
            } else {
                return nil
            }
        }
        guard s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }), let v = Double(s), v.isFinite else {
            return nil
        }
        return v
    }

    /// "2026-01-05", "2026/01/05", "2026-01-05 08:00", "2026-01-05T08:00:00Z", "01/05/2026" (month
    /// first unless `dayFirst`), "5.1.2026" and "05-01-2026" (day first), two-digit years as 20YY.
    /// A slash date whose first number is over 12 is read day first whatever `dayFirst` says.
    public static func day(_ raw: String, dayFirst: Bool = false) -> CalendarDay? {
        var s = raw.trimmingCharacters(in: .whitespaces)
        if let cut = s.firstIndex(where: { $0 == " " || $0 == "T" }) { s = String(s[..<cut]) }
        guard !s.isEmpty, s.count <= 10 else { return nil }
        for sep: Character in ["-", "/", "."] where s.contains(sep) {
            let parts = s.split(separator: sep, omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
                  let a = Int(parts[0]), let b = Int(parts[1]), var c = Int(parts[2]) else { return nil }
            if parts[0].count == 4 { return try? CalendarDay(year: a, month: b, day: c) }
            if parts[2].count == 2 { c += 2000 } else if parts[2].count != 4 { return nil }
            let dmy = sep != "/" || dayFirst || a > 12
            return try? CalendarDay(year: c, month: dmy ? b : a, day: dmy ? a : b)
        }
        return nil
    }

    /// "Fat (g)" -> ("Fat", "g"); "Calories" -> ("Calories", nil).
    public static func splitUnit(_ header: String) -> (name: String, unit: String?) {
        let h = header.trimmingCharacters(in: .whitespaces)
        guard h.hasSuffix(")"), let open = h.lastIndex(of: "(") else { return (h, nil) }
        let unit = h[h.index(after: open)..<h.index(before: h.endIndex)].trimmingCharacters(in: .whitespaces)
        return (h[..<open].trimmingCharacters(in: .whitespaces), unit)
    }

    /// Factor from a column's unit to the canonical unit of nutrient `id`; nil when it does not
    /// convert (a % of daily value, IU of anything but vitamin D).
    public static func factor(from unit: String, to id: String) -> Double? {
        let u = unit.lowercased().replacingOccurrences(of: " ", with: "")
        if id == "energy_kcal" {
            switch u {
            case "kcal", "cal", "calories", "kcals": return 1
            case "kj", "kilojoules": return 1 / NutrientAmounts.kilojoulesPerKcal
            default: return nil
            }
        }
        // USDA's rule: 1 µg vitamin D = 40 IU.
        if u == "iu" { return id == "vitamin_d_mcg" ? 1.0 / 40 : nil }
        let grams: Double
        switch u {
        case "g", "gram", "grams": grams = 1
        case "mg", "milligrams": grams = 1e-3
        case "µg", "μg", "mcg", "ug", "micrograms", "mcgrae", "µgrae", "mcgdfe", "µgdfe": grams = 1e-6
        default: return nil
        }
        switch NutrientCatalog.nutrient(id)?.unit {
        case .g?: return grams
        case .mg?: return grams * 1e3
        case .mcg?: return grams * 1e6
        default: return nil
        }
    }

    /// 64-bit FNV-1a over the fields (with a separator no field can hold): stable across runs,
    /// machines and Swift versions (Swift's `Hasher` is seeded per process).
    public static func stableHash(_ parts: [String]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for (i, p) in parts.enumerated() {
            if i > 0 { h ^= 0x1F; h = h &* 0x100_0000_01b3 }
            for b in p.utf8 { h ^= UInt64(b); h = h &* 0x100_0000_01b3 }
        }
        return h
    }
}
