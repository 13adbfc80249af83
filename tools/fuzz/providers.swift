// libFuzzer targets: one provider's stream decoding, compiled with -D FUZZ_GEMINI, FUZZ_CHAT,
// FUZZ_RESPONSES or FUZZ_ANTHROPIC. The input is a response body; it goes through
// StreamDecoding (SSE parser, the adapter's WireDecoder, stream-error mapping) exactly as
// StreamDriver.run feeds it, in two chunks split at a point taken from the input.
import Agent
import HTTP
@testable import Providers

/// A key the seeds quote in error messages: it must never come back in a ChatError.
let fuzzKey = "sk-fuzz-key-0123456789"

func decode<D: WireDecoder>(_ decoder: D, provider: String, _ data: UnsafePointer<UInt8>?, _ size: Int) {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let mapper = ErrorMapper(config: AdapterConfig(provider: provider, baseURL: "http://127.0.0.1:9", apiKey: fuzzKey, model: "fuzz-model"))
    var stream = StreamDecoding(decoder: decoder, mapper: mapper)
    var events: [ChatEvent] = []
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 256
    do {
        try stream.feed(bytes[..<cut]) { events.append($0) }
        if !stream.isComplete { try stream.feed(bytes[cut...]) { events.append($0) } }
        try stream.finish(status: 200) { events.append($0) }
    } catch let error as ChatError {
        if error.message.contains(fuzzKey) { fatalError("the API key leaked into an error message") }
    } catch {
        fatalError("the stream threw \(type(of: error)), not a ChatError")
    }
    // What the runner does next with each call.
    for case .toolCall(let call) in events { _ = try? call.parsedArguments() }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProviderStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    #if FUZZ_GEMINI
    decode(GeminiDecoder(), provider: "gemini", data, size)
    #elseif FUZZ_CHAT
    decode(ChatCompletionsDecoder(), provider: "openai-chat", data, size)
    #elseif FUZZ_RESPONSES
    decode(ResponsesDecoder(family: "openai-responses", declaredTools: ["get_journal_day", "log_food"]), provider: "openai", data, size)
    #elseif FUZZ_ANTHROPIC
    decode(AnthropicDecoder(), provider: "anthropic", data, size)
    #else
    #error("compile with -D FUZZ_GEMINI, FUZZ_CHAT, FUZZ_RESPONSES or FUZZ_ANTHROPIC")
    #endif
    return 0
}
