// Barcodes a person types or scans (EAN-8, EAN-13, UPC-A, UPC-E, GTIN-14), checked before any request.

/// A barcode whose check digit is right. `code` is what is sent to Open Food Facts: the digits
/// as given, except that a UPC-E is expanded to its 12-digit UPC-A.
public struct Barcode: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case ean8 = "EAN-8", upcE = "UPC-E", upcA = "UPC-A", ean13 = "EAN-13", gtin14 = "GTIN-14"
    }

    public let code: String
    public let kind: Kind
    public var description: String { code }

    /// Why a text is not a barcode, said the way the user sees it.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case notDigits
        case length(Int)
        case checkDigit(kind: String, expected: Character)

        public var description: String {
            switch self {
            case .notDigits:
                return "a barcode is 8, 12, 13 or 14 digits (spaces and dashes are ignored)"
            case .length(let n):
                return "a barcode has 8, 12, 13 or 14 digits, not \(n)"
            case .checkDigit(let kind, let expected):
                return "the check digit is wrong for an \(kind) (the last digit should be \(expected)); retype or rescan the code"
            }
        }
    }

    /// Validates `text` (spaces and dashes ignored). Throws `Problem` when it is not a barcode.
    public init(_ text: String) throws(Problem) {
        let digits = text.filter { $0 != " " && $0 != "-" }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw .notDigits }
        let d = digits.utf8.map { Int($0) - 0x30 }
        switch d.count {
        case 8:
            // An 8-digit code is an EAN-8 when its check digit says so, otherwise a UPC-E
            // (number system 0 or 1) whose check digit is that of its UPC-A expansion.
            if Barcode.checkDigit(d.dropLast()) == d[7] {
                self.code = digits; self.kind = .ean8
            } else if d[0] <= 1, let upcA = Barcode.expandUPCE(d), Barcode.checkDigit(upcA.dropLast()) == d[7] {
                self.code = String(upcA.map { Character(String($0)) }); self.kind = .upcE
            } else {
                throw .checkDigit(kind: "EAN-8", expected: Character(String(Barcode.checkDigit(d.dropLast()))))
            }
        case 12, 13, 14:
            let kind: Kind = d.count == 12 ? .upcA : d.count == 13 ? .ean13 : .gtin14
            let expected = Barcode.checkDigit(d.dropLast())
            guard expected == d[d.count - 1] else { throw .checkDigit(kind: kind.rawValue, expected: Character(String(expected))) }
            self.code = digits; self.kind = kind
        default:
            throw .length(d.count)
        }
    }

    /// The GS1 mod-10 check digit of the digits before it: weights 3,1,3,… from the right.
    public static func checkDigit<C: Collection>(_ body: C) -> Int where C.Element == Int {
        var sum = 0
        for (i, digit) in body.reversed().enumerated() { sum += digit * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// The 12 digits of the UPC-A a UPC-E stands for (number system, 6 digits, check digit).
    static func expandUPCE(_ d: [Int]) -> [Int]? {
        guard d.count == 8 else { return nil }
        let ns = d[0], m = Array(d[1...6]), check = d[7]
        var body: [Int]
        switch m[5] {
        case 0, 1, 2: body = [m[0], m[1], m[5], 0, 0, 0, 0, m[2], m[3], m[4]]
        case 3: body = [m[0], m[1], m[2], 0, 0, 0, 0, 0, m[3], m[4]]
        case 4: body = [m[0], m[1], m[2], m[3], 0, 0, 0, 0, 0, m[4]]
        default: body = [m[0], m[1], m[2], m[3], m[4], 0, 0, 0, 0, m[5]]
        }
        return [ns] + body + [check]
    }

    /// True when `line` looks like what a barcode scanner types: only 8 to 14 digits.
    public static func looksLikeScan(_ line: String) -> Bool {
        let t = line.trimmingCharacters(in: [" ", "\t", "\r", "\n"])
        return (8...14).contains(t.utf8.count) && t.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
