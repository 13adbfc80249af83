// Placeholder until the Journal module lands; replaced by real tests.
import Testing
