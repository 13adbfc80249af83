// The one thread that drives every libcurl transfer through a multi handle, so no Swift task
// ever blocks on the network and idle connections are reused across requests.
import CCurl
import Foundation
import Synchronization

/// libcurl's process-wide initialisation, run exactly once (Swift globals initialise lazily and
/// thread-safely) before the first multi handle exists.
private let curlGlobalInit: CURLcode = ccurl_global_init_default()

/// Owns a curl multi handle and a dedicated thread. The thread sleeps in `curl_multi_poll` until
/// a socket is ready, libcurl's own timer or one of our deadlines is due, or another thread calls
/// `curl_multi_wakeup` (new transfer or cancellation): no busy-waiting.
final class CurlEventLoop: @unchecked Sendable {
    /// Nil only if libcurl cannot start (out of memory or a broken TLS library).
    static let shared: CurlEventLoop? = CurlEventLoop()

    /// Touched only by the loop thread, apart from the thread-safe `curl_multi_wakeup`.
    private let multi: UnsafeMutableRawPointer
    private let incoming = Mutex<[CurlTransfer]>([])
    /// Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// The longest the loop sleeps with nothing to do; any event wakes it earlier.
    private static let idlePollMilliseconds: Int32 = 30_000

    private init?() {
        guard curlGlobalInit == CURLE_OK, let multi = ccurl_multi_init() else { return nil }
        self.multi = multi
        let thread = Thread { [self] in self.run() }
        thread.name = "ofj-curl"
        thread.start()
    }

    /// Hands a configured transfer to the loop thread.
    func add(_ transfer: CurlTransfer) {
        incoming.withLock { $0.append(transfer) }
        wakeup()
    }

    /// Interrupts `curl_multi_poll`; safe from any thread.
    func wakeup() {
        ccurl_multi_wakeup(multi)
    }

    // MARK: - Loop thread

    private func run() {
        nameCurrentThread("ofj-curl")
        while true {
            adoptIncoming()
            for transfer in Array(active.values) {
                if transfer.cancelRequested.load(ordering: .acquiring) {
                    finish(transfer, .cancelled)
                } else {
                    transfer.resumeIfAsked()
                }
            }
            var running: Int32 = 0
            ccurl_multi_perform(multi, &running)
            collectCompleted()

            let now = monotonicNanos()
            var next = UInt64.max
            for transfer in Array(active.values) {
                let check = transfer.checkDeadlines(now: now)
                if let expired = check.expired {
                    finish(transfer, expired)
                } else if let deadline = check.next {
                    next = min(next, deadline)
                }
            }
            var wait = Self.idlePollMilliseconds
            if next != .max {
                // Round up so we wake at or after the deadline, not just before it.
                let ms = (next - now + 999_999) / 1_000_000
                wait = Int32(min(UInt64(wait), max(ms, 1)))
            }
            // libcurl shortens the wait itself when its own timers (connect timeout, retries) are due.
            ccurl_multi_poll(multi, nil, 0, wait, nil)
        }
    }

    private func adoptIncoming() {
        let batch = incoming.withLock { pending -> [CurlTransfer] in
            let batch = pending
            pending.removeAll()
            return batch
        }
        for transfer in batch {
            guard let easy = transfer.easy else { continue }
            if transfer.cancelRequested.load(ordering: .acquiring) {
                transfer.finish(.cancelled)
                continue
            }
            transfer.started()
            guard ccurl_multi_add_handle(multi, easy) == CURLM_OK else {
                transfer.finish(.other("could not start the HTTP transfer"))
                continue
            }
            active[easy] = transfer
        }
    }

    private func collectCompleted() {
        var done: [(CurlTransfer, CURLcode)] = []
        var queued: Int32 = 0
        while let message = ccurl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy] else { continue }
            done.append((transfer, message.pointee.data.result))
        }
        // The messages are invalid once handles are removed, so finish after reading them all.
        for (transfer, code) in done {
            finish(transfer, code == CURLE_OK ? nil : transfer.error(for: code))
        }
    }

    private func finish(_ transfer: CurlTransfer, _ error: HTTPError?) {
        if let easy = transfer.easy {
            active[easy] = nil
            ccurl_multi_remove_handle(multi, easy)
        }
        transfer.finish(error)
    }
}

/// Names the calling OS thread (shown by ps, gdb and /proc). glibc's pthread_setname_np is not
/// visible to Swift without _GNU_SOURCE, so it is looked up at run time; naming is best-effort.
private func nameCurrentThread(_ name: String) {
    #if os(Linux)
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(nil, "pthread_setname_np") else { return }
    let setName = unsafeBitCast(symbol, to: SetName.self)
    _ = setName(pthread_self(), String(name.prefix(15)))
    #endif
}
