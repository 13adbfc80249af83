// Placeholder until the NutritionTools module lands; replaced by real tests.
import Testing
