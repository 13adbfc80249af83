// SSE parse + JSON decode throughput per provider wire format; compiled with -O together with
// Sources/HTTP/SSEParser.swift and Sources/Agent/JSONValue.swift by tools/bench/sse-decode.
import Foundation

/// One representative streamed event per wire format (shapes as in /work/shared/fixtures/providers).
let formats: [(name: String, event: String?, data: String)] = [
    ("gemini", nil, #"{"candidates":[{"content":{"parts":[{"text":"The sum of 2 and 3 is 5, and their product is 6 and some more words"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":211,"candidatesTokenCount":12,"totalTokenCount":223},"modelVersion":"gemini-2.5-flash"}"#),
    ("openai-chat", nil, #"{"id":"chatcmpl-Bx9","object":"chat.completion.chunk","created":1764400000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_07871e2ad8","choices":[{"index":0,"delta":{"content":" and their product is 6"},"logprobs":null,"finish_reason":null}]}"#),
    ("openai-responses", "response.output_text.delta", #"{"type":"response.output_text.delta","sequence_number":42,"item_id":"msg_68c1f0a2b3","output_index":1,"content_index":0,"delta":" and their product is 6","logprobs":[],"obfuscation":"AbCdEf"}"#),
    ("anthropic", "content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" and their product is 6 and some more words"}}"#),
]
let eventsPerStream = 200_000
let chunkSize = 1_460
let runs = 7

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

for format in formats {
    var stream: [UInt8] = []
    stream.reserveCapacity(eventsPerStream * (format.data.utf8.count + 40))
    let line = (format.event.map { "event: \($0)\n" } ?? "") + "data: \(format.data)\n\n"
    for _ in 0..<eventsPerStream { stream += Array(line.utf8) }
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < stream.count {
        let end = min(offset + chunkSize, stream.count)
        chunks.append(stream[offset..<end])
        offset = end
    }
    var parseOnly: [Double] = [], decoded: [Double] = []
    for _ in 0..<runs {
        var parser = SSEParser()
        var count = 0
        var start = DispatchTime.now().uptimeNanoseconds
        for chunk in chunks { count += parser.feed(chunk).count }
        count += parser.finish().count
        precondition(count == eventsPerStream, "wrong event count \(count)")
        parseOnly.append(Double(stream.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) / 1e6)

        parser = SSEParser()
        var values = 0
        start = DispatchTime.now().uptimeNanoseconds
        for chunk in chunks {
            for event in parser.feed(chunk) {
                do {
                    if case .object = try JSONValue.parse(event.data) { values += 1 }
                } catch {
                    fatalError("undecodable event: \(error)")
                }
            }
        }
        precondition(values == eventsPerStream, "wrong value count \(values)")
        decoded.append(Double(stream.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) / 1e6)
    }
    print(format.name.padding(toLength: 17, withPad: " ", startingAt: 0)
          + String(format: "%3d MB of SSE in %d-byte chunks: parse median %5.0f MB/s, parse + JSON decode median %5.0f MB/s (%d runs)",
                   stream.count / 1_000_000, chunkSize, median(parseOnly), median(decoded), runs))
}
