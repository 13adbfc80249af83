// Weigh-ins from other apps (issue 33 §3): Cronometer's biometrics export (Day, Group, Metric,
// Unit, Amount; one row per measurement) and MyFitnessPal's progress export (Date, Weight, or
// Date, Measurement, Value). `importFile` sees these headers under `ofj import cronometer` and
// `ofj import myfitnesspal` and comes here. Every weigh-in is written through `logWeight` in one
// transaction (one undo step); a weigh-in already in the journal (same day and kg) is skipped.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// How a weight file's columns are read.
struct WeightPlan {
    var date: Int
    /// The column naming the measurement ("Weight", "Body Fat"); nil when every row is a weight.
    var metric: Int?
    var value: Int
    /// The column holding the unit (Cronometer's Unit).
    var unit: Int?
    /// A unit from the header ("Weight (lbs)").
    var headerUnit: String?
    var width: Int
}

extension JournalStore {
    /// Which app's export `path` is, from its header (`ofj import FILE`): Cronometer's servings or
    /// biometrics, MyFitnessPal's nutrition summary or progress; anything else needs a subcommand.
    public static func detectImportFormat(_ path: String) throws -> ImportFormat {
        let reader = try CSVReader(path: path)
        try reader.detectSeparator()
        guard let record = try reader.next() else { throw ImportFileError("\(path) is empty; export the file again") }
        let header = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        let names = Set(header.map { ImportValues.splitUnit($0).name.lowercased() })
        if names.contains("food name") || weightPlan(header, format: .cronometer) != nil { return .cronometer }
        if (names.contains("meal") && names.contains("calories")) || weightPlan(header, format: .myFitnessPal) != nil { return .myFitnessPal }
        throw ImportFileError("cannot tell which app's export this is (columns: \(listed(header))); name it: ofj import cronometer|myfitnesspal FILE, or ofj import csv FILE --map …")
    }

    /// The weight layout of `header` under `format`, or nil when it is not a weight export.
    static func weightPlan(_ header: [String], format: ImportFormat) -> WeightPlan? {
        var firstIndex: [String: Int] = [:]
        var unitOf: [String: String] = [:]
        for (i, h) in header.enumerated() {
            let (name, unit) = ImportValues.splitUnit(h)
            let key = name.lowercased()
            if firstIndex[key] == nil { firstIndex[key] = i; unitOf[key] = unit }
        }
        func column(_ names: [String]) -> Int? { names.lazy.compactMap { firstIndex[$0] }.first }
        func plan(_ date: Int, _ metric: Int?, _ value: Int, unit: Int?, headerUnit: String?) -> WeightPlan {
            WeightPlan(date: date, metric: metric, value: value, unit: unit, headerUnit: headerUnit,
                       width: ([date, value] + [metric, unit].compactMap { $0 }).max()! + 1)
        }
        switch format {
        case .cronometer:
            // Biometrics: Day,Group,Metric,Unit,Amount (a servings export has Food Name instead).
            guard firstIndex["food name"] == nil, let date = column(["day", "date"]), let metric = column(["metric"]),
                  let amount = column(["amount"]) else { return nil }
            return plan(date, metric, amount, unit: column(["unit"]), headerUnit: nil)
        case .myFitnessPal:
            guard firstIndex["meal"] == nil, let date = column(["date"]) else { return nil }
            if let weight = column(["weight"]) {
                return plan(date, nil, weight, unit: nil, headerUnit: unitOf["weight"])
            }
            if let metric = column(["measurement", "type"]), let value = column(["value", "amount"]) {
                let key = header[value].lowercased()
                return plan(date, metric, value, unit: column(["unit"]), headerUnit: ImportValues.splitUnit(key).unit ?? unitOf[ImportValues.splitUnit(key).name])
            }
            return nil
        case .csv:
            return nil
        }
    }

    /// Kilograms per `unit` ("kg", "lbs", "pounds", "st"); nil for a unit that is not a weight.
    static func kilogramsPer(_ unit: String) -> Double? {
        switch unit.lowercased().trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ".")) {
        case "kg", "kgs", "kilogram", "kilograms": return 1
        case "lb", "lbs", "pound", "pounds": return WeightUnit.poundInKg
        case "st", "stone": return WeightUnit.poundInKg * 14
        case "g", "grams": return 0.001
        default: return nil
        }
    }

    /// "80.4", "180.5 lbs", "81,2 kg": the number and the unit written after it.
    static func weightValue(_ text: String, separator: UInt8) -> (value: Double, unit: String?)? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let cut = t.firstIndex { $0.isLetter } ?? t.endIndex
        guard let v = ImportValues.number(String(t[..<cut]), separator: separator) else { return nil }
        let unit = t[cut...].trimmingCharacters(in: .whitespaces)
        return (v, unit.isEmpty ? nil : unit)
    }

    /// Imports the weigh-ins of a weight export whose header `importFile` has read.
    func importWeighIns(_ reader: CSVReader, header: [String], plan: WeightPlan, options: ImportOptions) throws -> ImportReport {
        var report = ImportReport(format: options.format.name, dryRun: options.dryRun)
        report.weighIns = true
        for (field, i) in [("date", plan.date), ("measurement", plan.metric), ("weight", plan.value), ("unit", plan.unit)] {
            if let i { report.mappedColumns[header[i]] = field }
        }
        let known = Set([plan.date, plan.value] + [plan.metric, plan.unit].compactMap { $0 })
        for (i, h) in header.enumerated() where !known.contains(i) && !h.isEmpty && h.lowercased() != "group" {
            report.unknownColumns.append(h)
        }
        // A file without any unit is read in the person's units.
        let fallbackUnit = (try? profile().unitSystem) == .imperial ? "lb" : "kg"
        let source = "import:\(options.format.name)"
        let headerKey = header.map { $0.lowercased() }
        var found: [(day: CalendarDay, kg: Double)] = []
        while let record = try reader.next() {
            report.rowsRead += 1
            let line = record.line
            let fields = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
            func cell(_ i: Int?) -> String { i.map { $0 < fields.count ? fields[$0] : "" } ?? "" }
            func shown(_ s: String) -> String { "\"" + String(s.prefix(30)).filter { !$0.isNewline } + "\"" }
            if fields.map({ $0.lowercased() }) == headerKey {
                report.skip(line, "repeated header", "line \(line) repeats the header row (two exports joined?)")
                continue
            }
            guard record.complete else {
                report.skip(line, "cut short", "line \(line) ends inside a quoted value (the file may be truncated)")
                continue
            }
            if plan.metric != nil {
                let metric = cell(plan.metric)
                if metric.lowercased() != "weight" && metric.lowercased() != "body weight" {
                    report.otherMeasurements[String((metric.isEmpty ? "(none)" : metric).prefix(40)), default: 0] += 1
                    continue
                }
            }
            if fields.count < plan.width {
                report.skip(line, "cut short", "line \(line) has \(fields.count) of \(header.count) columns (the file may be truncated)")
                continue
            }
            let dateText = cell(plan.date)
            guard !dateText.isEmpty else { report.skip(line, "no date", "line \(line): no date"); continue }
            guard let day = ImportValues.day(dateText, dayFirst: options.dayFirst) else {
                report.skip(line, "bad date", "line \(line): \(shown(dateText)) is not a date (YYYY-MM-DD, MM/DD/YYYY or DD.MM.YYYY)")
                continue
            }
            let valueText = cell(plan.value)
            guard !valueText.isEmpty else { report.skip(line, "no weight", "line \(line): no weight"); continue }
            guard let (value, writtenUnit) = Self.weightValue(valueText, separator: reader.separator) else {
                report.skip(line, "bad weight", "line \(line): \(shown(valueText)) is not a weight")
                continue
            }
            let unitCell = cell(plan.unit)
            var unit = writtenUnit ?? (unitCell.isEmpty ? nil : unitCell) ?? plan.headerUnit
            if unit == nil { unit = fallbackUnit; report.unitAssumed = fallbackUnit }
            guard let factor = Self.kilogramsPer(unit!) else {
                report.skip(line, "bad unit", "line \(line): \(shown(unit!)) is not a weight unit (kg, lb, st)")
                continue
            }
            let kg = (value * factor).rounded(places: 3)
            guard kg.isFinite, Self.weightRange.contains(kg) else {
                report.skip(line, "out of range", "line \(line): \(value.formattedAmount) \(unit!) is not between 2 and 650 kg")
                continue
            }
            found.append((day, kg))
        }
        // Written (or, in a dry run, checked) in one transaction: one undo step for the whole file.
        func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 0.0005 }
        func run(_ db: Database) throws {
            var seen: [CalendarDay: [Double]] = [:]
            for w in found {
                if seen[w.day]?.contains(where: { same($0, w.kg) }) ?? false {
                    report.alreadyImported += 1
                    continue
                }
                seen[w.day, default: []].append(w.kg)
                if try db.row("SELECT 1 FROM journal_weights WHERE day = ? AND abs(kg - ?) < 0.0005", [w.day.description, w.kg]) != nil {
                    report.alreadyImported += 1
                    continue
                }
                let made: WeighIn
                if options.dryRun {
                    made = WeighIn(id: UUID(), day: w.day, kg: w.kg, source: source, createdAt: now())
                    if report.weightPreview.count < options.previewLimit { report.weightPreview.append(made) }
                } else {
                    made = try logWeight(kg: w.kg, day: w.day, source: source, in: db)
                }
                report.added += 1
                if report.firstDay.map({ made.day < $0 }) ?? true { report.firstDay = made.day }
                if report.lastDay.map({ made.day > $0 }) ?? true { report.lastDay = made.day }
            }
        }
        if options.dryRun { try queue.read { try run($0) } } else { try queue.write { db in try db.transaction { try run($0) } } }
        return report
    }
}
