// The text people see for a packaged product: a card with source, name, brand, barcode, portion
// and nutrients, and one-line search results. Product text comes from strangers: callers
// sanitise the whole output for the terminal as they do every outside text.
import Base
import Foundation
import Nutrition

public enum PackagedText {
    /// "from Open Food Facts", "from cache, fetched 2026-12-01", "from your Food Bank".
    public static func origin(_ origin: AnswerOrigin, source: PackagedSource) -> String {
        switch origin {
        case .network: return source.displayName
        case .cache(let at): return "\(source.displayName), from cache, fetched \(day(at))"
        case .foodBank: return "your Food Bank"
        }
    }

    /// The UTC date of `d` as YYYY-MM-DD (no DateFormatter: loading ICU shows in start-up time).
    static func day(_ d: Date) -> String {
        let n = Int((d.timeIntervalSince1970 / 86_400).rounded(.down))
        return (try? CalendarDay(dayNumber: n))?.description ?? "an unknown date"
    }

    /// The heading lines of a product: name and brand, barcode and source, serving and package.
    public static func heading(_ p: PackagedProduct, origin: AnswerOrigin) -> [String] {
        var lines = [p.name + (p.brand.map { " · \($0)" } ?? "")]
        var ids: [String] = []
        if let b = p.barcode { ids.append("barcode \(b)") }
        if p.source == .foodDataCentral { ids.append("FDC \(p.id)" + (p.dataType.map { " (\($0))" } ?? "")) }
        ids.append(PackagedText.origin(origin, source: p.source))
        lines.append("  " + ids.joined(separator: " · "))
        var sizes: [String] = []
        if p.servingIsUnread {
            sizes.append("serving " + (p.servingText.map { "\"\($0)\" (not understood; " } ?? "(not given; ") + "values per 1 serving, logged as \"1 serving\")")
        } else if let s = p.serving { sizes.append("serving \(s.label)") } else if let t = p.servingText { sizes.append("serving \"\(t)\" (not understood)") }
        if let q = p.packageQuantity { sizes.append("package \(q.formattedAmount) \(p.per100Unit == "ml" ? "mL" : "g")") }
        if !sizes.isEmpty { lines.append("  " + sizes.joined(separator: " · ")) }
        return lines
    }

    /// "9.5 g", "<0.5 g", "440 mg*".
    static func amount(_ p: PackagedProduct, _ id: String, _ v: Double) -> String {
        let unit = NutrientCatalog.nutrient(id)?.unit.rawValue ?? ""
        let n = v >= 100 ? v.rounded(places: 0) : v >= 10 ? v.rounded(places: 1) : v.rounded(places: 2)
        return (p.atMost.contains(id) ? "<" : "") + "\(n.formattedAmount) \(unit)" + (p.derived.contains(id) ? "*" : "")
    }

    /// A nutrient table with up to three columns (per 100, per serving, and the portion logged).
    public static func nutrientTable(_ p: PackagedProduct, portion: PackagedPortion? = nil) -> [String] {
        guard p.hasNutrition else { return ["  no nutrition data in \(p.source.displayName) for this product"] }
        var columns: [(String, NutrientAmounts)] = []
        if !p.per100.isEmpty { columns.append(("per 100 \(p.per100Unit == "ml" ? "mL" : "g")", p.per100)) }
        if !p.perServing.isEmpty, p.serving != nil { columns.append(("per serving", p.perServing)) }
        if let portion { columns.append((portion.label.count <= 24 ? portion.label : "this portion", portion.total)) }
        let ids = NutrientCatalog.sorted(Set(columns.flatMap { $0.1.ids }))
        let nameWidth = max(12, ids.map { NutrientCatalog.displayName($0).count }.max() ?? 0)
        let widths = columns.map { col in max(col.0.count, ids.map { id in col.1[id].map { amount(p, id, $0).count } ?? 1 }.max() ?? 1) }
        func row(_ name: String, _ cells: [String]) -> String {
            var s = "  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            for (cell, w) in zip(cells, widths) { s += "  " + String(repeating: " ", count: max(0, w - cell.count)) + cell }
            return s
        }
        var lines = [row("", columns.map(\.0))]
        for id in ids { lines.append(row(NutrientCatalog.displayName(id), columns.map { c in c.1[id].map { amount(p, id, $0) } ?? "–" })) }
        var notes: [String] = []
        if p.derived.contains("sodium_mg") { notes.append("sodium computed from salt ÷ 2.5") }
        if p.derived.contains("energy_kcal") { notes.append("kcal computed from kJ ÷ 4.184") }
        if !notes.isEmpty { lines.append("  * " + notes.joined(separator: "; ")) }
        if !p.atMost.isEmpty { lines.append("  < the label gives an upper bound; ofj records the bound") }
        if ids.contains(where: { id in columns.contains { $0.1[id] == nil } }) { lines.append("  – not reported") }
        return lines
    }

    /// The whole card of one product.
    public static func card(_ p: PackagedProduct, origin: AnswerOrigin, portion: PackagedPortion? = nil) -> String {
        (heading(p, origin: origin) + nutrientTable(p, portion: portion)).joined(separator: "\n")
    }

    /// One search result line: "3029330003533  Crousti … · Jacquet — 246 kcal/100 g".
    public static func resultLine(_ p: PackagedProduct) -> String {
        let id = p.source == .openFoodFacts ? (p.barcode ?? p.id) : "fdc:\(p.id)"
        let kcal = p.hasNutrition ? (p.per100["energy_kcal"].map { "\($0.rounded(places: 1).formattedAmount) kcal/100 \(p.per100Unit == "ml" ? "mL" : "g")" } ?? "kcal not reported") : "no nutrition data"
        let type = p.dataType.map { " [\($0)]" } ?? ""
        return "\(id)  \(p.name)\(p.brand.map { " · \($0)" } ?? "")\(type) — \(kcal)"
    }

    /// The attribution lines owed for the sources shown (each once).
    public static func attribution(_ sources: [PackagedSource]) -> [String] {
        var seen = Set<PackagedSource>()
        return sources.compactMap { s in seen.insert(s).inserted ? s.attribution : nil }
    }
}
