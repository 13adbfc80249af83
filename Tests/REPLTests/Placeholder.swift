// Placeholder until the REPL module lands; replaced by real tests.
import Testing
