// Small text helpers for fixed-width figures (dates, times, hex), shared by every module that
// writes them.

/// `value` in decimal, left-padded with zeros to `width` characters ("7" → "07" for width 2).
public func zeroPadded(_ value: some BinaryInteger, width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}
