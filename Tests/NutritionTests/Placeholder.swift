// Placeholder until the Nutrition module lands; replaced by real tests.
import Testing
