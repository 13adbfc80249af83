// Issue 25 §4: decoding outran the consumer (which stores every delta), so a fast stream was
// buffered whole as events. The producer of `makeEventStream` now waits while too many are unread.
import Foundation
import Synchronization
import Testing
@testable import Providers

@Suite struct EventBackpressureTests {
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    @Test func theProducerWaitsForALaggingConsumer() async throws {
        let yielded = Count()
        let total = 100_000
        let stream = makeEventStream { out in
            // As StreamDriver does: yield a chunk's events, then let the gate hold it back.
            for _ in 0..<(total / 100) {
                for _ in 0..<100 { out.yield(.textDelta("x")) }
                yielded.value.add(100, ordering: .relaxed)
                try await EventGate.current?.produced(100)
            }
        }
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        // Not reading: the producer must stop near the high mark (wait for it to get there).
        let until = ContinuousClock.now + .seconds(20)
        while yielded.value.load(ordering: .relaxed) < EventGate.high && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(200))
        let held = yielded.value.load(ordering: .relaxed)
        #expect(held >= EventGate.high && held <= EventGate.high + 100, "produced \(held) events ahead")
        var read = 1
        while try await iterator.next() != nil { read += 1 }
        #expect(read == total)
    }

    @Test func aConsumerThatStopsNeverLeavesTheProducerWaiting() async throws {
        let finished = Count()
        do {
            let stream = makeEventStream { out in
                defer { finished.value.store(1, ordering: .relaxed) }
                while true {
                    for _ in 0..<100 { out.yield(.textDelta("x")) }
                    try await EventGate.current?.produced(100)
                }
            }
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
        } // stream and iterator released: the producer is cancelled and released
        let until = ContinuousClock.now + .seconds(20)
        while finished.value.load(ordering: .relaxed) == 0 && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(finished.value.load(ordering: .relaxed) == 1)
    }
}
