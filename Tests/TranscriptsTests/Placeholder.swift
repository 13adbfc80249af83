// Placeholder until the Transcripts module lands; replaced by real tests.
import Testing
