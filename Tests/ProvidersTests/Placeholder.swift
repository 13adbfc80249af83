// Placeholder until the Providers module lands; replaced by real tests.
import Testing
