// A part of the program built the first time it is asked for (issue 39: a command pays only for
// what it uses): the packaged-food client of lookup_barcode and search_packaged_foods, and the
// composition root's clients that a text-only turn never needs.
import Synchronization

/// A value made by `make` on the first read of `value`, once, then shared; safe between tasks.
/// `isLoaded` tells whether it has been made, so a test can check that a path never built it.
public final class OnFirstUse<Value: Sendable>: Sendable {
    private let state = Mutex<Value?>(nil)
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// An already made value (nothing left to defer), for callers that have one at hand.
    public convenience init(made value: Value) {
        self.init { value }
        _ = self.value
    }

    /// The value; the first read makes it (other readers wait for that one).
    public var value: Value {
        state.withLock { state in
            if let made = state { return made }
            let made = make()
            state = made
            return made
        }
    }

    public var isLoaded: Bool { state.withLock { $0 != nil } }
}
