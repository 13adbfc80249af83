// Results that fit: read tools page long lists so a result never reaches the tool-result cap.
import Base
import Journal
import Nutrition

enum Paging {
    /// A whole result (the page and the fields around it) stays under this; the cap is 16 KiB.
    static let byteBudget = 16 * 1024 - 512

    static let offsetSchema: JSONValue = ["type": "integer", "minimum": 0,
                                          "description": "next_offset of the previous page."]

    /// The largest page of `items` from `offset` (at most `limit` long) whose result, built by
    /// `build(page, nextOffset)`, serializes within the budget; `nextOffset` is nil on the last page.
    static func fit(_ items: [JSONValue], offset: Int, limit: Int, budget: Int = byteBudget,
                    build: ([JSONValue], Int?) -> JSONValue) -> JSONValue {
        let start = min(max(0, offset), items.count)
        var count = min(limit, items.count - start)
        while true {
            let end = start + count
            let next = end < items.count ? end : nil
            let json = build(Array(items[start..<end]), next)
            if count <= 1 || json.serialized.utf8.count <= budget { return json }
            // Shrink in proportion to the overshoot, at least by one.
            let size = json.serialized.utf8.count
            count = max(1, min(count - 1, count * budget / max(size, 1)))
        }
    }

    /// Nutrient ids to show: the macros plus any the caller asked for.
    static func shown(_ requested: [String]?) -> Set<String> {
        Set(NutrientCatalog.coreIDs).union(requested ?? [])
    }

    /// One entry, compact: id, name, amount, and only the `shown` nutrients (ids as keys, one
    /// decimal: what a person reads; `entry_id` gives the exact values).
    static func entry(_ e: Entry, shown: Set<String>) -> JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(e.id.uuidString),
            "name": .string(Text.clean(e.name, max: 120)),
            "amount": .string(Text.serving(e.serving, servings: e.servings)),
        ]
        for (id, value) in e.totalNutrients where shown.contains(id) { o[id] = .number((value * 10).rounded() / 10) }
        // Shown values derived by USDA's rules (vitamin D from IU, folate DFE), not reported.
        let derived = (e.derivedNutrients ?? []).filter { shown.contains($0) && e.nutrients.values[$0] != nil }
        if !derived.isEmpty { o["derived"] = .array(derived.map { .string($0) }) }
        if let b = e.brand { o["brand"] = .string(Text.clean(b, max: 60)) }
        return .object(o)
    }
}
