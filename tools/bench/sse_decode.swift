// SSE parse and decode throughput per provider wire format, through the product's own code:
// Sources/HTTP/SSEParser.swift and each adapter's WireDecoder (Sources/Providers), built with
// `swift build -c release` by tools/bench/sse-decode. Three figures per format, measured in the
// same run: the SSE parser alone; SSE + the real decoder (what StreamDriver runs for a response,
// ChatEvents out); and SSE + a whole JSONValue tree per event (how events were decoded before
// JSONDocument, for comparison).
import Foundation
import Agent
import HTTP
@testable import Providers

struct Format {
    var name: String
    var prologue: String   // events that open the stream (Anthropic's content block)
    var event: String?     // the `event:` name of the repeated event
    var data: String       // one representative text delta (shapes as in /work/shared/fixtures/providers)
    var epilogue: String   // the terminal events
    var decoder: () -> any WireDecoder
}

let formats: [Format] = [
    Format(name: "gemini", prologue: "", event: nil,
           data: #"{"candidates":[{"content":{"parts":[{"text":"The sum of 2 and 3 is 5, and their product is 6 and some more words"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":211,"candidatesTokenCount":12,"totalTokenCount":223},"modelVersion":"gemini-2.5-flash"}"#,
           epilogue: "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\n\n",
           decoder: { GeminiDecoder() }),
    Format(name: "openai-chat", prologue: "", event: nil,
           data: #"{"id":"chatcmpl-Bx9","object":"chat.completion.chunk","created":1764400000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_07871e2ad8","choices":[{"index":0,"delta":{"content":" and their product is 6"},"logprobs":null,"finish_reason":null}]}"#,
           epilogue: "data: {\"id\":\"chatcmpl-Bx9\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
           decoder: { ChatCompletionsDecoder() }),
    Format(name: "openai-responses", prologue: "", event: "response.output_text.delta",
           data: #"{"type":"response.output_text.delta","sequence_number":42,"item_id":"msg_68c1f0a2b3","output_index":1,"content_index":0,"delta":" and their product is 6","logprobs":[],"obfuscation":"AbCdEf"}"#,
           epilogue: "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"output\":[]}}\n\n",
           decoder: { ResponsesDecoder(family: "openai-responses") }),
    Format(name: "anthropic",
           prologue: "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
           event: "content_block_delta",
           data: #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" and their product is 6 and some more words"}}"#,
           epilogue: "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
           decoder: { AnthropicDecoder() }),
]
let eventsPerStream = Int(ProcessInfo.processInfo.environment["EVENTS"] ?? "") ?? 200_000
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 7
let chunkSize = 1_460

// Since the parser lends events (SSEEventView, no String per event) the product feeds them with a
// closure; older checkouts measured through OFJ_SRC return [SSEEvent] (tools/bench/sse-decode
// defines OFJ_SSE_VIEW when the source tree has the lending API).
#if OFJ_SSE_VIEW
typealias Event = SSEEventView
func parseTree(_ event: Event) -> JSONValue? { try? JSONValue.parse(buffer: event.data) }
func feed(_ parser: inout SSEParser, _ chunk: ArraySlice<UInt8>, _ body: (Event) throws -> Void) rethrows {
    try parser.feed(chunk, onEvent: body)
}
func finish(_ parser: inout SSEParser, _ body: (Event) throws -> Void) rethrows { try parser.finish(onEvent: body) }
#else
typealias Event = SSEEvent
func parseTree(_ event: Event) -> JSONValue? { try? JSONValue.parse(event.data) }
func feed(_ parser: inout SSEParser, _ chunk: ArraySlice<UInt8>, _ body: (Event) throws -> Void) rethrows {
    for event in parser.feed(chunk) { try body(event) }
}
func finish(_ parser: inout SSEParser, _ body: (Event) throws -> Void) rethrows {
    for event in parser.finish() { try body(event) }
}
#endif

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
func mbPerSecond(_ bytes: Int, since start: UInt64) -> Double {
    Double(bytes) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) / 1e6
}

for format in formats {
    var stream = Array(format.prologue.utf8)
    let line = Array(((format.event.map { "event: \($0)\n" } ?? "") + "data: \(format.data)\n\n").utf8)
    stream.reserveCapacity(eventsPerStream * line.count + 1_000)
    for _ in 0..<eventsPerStream { stream += line }
    stream += Array(format.epilogue.utf8)
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < stream.count {
        let end = min(offset + chunkSize, stream.count)
        chunks.append(stream[offset..<end])
        offset = end
    }
    var parseOnly: [Double] = [], decoded: [Double] = [], tree: [Double] = []
    for _ in 0..<runs {
        var parser = SSEParser()
        var count = 0
        var start = DispatchTime.now().uptimeNanoseconds
        for chunk in chunks { feed(&parser, chunk) { _ in count += 1 } }
        finish(&parser) { _ in count += 1 }
        parseOnly.append(mbPerSecond(stream.count, since: start))
        precondition(count >= eventsPerStream, "wrong event count \(count)")

        // The product path: SSE events into the adapter's decoder, ChatEvents out.
        parser = SSEParser()
        var decoder = format.decoder()
        var texts = 0
        start = DispatchTime.now().uptimeNanoseconds
        do {
            for chunk in chunks {
                try feed(&parser, chunk) { event in
                    for case .textDelta in try decoder.decode(event) { texts += 1 }
                }
            }
            try finish(&parser) { _ = try decoder.decode($0) }
            _ = try decoder.finish()
        } catch {
            fatalError("\(format.name): the decoder refused the stream: \(error)")
        }
        decoded.append(mbPerSecond(stream.count, since: start))
        precondition(texts == eventsPerStream, "\(format.name): \(texts) text deltas, expected \(eventsPerStream)")

        // Before JSONDocument: a JSONValue tree per event (then read the same way).
        parser = SSEParser()
        var values = 0
        start = DispatchTime.now().uptimeNanoseconds
        for chunk in chunks {
            feed(&parser, chunk) { event in
                if parseTree(event)?.objectValue != nil { values += 1 }
            }
        }
        tree.append(mbPerSecond(stream.count, since: start))
        precondition(values >= eventsPerStream, "wrong value count \(values)")
    }
    print(format.name.padding(toLength: 17, withPad: " ", startingAt: 0)
          + String(format: "%3d MB in %d-byte chunks, median of %d: SSE parse %5.0f MB/s | SSE + decoder (ChatEvents) %4.0f MB/s | SSE + JSONValue tree %4.0f MB/s",
                   stream.count / 1_000_000, chunkSize, runs, median(parseOnly), median(decoded), median(tree)))
}
