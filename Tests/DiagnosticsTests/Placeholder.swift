// Placeholder until the Diagnostics module lands; replaced by real tests.
import Testing
