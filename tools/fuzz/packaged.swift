// libFuzzer target: the Open Food Facts product mapper (nutriments with numbers, strings like
// "1,5" or "<0.5", junk), the serving-size parser and the FDC mapper. Besides crashing, it fails
// when a mapped amount is negative or not finite, when a product with nothing reported claims
// nutrition, or when a parsed serving has a non-positive quantity or weight.
import Foundation
import Nutrition
import PackagedFoods

func checkAmounts(_ n: NutrientAmounts, _ what: String) {
    for (id, v) in n where !(v.isFinite && v >= 0) { fatalError("\(what): \(id) = \(v)") }
}

func checkProduct(_ p: PackagedProduct) {
    checkAmounts(p.per100, "per 100")
    checkAmounts(p.perServing, "per serving")
    if p.per100.isEmpty && p.perServing.isEmpty && p.hasNutrition { fatalError("nothing reported but hasNutrition") }
    if let s = p.serving { checkServing(s) }
    guard (try? JSONDecoder().decode(PackagedProduct.self, from: JSONEncoder().encode(p))) == p else {
        fatalError("a product does not survive the cache's JSON round trip")
    }
}

func checkServing(_ s: ServingSize) {
    guard s.quantity.isFinite, s.quantity > 0, (s.grams ?? 1) > 0, (s.milliliters ?? 1) > 0 else {
        fatalError("serving \(s) is not positive")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackaged(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Data(bytes: data!, count: size) : Data()
    // The text itself as a serving size and as a label number.
    let text = String(decoding: bytes.prefix(200), as: UTF8.self)
    if let s = ServingSizeParser.parse(text) { checkServing(s) }
    if let n = LabelNumber.parse(text: text), !(n.value.isFinite && n.value >= 0) { fatalError("label number \(n.value)") }
    guard let object = try? JSONSerialization.jsonObject(with: bytes), let dict = object as? [String: Any] else { return 0 }
    let product = (dict["product"] as? [String: Any]) ?? dict
    checkProduct(OFFMapping.product(product, code: "3017620422003"))
    if let nutriments = product["nutriments"] as? [String: Any] {
        for suffix in ["_100g", "_serving"] { checkAmounts(OFFMapping.nutrients(nutriments, suffix: suffix).amounts, suffix) }
    }
    if let p = FDCMapping.product(dict) { checkProduct(p) }
    for food in dict["foods"] as? [[String: Any]] ?? [] { if let p = FDCMapping.product(food) { checkProduct(p) } }
    return 0
}
