// The one decimal rule every amount parser uses: decimal point or comma, a thousands comma,
// fractions, and the forms it refuses rather than guesses.
import Testing
@testable import Base

@Suite struct TypedNumberTests {
    @Test func readsDecimalPointsDecimalCommasThousandsAndFractions() {
        let cases: [(String, Double)] = [
            ("2", 2), ("1.5", 1.5), ("1,5", 1.5), ("0,25", 0.25), ("1,50", 1.5), ("1,5000", 1.5), (".5", 0.5), (",5", 0.5),
            ("12,500,000", 12_500_000), ("1,000,000", 1_000_000), ("0,500", 0.5), ("1.000", 1),
            ("1/2", 0.5), ("3/4", 0.75), ("1,5/3", 0.5), ("½", 0.5), ("1½", 1.5), ("2¼", 2.25), ("1,5½", 2),
        ]
        for (text, value) in cases {
            #expect(TypedNumber.value(text) == value, "\(text)")
        }
    }

    @Test func refusesTwoSeparatorsZeroDenominatorsAndSlips() {
        let twoSeparators = ["1.5,5", "1,000.5", "1.000.5", "1,5,5", "1,00,000", "1,000,5"]
        for text in twoSeparators {
            #expect(TypedNumber.read(text) == .failure(.twoSeparators(text)), "\(text)")
        }
        // One comma before exactly three digits is a thousand in one country and a decimal in another.
        for text in ["1,000", "12,500", "2,500", "999,999"] {
            #expect(TypedNumber.read(text) == .failure(.ambiguousComma(text)), "\(text)")
        }
        for text in ["1/0", "3/0,0", "1/0.0"] {
            #expect(TypedNumber.read(text) == .failure(.zeroDenominator(text)), "\(text)")
        }
        for text in ["5.", "5,", "1/2/3", "/2", "1/", "½½", "1/½"] {
            #expect(TypedNumber.read(text) == .failure(.malformed(text)), "\(text)")
        }
        // Not numbers at all: the caller reads them as words.
        for text in ["", "cup", "1e5", "-1", "+2", "inf", "nan", "1a", ",", "."] {
            #expect(TypedNumber.read(text) == nil, "\(text)")
        }
    }

    @Test func eachRefusalSaysWhatWasReadAndWhatToType() {
        let p = TypedNumber.Problem.twoSeparators("1.5,5")
        #expect(p.description == "\"1.5,5\" has two decimal separators")
        #expect(p.hint.contains("1.5 or 1,5"))
        let ambiguous = TypedNumber.Problem.ambiguousComma("1,000")
        #expect(ambiguous.description == "\"1,000\" could be a thousand or a decimal")
        #expect(ambiguous.hint == "type 1000 (no comma) for the whole number, or 1.000 for the decimal")
        #expect(TypedNumber.Problem.zeroDenominator("1/0").description == "\"1/0\" divides by zero")
        #expect(TypedNumber.Problem.zeroDenominator("1/0").hint.contains("1/2"))
    }
}
