// libFuzzer target: the .ofjt transcript parser (Sources/Transcripts/TranscriptFile.swift).
// A file that parses must also survive `replay --update`: its rewrite parses to the same steps.
import Transcripts

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranscript(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = size > 0 && data != nil ? String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) : ""
    guard let file = try? TranscriptFile.parse(text) else { return 0 }
    let rewritten = file.rewritten(actual: [:])
    guard let again = try? TranscriptFile.parse(rewritten) else { fatalError("a rewritten transcript does not parse") }
    if again.setup.map(\.directive) != file.setup.map(\.directive) || again.steps.map(\.directive) != file.steps.map(\.directive)
        || again.steps.map(\.expected) != file.steps.map(\.expected) {
        fatalError("rewriting a transcript changed its steps")
    }
    return 0
}
