// The offline assistant and barcodes (issue 18): "scan 3017620422003" looks the product up;
// "log 1 serving of 3017620422003" looks it up and logs it with log_packaged_food.
import Base
import Foundation
import NutritionTools

extension OfflinePlanner {
    /// A barcode request: the code, and for "log …" the servings and meal.
    struct BarcodeRequest: Equatable {
        var code: String
        var log: Bool
        var servings: Double
        var meal: String?
    }

    /// "scan CODE", "look up CODE", "barcode CODE", "log CODE", "log N serving(s) of CODE [for MEAL]".
    static func barcodeRequest(_ utterance: String) -> BarcodeRequest? {
        let s = utterance.lowercased().trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ".!?")))
        let words = s.split(separator: " ").map(String.init)
        guard let code = words.last(where: { (8...14).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let first = words.first else { return nil }
        let meals = ["breakfast", "lunch", "dinner", "snack"]
        let meal = words.last.flatMap { meals.contains($0) ? $0 : nil }
        switch first {
        case "scan", "barcode", "lookup", "look":
            let rest = words.dropFirst(first == "look" ? 2 : 1)
            guard first != "look" || words.dropFirst().first == "up", Array(rest) == [code] else { return nil }
            return BarcodeRequest(code: code, log: false, servings: 1, meal: nil)
        case "log":
            // log CODE | log N serving(s) of CODE | log a serving of CODE, then optionally "for MEAL".
            var rest = Array(words.dropFirst())
            if let meal, rest.count >= 2, ["for", "at", "to"].contains(rest[rest.count - 2]), rest.last == meal { rest.removeLast(2) }
            if rest == [code] { return BarcodeRequest(code: code, log: true, servings: 1, meal: meal) }
            guard rest.count == 4, ["serving", "servings"].contains(rest[1]), rest[2] == "of", rest[3] == code else { return nil }
            let n = rest[0] == "a" || rest[0] == "one" ? 1 : Double(rest[0])
            guard let n, n > 0, n <= 100 else { return nil }
            return BarcodeRequest(code: code, log: true, servings: n, meal: meal)
        default:
            return nil
        }
    }

    func barcode(_ r: BarcodeRequest) -> OfflineStep {
        guard let lookup = state.last(.lookupBarcode) else {
            return .calls([(.lookupBarcode, ["barcode": .string(r.code)])])
        }
        if lookup.isError { return .answer("I couldn't look up \(r.code): \(lookup.errorText ?? "the lookup failed"). Nothing was logged.") }
        guard let p = lookup.content?["product"] else { return .answer("The lookup of \(r.code) gave no product. Nothing was logged.") }
        let name = [p["name"]?.stringValue, p["brand"]?.stringValue].compactMap { $0 }.joined(separator: " · ")
        let attribution = p["attribution"]?.stringValue.map { " (\($0))" } ?? ""
        let serving = p["serving"]?.stringValue
        let kcal = (p["nutrients_per_serving"]?["energy_kcal"]?.doubleValue).map { "\(format($0)) kcal per serving" }
            ?? (p.objectValue?.first { $0.key.hasPrefix("nutrients_per_100") }?.value["energy_kcal"]?.doubleValue).map { "\(format($0)) kcal per 100 g" }
        guard p["has_nutrition_data"]?.boolValue != false else {
            return .answer("\(name): \(p["origin"]?.stringValue ?? "") has no nutrition data for it, so I won't log it as zero.\(attribution)")
        }
        guard r.log else {
            let what = [serving.map { "serving \($0)" }, kcal].compactMap { $0 }.joined(separator: ", ")
            return .answer("\(name) — \(what.isEmpty ? "no serving given" : what). Say \"log 1 serving of \(r.code)\" to log it.\(attribution)")
        }
        if let done = state.last(.logPackagedFood) { return .answer(loggedAnswer(done, food: name)) }
        var args: [String: JSONValue] = ["barcode": .string(r.code), "servings": .number(r.servings)]
        if let meal = r.meal { args["meal"] = .string(meal) }
        return .calls([(.logPackagedFood, .object(args))])
    }
}
