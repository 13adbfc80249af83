// Placeholder until the HTTP module lands; replaced by real tests.
import Testing
