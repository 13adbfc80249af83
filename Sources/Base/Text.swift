// Small text helpers for fixed-width figures (dates, times, hex), shared by every module that
// writes them.

/// `value` in decimal, left-padded with zeros to `width` characters ("7" → "07" for width 2).
public func zeroPadded(_ value: some BinaryInteger, width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

extension Double {
    /// The nearest Int, clamped to Int's range; NaN is 0. For counts and columns computed from
    /// stored values, where `Int(_:)` would trap.
    public var clampedInt: Int {
        guard !isNaN else { return 0 }
        if self >= 9.2e18 { return Int.max }
        if self <= -9.2e18 { return Int.min }
        return Int(self.rounded())
    }
}
