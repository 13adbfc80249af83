// Errors from the nutrition domain: one line each, naming the field and what to do.
import Base

public enum NutritionError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownUnit(String)
    case impossibleConversion(from: String, to: String)
    case invalidQuantity(field: String, value: Double)
    case invalidNutrientID(String)
    case invalidNutrientAmount(id: String, value: Double)
    case invalidText(field: String, reason: String)
    /// A day that is not YYYY-MM-DD: Base's `InvalidDate` as the journal and the tools report it.
    case invalidDate(String)
    case invalidTime(String)
    case unknownMeal(String)
    case unknownIngredient(String)
    case unknownPortion(ingredient: String, portion: String)
    case duplicateIngredient(String)
    case emptyBuild
    case invalidFood(String)

    public var description: String {
        switch self {
        case .unknownUnit(let u):
            return "unknown unit \"\(u)\": use g, oz, kg, lb, mL, L, cup, tbsp, tsp, fl oz, or a count such as serving, piece, slice"
        case .impossibleConversion(let from, let to):
            return "cannot convert \(from) to \(to): add the food's weight in grams for that measure (e.g. \"1 cup = 244 g\")"
        case .invalidQuantity(let field, let value):
            return "\(field) must be a positive finite number, got \(value)"
        case .invalidNutrientID(let id):
            return "invalid nutrient id \"\(id)\": use a short name such as protein_g"
        case .invalidNutrientAmount(let id, let value):
            return "nutrient \(id) must be a finite number of zero or more, got \(value)"
        case .invalidText(let field, let reason):
            return "\(field) \(reason)"
        case .invalidDate(let s):
            return InvalidDate(s).description
        case .invalidTime(let s):
            return "invalid time \"\(s)\": use HH:MM between 00:00 and 23:59"
        case .unknownMeal(let m):
            return "unknown meal \"\(m)\": use breakfast, lunch, dinner or snack"
        case .unknownIngredient(let i):
            return "unknown ingredient \"\(i)\": pick one of the calculator's ingredients"
        case .unknownPortion(let ingredient, let portion):
            return "unknown portion \"\(portion)\" for \(ingredient): pick one of its named portions"
        case .duplicateIngredient(let i):
            return "ingredient \"\(i)\" chosen twice: pick one portion per ingredient"
        case .emptyBuild:
            return "a build needs at least one ingredient: choose a portion for one or more ingredients"
        case .invalidFood(let reason):
            return "invalid food: \(reason)"
        }
    }
}
