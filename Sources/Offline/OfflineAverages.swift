// How the offline assistant says what a range average is over: the logged days that report the
// nutrient, named when some logged days do not ("over the 3 of 4 logged days that report it").
import Base

extension OfflinePlanner {
    /// The days an average of `nutrient` divides by, from get_journal_range's `reporting_days`
    /// (listed only for nutrients some logged days lack).
    func reportingDays(_ content: JSONValue, _ nutrient: String, logged: Int) -> Int {
        content["reporting_days"]?[nutrient]?.doubleValue.map { Int($0) } ?? logged
    }

    /// "over 4 logged days" or "over the 3 of 4 logged days that report it".
    func averageBasis(_ content: JSONValue, _ nutrient: String, logged: Int) -> String {
        let n = reportingDays(content, nutrient, logged: logged)
        if n < logged { return "over the \(n) of \(logged) logged days that report it" }
        return "over \(logged) logged \(logged == 1 ? "day" : "days")"
    }

    /// A sentence for the macros some logged days do not report, or "" when every day reports them.
    func partialAverages(_ content: JSONValue, logged: Int) -> String {
        let parts: [(String, String, String)] = [("energy_kcal", "calories", " kcal"), ("protein_g", "protein", " g"),
                                                 ("carbohydrate_g", "carbs", " g"), ("fat_g", "fat", " g")]
        let notes = parts.compactMap { id, name, unit -> String? in
            let n = reportingDays(content, id, logged: logged)
            guard n < logged, n > 0, let avg = content["daily_averages"]?[id]?.doubleValue else { return nil }
            return "\(name): \(format(avg))\(unit) a day over the \(n) of \(logged) logged days that report it"
        }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }
}
