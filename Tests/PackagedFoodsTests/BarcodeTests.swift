// Check digits of EAN-8, EAN-13, UPC-A, UPC-E and GTIN-14, and what a scanner line looks like.
import PackagedFoods
import XCTest

final class BarcodeTests: XCTestCase {
    func testValidCodesOfEachKind() throws {
        XCTAssertEqual(try Barcode("3017620422003").kind, .ean13)      // Nutella
        XCTAssertEqual(try Barcode("3029330003533").kind, .ean13)
        XCTAssertEqual(try Barcode("7622210288257").kind, .ean13)
        XCTAssertEqual(try Barcode("50112579").kind, .ean8)
        XCTAssertEqual(try Barcode("96385074").kind, .ean8)
        XCTAssertEqual(try Barcode("036000291452").kind, .upcA)
        XCTAssertEqual(try Barcode("094395000172").kind, .upcA)
        XCTAssertEqual(try Barcode("10036000291459").kind, .gtin14)
        XCTAssertEqual(try Barcode(" 3017620-422003 ").code, "3017620422003")
    }

    func testUPCEIsExpandedToUPCA() throws {
        // 0425261 + check 4 is UPC-A 042100005264.
        let b = try Barcode("04252614")
        XCTAssertEqual(b.kind, .upcE)
        XCTAssertEqual(b.code, "042100005264")
        XCTAssertEqual(try Barcode("042100005264").kind, .upcA)
        // Last digit 3 rule: 01234533 -> 012300000045 with its own check digit.
        let expanded = try Barcode("01234531")
        XCTAssertEqual(expanded.code.count, 12)
        XCTAssertNoThrow(try Barcode(expanded.code))
    }

    func testWrongCheckDigitsAreRefusedWithTheRightDigit() {
        XCTAssertThrowsError(try Barcode("3017620422004")) { e in
            XCTAssertEqual(e as? Barcode.Problem, .checkDigit(kind: "EAN-13", expected: "3"))
            XCTAssertTrue("\(e)".contains("should be 3"))
        }
        XCTAssertThrowsError(try Barcode("036000291453"))
        XCTAssertThrowsError(try Barcode("10036000291458"))
        XCTAssertThrowsError(try Barcode("96385075"))
    }

    func testWrongLengthsAndNonDigits() {
        XCTAssertEqual(Result { try Barcode("12345") }.problem, .length(5))
        XCTAssertEqual(Result { try Barcode("301762042200a") }.problem, .notDigits)
        XCTAssertEqual(Result { try Barcode("") }.problem, .notDigits)
        XCTAssertEqual(Result { try Barcode("３０１７６２０４２２００３") }.problem, .notDigits)
    }

    func testEveryCheckDigitIsTheOnlyOneAccepted() throws {
        let body = "301762042200"
        var accepted = 0
        for d in 0...9 where (try? Barcode(body + String(d))) != nil { accepted += 1 }
        XCTAssertEqual(accepted, 1)
    }

    func testScannerLines() {
        XCTAssertTrue(Barcode.looksLikeScan("3017620422003"))
        XCTAssertTrue(Barcode.looksLikeScan("  50112579\n"))
        XCTAssertFalse(Barcode.looksLikeScan("1234567"))
        XCTAssertFalse(Barcode.looksLikeScan("123456789012345"))
        XCTAssertFalse(Barcode.looksLikeScan("log 3017620422003"))
        XCTAssertFalse(Barcode.looksLikeScan("2000"))
    }
}

extension Result where Success == Barcode, Failure == Error {
    var problem: Barcode.Problem? {
        if case .failure(let e) = self { return e as? Barcode.Problem }
        return nil
    }
}
