// The real HTTPTransport: libcurl (multi interface, one shared loop thread), streaming bodies.
import CCurl
import Synchronization

/// Sends requests with libcurl and streams the response body as it arrives.
///
/// - `send` returns once the status line and all headers are in (`HTTPResponseHead`).
/// - The body stream yields chunks as libcurl receives them and ends with `HTTPError` on failure.
///   When the consumer lags by more than 4 MB the transfer is paused until it is below 1 MB
///   (a server writing at full speed waits instead of filling the memory; the idle timeout does
///   not run while paused). Use `collect(limit:)` for whole bodies.
/// - Timeouts: `connect` (DNS + TCP + TLS) → `.connectTimeout`; `firstByte` from the moment the
///   request is sent until the response head → `.firstByteTimeout`; `idle`, the longest silence
///   after the head → `.idleTimeout`. A value of zero or less disables that timeout.
/// - Cancelling the task waiting in `send` or the task iterating the body, or releasing the
///   response (stream and iterator) before the end, aborts the transfer and closes its connection
///   within milliseconds. A cancelled iteration simply ends (AsyncThrowingStream semantics);
///   check `Task.isCancelled`.
/// - TLS peer and host verification are always on; proxies come from the standard environment
///   variables (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`), except that loopback hosts
///   are always reached directly. Redirects are not followed. Connections are reused.
/// - Errors never contain request headers, bodies or the URL's query string.
/// A class so callbacks can hold it (an `Atomic` cannot be captured).
final class AtomicCounter: Sendable {
    let value = Atomic<Int>(0)
}

public final class CurlTransport: HTTPTransport {
    private let inFlight = AtomicCounter()
    private let peakBuffered = AtomicCounter()

    public init() {}

    /// Transfers this transport has started that have not finished yet.
    public var activeTransfers: Int { inFlight.value.load(ordering: .acquiring) }

    /// The most body bytes any transfer of this transport held for a consumer that lagged (the
    /// backpressure keeps it near 4 MB).
    public var peakBufferedBytes: Int { peakBuffered.value.load(ordering: .acquiring) }

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        if Task.isCancelled { throw HTTPError.cancelled }
        // libcurl is loaded on first use (see CCurl/shim.h); say plainly when it cannot be.
        guard ccurl_available() == 1 else {
            throw HTTPError.other("libcurl could not be loaded; install the Debian package libcurl4 (or libcurl4-openssl-dev)")
        }
        guard let loop = CurlEventLoop.shared else {
            throw HTTPError.other("HTTP is unavailable: libcurl failed to initialise")
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let transfer = try CurlTransfer(request: request, loop: loop, body: continuation, peak: peakBuffered) { [inFlight] in
            inFlight.value.subtract(1, ordering: .acquiringAndReleasing)
        }
        inFlight.value.add(1, ordering: .acquiringAndReleasing)
        continuation.onTermination = { [weak transfer] termination in
            // The consumer stopped listening (task cancelled or iterator dropped): stop the wire.
            if case .cancelled = termination { transfer?.requestCancel() }
        }
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (resume: CheckedContinuation<HTTPResponseHead, Error>) in
                transfer.headContinuation = resume
                loop.add(transfer)
            }
        } onCancel: {
            transfer.requestCancel()
        }
        // Every chunk the consumer takes is counted, for the backpressure above.
        let reader = BodyReader(stream.makeAsyncIterator(), transfer: transfer)
        return HTTPStreamingResponse(head: head, body: AsyncThrowingStream(unfolding: { try await reader.next() }))
    }

    /// Reads the transfer's body stream for one consumer (never two at once, as with any
    /// iterator), telling the transfer what was taken.
    private final class BodyReader: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<[UInt8], Error>.AsyncIterator
        private let transfer: CurlTransfer
        init(_ iterator: AsyncThrowingStream<[UInt8], Error>.AsyncIterator, transfer: CurlTransfer) {
            self.iterator = iterator
            self.transfer = transfer
        }
        func next() async throws -> [UInt8]? {
            let chunk = try await iterator.next()
            if let chunk { transfer.consumed(chunk.count) }
            return chunk
        }
    }
}
