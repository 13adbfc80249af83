// SSE parser throughput benchmark: compiled with -O together with Sources/HTTP/SSEParser.swift by tools/bench/sse-throughput.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds used by this thread: unlike wall time, not inflated when other processes share the cores.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let payload = #"{"candidates": [{"content": {"parts": [{"text": "The sum of 2 and 3 is 5, and their product is 6 and some more words"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 211}}"#
var stream: [UInt8] = []
for i in 0..<200_000 {
    stream += Array("event: message\r\ndata: \(payload)\r\n\r\n".utf8)
    if i % 10 == 0 { stream += Array(": keepalive\n\n".utf8) }
}
for size in [16_384, 1_460, 64] {
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < stream.count {
        let end = min(offset + size, stream.count)
        chunks.append(stream[offset..<end])
        offset = end
    }
    var bestWall = 0.0
    var bestCPU = 0.0
    for _ in 0..<5 {
        var parser = SSEParser()
        var count = 0
        let start = Date()
        let cpuStart = threadCPUSeconds()
        for chunk in chunks { count += parser.feed(chunk).count }
        count += parser.finish().count
        let seconds = Date().timeIntervalSince(start)
        let cpu = threadCPUSeconds() - cpuStart
        precondition(count == 200_000, "wrong event count \(count)")
        bestWall = max(bestWall, Double(stream.count) / seconds / 1e6)
        bestCPU = max(bestCPU, Double(stream.count) / cpu / 1e6)
    }
    print("chunks of \(size) B: \(stream.count / 1_000_000) MB of SSE, best of 5: \(Int(bestWall)) MB/s wall, \(Int(bestCPU)) MB/s per CPU second")
}
