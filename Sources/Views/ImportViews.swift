// `ofj import`'s report for people: what was (or would be) added, skipped and why, and the
// columns that were not read.
import Journal
import Nutrition

public enum ImportViews {
    /// "1,234 rows" / "1 row".
    static func count(_ n: Int, _ one: String, _ many: String) -> String {
        var digits = String(n)
        var grouped = ""
        while digits.count > 3 { grouped = "," + digits.suffix(3) + grouped; digits.removeLast(3) }
        return "\(digits + grouped) \(n == 1 ? one : many)"
    }

    /// What an import did (or would do): what was added, skipped and why, and the columns not read.
    public static func report(_ r: ImportReport) -> String {
        let source = formatName(r.format)
        var lines = ["\(r.dryRun ? "Dry run: nothing was written. " : "")Import from \(source): \(count(r.rowsRead, "row", "rows")) read"]
        var added = "  \(r.dryRun ? "would add" : "added"): \(r.weighIns ? count(r.added, "weigh-in", "weigh-ins") : count(r.added, "entry", "entries"))"
        if let a = r.firstDay, let b = r.lastDay { added += a == b ? " on \(a)" : " from \(a) to \(b)" }
        lines.append(added)
        if r.alreadyImported > 0 {
            lines.append(r.weighIns ? "  already in the journal (same day and kg, skipped): \(count(r.alreadyImported, "weigh-in", "weigh-ins"))"
                         : "  already imported (skipped): \(count(r.alreadyImported, "row", "rows"))")
        }
        if let u = r.unitAssumed { lines.append("  weights without a unit read as \(u) (the profile's units)") }
        if !r.otherMeasurements.isEmpty {
            lines.append("  other measurements (not read): " + r.otherMeasurements.sorted { $0.key < $1.key }.map { "\(JournalViews.safeName($0.key)) (\($0.value))" }.joined(separator: ", "))
        }
        if r.skipped > 0 {
            let kinds = r.skippedByReason.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("  skipped: \(count(r.skipped, "row", "rows")) (\(kinds))")
            for s in r.skippedRows { lines.append("    " + JournalViews.safeName(s.reason)) }
            if r.skipped > r.skippedRows.count { lines.append("    … and \(r.skipped - r.skippedRows.count) more (--json lists the first \(r.skippedRows.count) too)") }
        }
        if r.amountsNotRead > 0 { lines.append("  amounts not read (logged as 1 serving): \(r.amountsNotRead)") }
        if !r.otherMeals.isEmpty {
            lines.append("  logged as snack: " + r.otherMeals.sorted { $0.key < $1.key }.map { "\(JournalViews.safeName($0.key)) (\($0.value))" }.joined(separator: ", "))
        }
        // Grouped by reason: "not a nutrient ofj tracks: Net Carbs (g), Omega-3 (g)".
        var reasons: [String] = []
        var columns: [String: [String]] = [:]
        for u in r.unmappedNutrients {
            if columns[u.reason] == nil { reasons.append(u.reason) }
            columns[u.reason, default: []].append(JournalViews.safeName(u.column))
        }
        for reason in reasons {
            lines.append("  nutrients not imported, \(reason): " + (columns[reason] ?? []).joined(separator: ", "))
        }
        if !r.unknownColumns.isEmpty {
            lines.append("  unknown columns (not read): " + r.unknownColumns.map { JournalViews.safeName($0) }.joined(separator: ", "))
        }
        if r.dryRun && !r.preview.isEmpty {
            lines.append("  first entries it would add:")
            for e in r.preview { lines.append("    \(e.day) \(e.meal.rawValue)  " + JournalViews.entryLine(e)) }
            if r.added > r.preview.count { lines.append("    … and \(count(r.added - r.preview.count, "more", "more"))") }
        }
        if r.dryRun && !r.weightPreview.isEmpty {
            lines.append("  first weigh-ins it would add:")
            for w in r.weightPreview { lines.append("    \(w.day)  \(w.kg.rounded(places: 2).formattedAmount) kg") }
            if r.added > r.weightPreview.count { lines.append("    … and \(count(r.added - r.weightPreview.count, "more", "more"))") }
        }
        return lines.joined(separator: "\n")
    }

    /// "Cronometer", "MyFitnessPal" or "CSV" for an import format's name.
    public static func formatName(_ name: String) -> String {
        switch name {
        case "cronometer": return "Cronometer"
        case "myfitnesspal": return "MyFitnessPal"
        default: return "CSV"
        }
    }
}
