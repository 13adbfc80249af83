// Name resolution for fetch_url: one lookup per host, every answer returned so every answer can
// be checked, and the connection then pinned to a checked address.
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a DNS name to its addresses (all of them).
public protocol HostResolver: Sendable {
    func resolve(_ name: String) async throws(FetchError) -> [IPAddress]
}

/// The system resolver (`getaddrinfo`), run on its own thread; cancelling the waiting task stops
/// the wait at once (the lookup itself finishes in the background and is discarded).
public struct SystemResolver: HostResolver {
    public init() {}

    public func resolve(_ name: String) async throws(FetchError) -> [IPAddress] {
        final class Once: Sendable {
            let continuation: Mutex<CheckedContinuation<Result<[IPAddress], FetchError>, Never>?>
            init(_ c: CheckedContinuation<Result<[IPAddress], FetchError>, Never>) { continuation = Mutex(c) }
            func resume(_ result: Result<[IPAddress], FetchError>) {
                continuation.withLock { c in
                    c?.resume(returning: result)
                    c = nil
                }
            }
        }
        let box = Mutex<Once?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<[IPAddress], FetchError>, Never>) in
                let once = Once(c)
                box.withLock { $0 = once }
                if Task.isCancelled { once.resume(.failure(.cancelled)) }
                let thread = LookupThread(name: name) { once.resume($0) }
                thread.start()
            }
        } onCancel: {
            box.withLock { $0 }?.resume(.failure(.cancelled))
        }
        return try result.get()
    }

    /// Blocking lookup.
    static func lookup(_ name: String) -> Result<[IPAddress], FetchError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(.failed("could not find the host \(name) (DNS lookup failed)"))
        }
        defer { freeaddrinfo(first) }
        var out: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let sa = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET {
                    let v = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                    out.append(.v4(UInt32(bigEndian: v)))
                } else if n.pointee.ai_family == AF_INET6 {
                    var a = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    out.append(.v6(withUnsafeBytes(of: &a) { Array($0) }))
                }
            }
            node = n.pointee.ai_next
        }
        var seen = Set<IPAddress>()
        out = out.filter { seen.insert($0).inserted }
        return out.isEmpty ? .failure(.failed("the host \(name) has no address")) : .success(out)
    }
}

/// A plain pthread for one blocking getaddrinfo (Foundation's Thread is avoided: this module
/// does not need Foundation).
private final class LookupThread: @unchecked Sendable {
    let name: String
    let done: @Sendable (Result<[IPAddress], FetchError>) -> Void
    init(name: String, done: @escaping @Sendable (Result<[IPAddress], FetchError>) -> Void) {
        self.name = name
        self.done = done
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            #if canImport(Glibc)
            guard let raw else { return nil }
            #endif
            let me = Unmanaged<LookupThread>.fromOpaque(raw).takeRetainedValue()
            me.done(SystemResolver.lookup(me.name))
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<LookupThread>.fromOpaque(context).release()
            done(.failure(.failed("could not start a DNS lookup")))
        } else {
            pthread_detach(thread)
        }
    }
}
